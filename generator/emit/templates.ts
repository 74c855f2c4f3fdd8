/** Handlebars templates from `templates/`: strict (a missing value is an error) and unescaped (the output is code). */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";

/** `templates/` of the installed package (works from the sources and from `dist/`). */
export function templatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      readFileSync(join(dir, "package.json"));
      return join(dir, "templates");
    } catch {
      dir = dirname(dir);
    }
  }
  throw new Error("cannot find the templates/ folder of mcp-tasks-gen");
}

const compiled = new Map<string, Handlebars.TemplateDelegate>();
const sources = new Map<string, string>();

/** The text of a template as written (read once). */
export function templateSource(name: string): string {
  let source = sources.get(name);
  if (source === undefined) {
    source = readFileSync(join(templatesDir(), name), "utf8");
    sources.set(name, source);
  }
  return source;
}

export function renderTemplate(name: string, data: object): string {
  let template = compiled.get(name);
  if (!template) {
    const source = templateSource(name);
    template = Handlebars.compile(source, { noEscape: true, strict: true });
    compiled.set(name, template);
  }
  return template(data);
}

/** The validators' runtime helpers: a fixed module copied into every set. */
export function runtimeSource(): string {
  return readFileSync(join(templatesDir(), "runtime.ts"), "utf8");
}
