// Which definitions of a bundled set `npm run bench` measures: the ones a generated client or server checks
// on every message. They are read from the set's generated client.ts and server.ts (the validators those
// import from ./validators.js) and its schemas, never listed by hand, so a new check cannot be missed:
// - `validateXResult` → the result `XResult`;
// - `validateXRequestParams` / `validateXNotificationParams` → the whole message whose params they are
//   (`XRequest` / `XNotification`, or a definition whose `params` `$ref`s them and whose `method` the
//   client or server names), measured whole so a wrong `method` and null params are inputs too;
// - any other imported validator (error data, input requests, task metadata…) is not a per-message check:
//   it is returned under `skipped`, which the bench's test pins so a new one forces a decision.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** The seed, core and remote schemas of a configured set, and a lookup of their definitions by name. */
export function setSchemas(set, root) {
  const read = (file) => JSON.parse(readFileSync(resolve(root, file), "utf8"));
  const documents = [];
  for (const file of set.schemas) {
    const schema = read(file);
    documents.push({ file, uri: schema.$id ?? `https://mcp-tasks-gen.invalid/${file}`, schema, role: "seed" });
  }
  const remoteUrls = new Map(Object.entries(set.remotes ?? {}).map(([url, file]) => [resolve(root, file), url]));
  for (const [url, file] of Object.entries(set.remotes ?? {})) documents.push({ file, uri: url, schema: read(file), role: "remote" });
  if (set.core?.schema && !remoteUrls.has(resolve(root, set.core.schema))) {
    documents.push({ file: set.core.schema, uri: `https://mcp-tasks-gen.invalid/${set.core.schema}`, schema: read(set.core.schema), role: "core" });
  }
  /** The first document (seed before core) defining `name`, with the definition's pointer. */
  const find = (name) => {
    for (const doc of documents) {
      const key = doc.schema.$defs ? "$defs" : "definitions";
      if (doc.schema[key]?.[name] !== undefined) return { doc, pointer: `#/${key}/${name}`, schema: doc.schema[key][name] };
    }
    return undefined;
  };
  return { documents, find };
}

/** `import { … } from "./validators.js"` names of a generated module's source. */
function validatorImports(source) {
  const names = [];
  for (const m of source.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*"\.\/validators\.js"/g)) {
    for (const part of m[1].split(",")) {
      const name = part.trim().replace(/^type\s+/, "");
      if (name) names.push(name);
    }
  }
  return names;
}

/** The `method` const of a message definition (through `allOf` and local `$ref`s), or undefined. */
export function methodOf(schema, resolveRef, depth = 0) {
  if (!schema || typeof schema !== "object" || depth > 8) return undefined;
  const own = schema.properties?.method;
  if (own && typeof own.const === "string") return own.const;
  for (const part of schema.allOf ?? []) {
    const found = methodOf(part, resolveRef, depth + 1);
    if (found) return found;
  }
  if (typeof schema.$ref === "string") return methodOf(resolveRef(schema.$ref), resolveRef, depth + 1);
  return undefined;
}

/** Whether a message definition's `params` is (through `allOf`) a `$ref` ending in `/name`. */
function paramsRefers(schema, name, depth = 0) {
  if (!schema || typeof schema !== "object" || depth > 8) return false;
  const params = schema.properties?.params;
  if (params && typeof params.$ref === "string" && params.$ref.endsWith(`/${name}`)) return true;
  return (schema.allOf ?? []).some((part) => paramsRefers(part, name, depth + 1));
}

/**
 * The hot-path definitions of one set: `[{ set, name, kind: "result" | "request" | "notification", checkedAs,
 * method? }]` in name order, and `skipped` (the other validators its client/server import). A set without
 * client.ts and server.ts has none.
 */
export function hotPathDefinitions(set, root, outDir) {
  const dir = join(outDir, set.name);
  const sources = ["client.ts", "server.ts"].filter((f) => existsSync(join(dir, f))).map((f) => readFileSync(join(dir, f), "utf8"));
  const exported = new Set([...readFileSync(join(dir, "validators.ts"), "utf8").matchAll(/^export function is([A-Z]\w*)\(/gm)].map((m) => m[1]));
  const methodsNamed = new Set(sources.flatMap((s) => [...s.matchAll(/"([a-z]+\/[A-Za-z_/]+)"/g)].map((m) => m[1])));
  const imported = [...new Set(sources.flatMap(validatorImports))].sort();
  const { documents, find } = setSchemas(set, root);
  const definitions = new Map();
  const skipped = [];
  const add = (name, kind, checkedAs, method) => {
    if (!exported.has(name)) throw new Error(`${set.name}: ${checkedAs} is checked per message but validators.ts exports no is${name}`);
    if (!definitions.has(name)) definitions.set(name, { set: set.name, name, kind, checkedAs, ...(method ? { method } : {}) });
  };
  for (const fn of imported) {
    const m = /^validate(\w+?)(Result|RequestParams|NotificationParams)$/.exec(fn);
    if (!m) {
      skipped.push(fn);
      continue;
    }
    const [, stem, suffix] = m;
    if (suffix === "Result") {
      add(`${stem}Result`, "result", `${stem}Result`);
      continue;
    }
    const kind = suffix === "RequestParams" ? "request" : "notification";
    const params = `${stem}${suffix}`;
    const messages = [];
    for (const doc of documents) {
      const key = doc.schema.$defs ? "$defs" : "definitions";
      for (const [name, schema] of Object.entries(doc.schema[key] ?? {})) {
        const resolveRef = (ref) => (ref.startsWith("#/") ? ref.slice(2).split("/").reduce((s, k) => s?.[k], doc.schema) : undefined);
        const method = methodOf(schema, resolveRef);
        if (!method) continue;
        if (name === params.replace(/Params$/, "") || (paramsRefers(schema, params) && methodsNamed.has(method))) messages.push({ name, method });
      }
    }
    if (messages.length === 0) throw new Error(`${set.name}: no ${kind} definition carries ${params} (checked by ${fn})`);
    for (const { name, method } of messages) if (find(name)) add(name, kind, params, method);
  }
  return { definitions: [...definitions.values()].sort((a, b) => a.name.localeCompare(b.name)), skipped };
}

/** Every set's hot-path definitions, in the config's set order. */
export function allHotPathDefinitions(config, root) {
  const outDir = resolve(root, config.outDir ?? "generated");
  return config.sets.flatMap((set) => hotPathDefinitions(set, root, outDir).definitions);
}
