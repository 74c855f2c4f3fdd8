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
 * configured local files, registered under their URLs as mcp-tasks-gen reads them.
 * Returns `{ code, exports }`.
 */
export function ajvStandalone(set, rootDir) {
  const schemas = set.schemas.map((file) => ({ file, schema: JSON.parse(readFileSync(resolve(rootDir, file), "utf8")) }));
  const dialect = String(schemas[0].schema.$schema ?? "");
  const Ajv = dialect.includes("2020-12") ? Ajv2020 : Ajv07; // the codex and 2025-11-25 seeds are draft-07
  // validateFormats: false keeps `format` an annotation, as the generator does (ajv without ajv-formats
  // knows no format anyway; this only silences its "unknown format" warnings).
  const ajv = new Ajv({ strict: false, validateFormats: false, code: { source: true, esm: true } });
  for (const [url, file] of Object.entries(set.remotes ?? {})) {
    ajv.addSchema(JSON.parse(readFileSync(resolve(rootDir, file), "utf8")), url);
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
  return { code: standaloneCode(ajv, refs), exports: Object.keys(refs).length };
}
