/**
 * What generated stubs are made of, from `templates/`:
 *
 * - static modules, `templates/runtime/<layer>/<name>.ts`: real TypeScript, type-checked and unit-tested
 *   with the project, already formatted, copied into a set as they are (see `staticModule`);
 * - Handlebars templates, `templates/<name>.ts.hbs`: only the schema-dependent glue, each rendered
 *   from a typed view model (see `typedTemplate`). Strict (a missing value is an error) and
 *   unescaped (the output is code).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";
import { PART_MODULES, type PartModule } from "./runtime-parts.js";

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

/**
 * The keys a template reads from its view model `View`, as a value: `true` for a plain value, the
 * object's keys for an object (read as `{{a.b}}`) and the item's keys for a list it walks with `#each`. The compiler makes it list exactly the keys of
 * `View` (a missing or misspelt key does not compile); test/runtime/template-views.test.ts checks
 * that the template reads exactly these names, so view model, keys and template cannot drift apart.
 */
export type ViewKeys<View> = {
  readonly [K in keyof View]-?: KeysOf<Exclude<View[K], false | undefined>>;
};

/** A value's keys: an object's (a list's items'), or `true` for a plain value. */
type KeysOf<Value> = Value extends readonly (infer Item)[] ? KeysOf<Item> : Value extends object ? ViewKeys<Value> : true;

/** A template with the type of its view model. */
export interface TypedTemplate<View extends object> {
  readonly name: string;
  readonly keys: ViewKeys<View>;
}

/** Declares `templates/<name>` as rendered from `View`, with the keys it reads (see ViewKeys). */
export function typedTemplate<View extends object>(name: string, keys: ViewKeys<View>): TypedTemplate<View> {
  return { name, keys };
}

/** Renders a typed template: the view must be exactly a `View` (an extra key is an excess-property error at the call). */
export function render<View extends object>(template: TypedTemplate<View>, view: View): string {
  return renderTemplate(template.name, view);
}

/** Every template goes through `render` with its typed view. */
function renderTemplate(name: string, data: object): string {
  let template = compiled.get(name);
  if (!template) {
    const source = templateSource(name);
    template = precompiled(name, source) ?? Handlebars.compile(source, { noEscape: true, strict: true });
    compiled.set(name, template);
  }
  return template(data);
}

const require = createRequire(import.meta.url);

/**
 * The template as `npm run build` compiled it (tools/precompile-templates.mjs, same options), when
 * it was compiled from this very source; undefined from the TypeScript sources or after the
 * template changed (then it is compiled here).
 */
function precompiled(name: string, source: string): Handlebars.TemplateDelegate | undefined {
  const file = fileURLToPath(new URL(`./precompiled/${name}.cjs`, import.meta.url));
  if (!existsSync(file)) return undefined;
  const built = require(file) as { source: string; spec: Parameters<typeof Handlebars.template>[0] };
  return built.source === source ? Handlebars.template(built.spec) : undefined;
}

/**
 * The static modules every set may get, by their path below `templates/runtime/` without `.ts`
 * (a set holds them at the same paths below its `runtime/` folder). The runtime parts' modules
 * come from their one list in runtime-parts.ts. A test holds this list and the folder together.
 */
const SET_MODULES = [
  "protocol/json",
  "protocol/constants",
  "protocol/base64",
  "protocol/header-values",
  "protocol/elicitation-forms",
  "protocol/form-answers",
  "client/core",
  "client/task-wait",
  "client/tool-catalog",
  "client/profile",
  "client/input-answers",
  "client/task-profile",
  "client/round-trips",
  "client/listen",
  "client/headers",
  "client/versions",
  "client/server-requests",
  "client/engine",
  "server/json-rpc",
  "server/store",
  "server/task-write",
  "server/task-engine",
  "server/core",
  "server/profile",
  "server/listen",
  "server/side-channel",
  "server/engine",
  "server/tasks-extension",
  "server/request-state",
] as const;

export const STATIC_MODULES: readonly StaticModuleName[] = [...SET_MODULES, ...PART_MODULES];
export type StaticModuleName = (typeof SET_MODULES)[number] | PartModule;

/** Where the static modules sit in a set's folder, as they sit in `templates/runtime/`. */
export const RUNTIME_FOLDER = "runtime";

/** A static module's file name in a set's folder: `runtime/client/engine.ts`. */
export function staticFileName(name: StaticModuleName): string {
  return `${RUNTIME_FOLDER}/${name}.ts`;
}

/** The file names, in a set's folder, of every module a runtime part may add (`runtime/parts/http-server.ts`, ...). */
export const RUNTIME_PART_FILES: ReadonlySet<string> = new Set(PART_MODULES.map(staticFileName));

const staticSources = new Map<StaticModuleName, string>();

/**
 * A static module's source, copied into a set unchanged but for the file header. It is already
 * formatted (test/runtime/static-modules.test.ts checks it), so a TypeScript set does not format it again.
 */
export function staticModule(name: StaticModuleName): string {
  let source = staticSources.get(name);
  if (source === undefined) {
    source = readFileSync(join(templatesDir(), "runtime", `${name}.ts`), "utf8");
    staticSources.set(name, source);
  }
  return source;
}

/**
 * The given static modules and every static module they import, each once, in the order of
 * STATIC_MODULES: a stub or a part names the modules it uses itself, and what those build on
 * follows from their imports (so splitting a module never changes a list elsewhere).
 */
export function withImports(names: readonly StaticModuleName[]): StaticModuleName[] {
  const found = new Set<StaticModuleName>();
  const visit = (name: StaticModuleName): void => {
    if (found.has(name)) return;
    found.add(name);
    for (const imported of staticImports(name)) visit(imported);
  };
  names.forEach(visit);
  return STATIC_MODULES.filter((name) => found.has(name));
}

/** The static modules a static module imports (its relative import and export specifiers, resolved). */
function staticImports(name: StaticModuleName): StaticModuleName[] {
  const imports: StaticModuleName[] = [];
  // The sources are formatted (prettier): every import or re-export ends in `from "<specifier>";`.
  for (const match of staticModule(name).matchAll(/^(?:import|export)\b[^;]*?\sfrom "(\.\.?\/[^"]+)\.js";/gm)) {
    const resolved = posix.join(posix.dirname(name), match[1]!);
    const known = STATIC_MODULES.find((module) => module === resolved);
    if (!known) throw new Error(`templates/runtime/${name}.ts imports "${match[1]}", which is no static module`);
    imports.push(known);
  }
  return imports;
}
