// ajv's standalone output for the schemas of one configured set: the JavaScript ajv would have a
// user ship instead of compiling at run time. Used by `npm run bench` for the size table.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const require = createRequire(import.meta.url);
const Ajv07 = require("ajv").default;
const Ajv2020 = require("ajv/dist/2020").default;
const standaloneCode = require("ajv/dist/standalone").default;

// Keywords that say nothing about a value: a root made only of these is a container of
// definitions, not a schema of its own (the generator generates a root only when it has a title).
const annotationOnly = new Set(["$schema", "$id", "$comment", "title", "description", "$defs", "definitions"]);

/**
 * Standalone ESM code validating every definition (`$defs` or `definitions`) of every schema of
 * `set`, plus a titled root that constrains values; remote `$ref`s resolve from the set's
 * configured local files, registered under their URLs as mcp-tasks-gen reads them. With a `core`
 * schema, also the core definitions `generated(name)` says the generated validators export beside the
 * set's own (README, Core definitions), so both sides validate the same definitions.
 * Returns `{ code, exports }`.
 */
export function ajvStandalone(set, rootDir, generated = () => false) {
  const schemas = set.schemas.map((file) => ({ file, schema: JSON.parse(readFileSync(resolve(rootDir, file), "utf8")) }));
  const dialect = String(schemas[0].schema.$schema ?? "");
  const Ajv = dialect.includes("2020-12") ? Ajv2020 : Ajv07; // the codex and 2025-11-25 seeds are draft-07
  // validateFormats: false keeps `format` an annotation, as the generator does (ajv without ajv-formats
  // knows no format anyway; this only silences its "unknown format" warnings).
  const ajv = new Ajv({ strict: false, validateFormats: false, code: { source: true, esm: true } });
  // A remote of another dialect (the 2020-12 MCP core schema behind the draft-07 2025-11-25 Tasks schema)
  // goes in without `$schema`, which the seed's ajv cannot load; what the seed reaches means the same.
  const withoutOtherDialect = ({ $schema, ...body }) => (String($schema ?? dialect) === dialect ? { $schema, ...body } : body);
  const remoteUrls = new Map();
  for (const [url, file] of Object.entries(set.remotes ?? {})) {
    ajv.addSchema(withoutOtherDialect(JSON.parse(readFileSync(resolve(rootDir, file), "utf8"))), url);
    remoteUrls.set(resolve(rootDir, file), url);
  }
  const refs = {};
  for (const { file, schema } of schemas) {
    // A schema without `$id` gets a fixed key, so the output does not depend on the machine.
    const id = schema.$id ?? `https://mcp-tasks-gen.invalid/${file}`;
    ajv.addSchema(schema, schema.$id ? undefined : id);
    const defsKey = schema.$defs ? "$defs" : "definitions";
    for (const name of Object.keys(schema[defsKey] ?? {})) refs[name] = `${id}#/${defsKey}/${name}`;
    const constrainsRoot = Object.keys(schema).some((k) => !annotationOnly.has(k));
    if (typeof schema.title === "string" && constrainsRoot) refs[schema.title] = id;
  }
  if (set.core?.schema) {
    const file = resolve(rootDir, set.core.schema);
    const core = JSON.parse(readFileSync(file, "utf8"));
    let id = remoteUrls.get(file);
    if (!id) {
      id = `https://mcp-tasks-gen.invalid/${set.core.schema}`;
      ajv.addSchema(withoutOtherDialect(core), id);
    }
    for (const name of Object.keys(core.$defs ?? {})) if (!(name in refs) && generated(name)) refs[name] = `${id}#/$defs/${name}`;
  }
  return { code: standaloneCode(ajv, refs), exports: Object.keys(refs).length };
}
