// The contenders of `npm run bench` for one definition of a set, all fed the same seed schema: ours (the
// generated `isX`/`validateX`, transpiled), ajv with default options and with `allErrors` (compiled from the
// seed schema as ajv's own users would, `format` an annotation as for the generator), TypeBox's compiler
// (bench/lib/typebox-schema.mjs) and typia (bench/lib/typia-types.mjs, transformed at bench time). A contender
// that cannot express a definition says why instead of being timed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { setSchemas } from "./hot-path.mjs";
import { transpileSet } from "./generated.mjs";
import { compileTypeBox, TypeBoxRefusal } from "./typebox-schema.mjs";
import { typiaSources } from "./typia-types.mjs";

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
  return { compile, resolveRef, documents, find };
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
export async function otherContenders({ job, set, name, compiled, ajv }) {
  let typebox;
  try {
    typebox = { name: "TypeBox", is: compileTypeBox({ schema: compiled.schema, doc: compiled.doc, pointer: compiled.pointer, resolveRef: ajv.resolveRef }) };
  } catch (error) {
    // A refusal says what TypeBox cannot express; anything else is reported in the row rather than ending the run.
    typebox = { name: "TypeBox", refused: error instanceof TypeBoxRefusal ? error.message : `TypeBox failed: ${error.message}` };
  }
  return [await typiaContender(job.work, set.name, name), typebox];
}

const typiaModules = new Map();
async function typiaContender(work, setName, name) {
  const state = JSON.parse(readFileSync(join(work, "typia", "state.json"), "utf8"));
  if (state.failed) return { name: "typia", refused: state.failed };
  const reason = state.refused[`${setName}/${name}`];
  if (reason) return { name: "typia", refused: reason };
  if (!typiaModules.has(setName)) typiaModules.set(setName, await import(pathToFileURL(join(work, "typia", setName, "checks.js")).href));
  const is = typiaModules.get(setName)[`is${name}`];
  return is ? { name: "typia", is } : { name: "typia", refused: "not transformed" };
}

/**
 * Work done once per bench run before any measuring process starts: typia's transform of a tagged copy of each
 * set's types.ts (bench/lib/typia-types.mjs) into `work/typia/<set>/checks.js`, with `work/typia/state.json`
 * (refusals by definition, or why the transform failed). Returns `{ notes }`, lines the tables print.
 */
export async function prepareContenders({ root, work, config, definitions }) {
  const notes = [];
  const refused = {};
  const source = join(work, "typia-src");
  const tagged = [];
  // The transformed code imports typia's runtime helpers: the temporary folder resolves them from the repository.
  symlinkSync(join(root, "node_modules"), join(work, "node_modules"), "dir");
  // `typia generate` looks for the project's package.json.
  writeFileSync(join(work, "package.json"), '{ "name": "mcp-tasks-gen-bench-typia", "private": true, "type": "module" }\n');
  for (const set of config.sets) {
    const chosen = definitions.filter((d) => d.set === set.name);
    if (chosen.length === 0) continue;
    const ajv = ajvForSet(set, root);
    const defs = chosen.map((d) => ({ name: d.name, ...ajv.find(d.name) }));
    const out = typiaSources(readFileSync(join(root, config.outDir ?? "generated", set.name, "types.ts"), "utf8"), defs, ajv.resolveRef, ajv.find);
    mkdirSync(join(source, set.name), { recursive: true });
    writeFileSync(join(source, set.name, "types.ts"), out.types);
    writeFileSync(join(source, set.name, "checks.ts"), out.checks);
    for (const [name, reason] of out.refused) refused[`${set.name}/${name}`] = reason;
    tagged.push(`${set.name} ${out.tagged}`);
  }
  const tsconfig = { compilerOptions: { strict: true, target: "ES2022", module: "ES2022", moduleResolution: "Bundler", skipLibCheck: true, noEmit: true }, include: ["./**/*.ts"] };
  writeFileSync(join(source, "tsconfig.json"), JSON.stringify(tsconfig));
  const started = performance.now();
  const run = spawnSync(process.execPath, [join(root, "node_modules/typia/lib/executable/typia.js"), "generate", "--input", source, "--output", join(work, "typia-ts"), "--project", join(source, "tsconfig.json")], { cwd: work, encoding: "utf8" });
  let failed;
  if (run.status !== 0) failed = `typia generate failed (exit ${run.status}): ${(run.stderr || run.stdout).trim().split("\n").slice(0, 3).join(" ")}`;
  else {
    for (const set of config.sets) if (existsSync(join(work, "typia-ts", set.name))) transpileSet(join(work, "typia-ts", set.name), join(work, "typia", set.name));
  }
  mkdirSync(join(work, "typia"), { recursive: true });
  writeFileSync(join(work, "typia", "state.json"), JSON.stringify({ refused, failed }));
  notes.push(
    failed
      ? `typia: ${failed}`
      : `typia: \`createIs\` (\`createEquals\` where a definition's objects are closed) on a copy of each set's types.ts with typia tags (numbers tagged: ${tagged.join(", ")}), transformed by \`typia generate\` in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
  );
  return { notes };
}
