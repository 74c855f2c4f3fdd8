// The contenders of `npm run bench` for one definition of a set, all fed the same seed schema: ours (the
// generated `isX`/`validateX`, transpiled), ajv with default options and with `allErrors` (compiled from the
// seed schema as ajv's own users would, `format` an annotation as for the generator), TypeBox's compiler
// (bench/lib/typebox-schema.mjs) and typia (bench/lib/typia-types.mjs, transformed at bench time). A contender
// that cannot express a definition says why instead of being timed.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { setSchemas } from "./hot-path.mjs";
import { compileTypeBox, TypeBoxRefusal } from "./typebox-schema.mjs";

const require = createRequire(import.meta.url);
const Ajv07 = require("ajv").default;
const Ajv2020 = require("ajv/dist/2020").default;

/** ajv instances (default and allErrors) holding every document of a set, and a `$ref` resolver over them. */
export function ajvForSet(set, root) {
  const { documents, find } = setSchemas(set, root);
  const dialect = String(documents[0].schema.$schema ?? "");
  const Ajv = dialect.includes("2020-12") ? Ajv2020 : Ajv07;
  // A remote of another dialect (the 2020-12 core schema behind the draft-07 2025-11-25 seed) goes in without
  // `$schema`, as in bench/lib/ajv-standalone.mjs.
  const withoutOtherDialect = ({ $schema, ...body }) => (String($schema ?? dialect) === dialect ? { $schema, ...body } : body);
  const make = (options) => {
    // validateFormats: false keeps `format` an annotation, as the generator does.
    const ajv = new Ajv({ strict: false, validateFormats: false, ...options });
    for (const doc of documents) ajv.addSchema(doc.role === "seed" ? doc.schema : withoutOtherDialect(doc.schema), doc.uri);
    return ajv;
  };
  const instances = { standard: make({}), allErrors: make({ allErrors: true }) };
  const byUri = new Map(documents.map((d) => [d.uri, d]));
  /** `{ schema, doc }` a `$ref` met in `doc` points to (local pointers and the set's documents by URI). */
  const resolveRef = (ref, doc) => {
    const [base, fragment = ""] = ref.split("#");
    const target = base === "" ? doc : byUri.get(base) ?? documents.find((d) => d.uri.endsWith(base));
    if (!target) throw new Error(`${set.name}: cannot resolve $ref ${ref}`);
    const schema = fragment.split("/").filter(Boolean).reduce((s, k) => s?.[decodeURIComponent(k.replace(/~1/g, "/").replace(/~0/g, "~"))], target.schema);
    if (schema === undefined) throw new Error(`${set.name}: $ref ${ref} points nowhere`);
    return { schema, doc: target };
  };
  const compile = (name) => {
    const found = find(name);
    if (!found) throw new Error(`${set.name}: no definition ${name} in its schemas`);
    const key = `${found.doc.uri}${found.pointer}`;
    return { ...found, standard: instances.standard.getSchema(key), allErrors: instances.allErrors.getSchema(key) };
  };
  return { compile, resolveRef, documents };
}

/** The generated validators of a set, transpiled into `work/<set>/validators.js`. */
export async function oursForSet(work, setName) {
  const file = join(work, setName, "validators.js");
  if (!existsSync(file)) throw new Error(`${file} is missing: the bench transpiles generated/${setName} first`);
  return import(pathToFileURL(file).href);
}

/**
 * The contenders besides ours and ajv for one definition: `[{ name, is }]`, or `{ name, refused }` where one
 * cannot express the definition exactly.
 */
export async function otherContenders({ compiled, ajv }) {
  let typebox;
  try {
    typebox = { name: "TypeBox", is: compileTypeBox({ schema: compiled.schema, doc: compiled.doc, pointer: compiled.pointer, resolveRef: ajv.resolveRef }) };
  } catch (error) {
    if (!(error instanceof TypeBoxRefusal)) throw error;
    typebox = { name: "TypeBox", refused: error.message };
  }
  return [typebox];
}

/**
 * Work done once per bench run before any measuring process starts (typia's transform); returns `{ notes }`,
 * lines the tables print about the contenders.
 */
export async function prepareContenders() {
  return { notes: [] };
}
