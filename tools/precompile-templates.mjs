// Part of `npm run build`: compiles each Handlebars template (templates/*.hbs) ahead of time into
// dist/generator/emit/precompiled/<name>.cjs, so a run does not compile them again (about 45 ms of
// every generation). Each module holds the template's source with its compiled form: the
// generator uses it only while the source is the same (see generator/emit/templates.ts).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, "dist/generator/emit/precompiled");
mkdirSync(out, { recursive: true });
for (const name of readdirSync(join(root, "templates")).filter((n) => n.endsWith(".hbs"))) {
  const source = readFileSync(join(root, "templates", name), "utf8");
  // The same options as Handlebars.compile gets in templates.ts.
  const spec = Handlebars.precompile(source, { noEscape: true, strict: true });
  writeFileSync(join(out, `${name}.cjs`), `module.exports = { source: ${JSON.stringify(source)}, spec: ${spec} };\n`);
}
