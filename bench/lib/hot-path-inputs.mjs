// Inputs of `npm run bench` for any definition, built from its schema: valid samples (one per option of the
// shallowest choice — a result's task statuses, a content block's kinds) and the typical mistakes of a peer,
// each one change to the first valid sample, and the first sample with a member its schema does not name (valid
// where the object is open, a mistake where it is closed). ajv (the reference) judges every input: a sample ajv rejects is
// dropped, a mistake ajv accepts is not a mistake and is dropped too. Every contender then gets these same
// inputs, and must give ajv's verdict on each before anything is timed.

const MAX_VALID = 6;
const fromWire = (value) => JSON.parse(JSON.stringify(value));
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A sample builder over a set's documents. `resolve(ref, doc)` returns `{ schema, doc }` for a `$ref` met
 * in `doc`. `picks` forces options at choice points (by path); every choice point met is recorded.
 */
function sampler(resolveRef) {
  return function build(rootSchema, rootDoc, picks) {
    const choices = [];
    const choose = (path, count) => {
      if (count > 1 && !choices.some((c) => c.path === path)) choices.push({ path, count, depth: path.split("/").length });
      return Math.min(picks.get(path) ?? 0, count - 1);
    };
    const sample = (schema, doc, path, depth) => {
      if (schema === true || schema === undefined) return "any";
      if (schema === false || depth > 24) return null;
      if (typeof schema.$ref === "string") {
        const target = resolveRef(schema.$ref, doc);
        const base = sample(target.schema, target.doc, path, depth + 1);
        const { $ref: _ref, ...rest } = schema;
        return Object.keys(rest).some((k) => k === "properties" || k === "allOf" || k === "anyOf" || k === "type") ? merge(base, sample(rest, doc, path, depth + 1)) : base;
      }
      if (Array.isArray(schema.allOf)) {
        const { allOf, ...rest } = schema;
        let value = Object.keys(rest).length > 0 ? sample(rest, doc, path, depth + 1) : undefined;
        allOf.forEach((part, i) => (value = merge(value, sample(part, doc, `${path}/allOf${i}`, depth + 1))));
        return value;
      }
      const options = schema.anyOf ?? schema.oneOf;
      if (Array.isArray(options)) {
        const { anyOf: _a, oneOf: _o, ...rest } = schema;
        const picked = sample(options[choose(path, options.length)], doc, path, depth + 1);
        return Object.keys(rest).some((k) => k === "properties" || k === "type") ? merge(sample(rest, doc, path, depth + 1), picked) : picked;
      }
      if ("const" in schema) return schema.const;
      if (Array.isArray(schema.enum)) return schema.enum[choose(path, schema.enum.length)];
      const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties || schema.required ? ["object"] : schema.items ? ["array"] : [];
      const type = types.find((t) => t !== "null") ?? types[0];
      switch (type) {
        case "object": {
          const value = {};
          const required = new Set(schema.required ?? []);
          for (const [key, sub] of Object.entries(schema.properties ?? {})) {
            // Required members, and optional scalar ones (what a typical message carries besides).
            if (required.has(key) || (key !== "_meta" && isScalar(sub))) value[key] = sample(sub, doc, `${path}/${key}`, depth + 1);
          }
          for (const key of required) if (!(key in value)) value[key] = sample(isObject(schema.additionalProperties) ? schema.additionalProperties : true, doc, `${path}/${key}`, depth + 1);
          return value;
        }
        case "array": {
          const item = sample(Array.isArray(schema.prefixItems) ? schema.prefixItems[0] : schema.items, doc, `${path}/0`, depth + 1);
          return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
        }
        case "string":
          return stringFor(schema);
        case "integer":
          return clamp(schema.minimum ?? 0, schema);
        case "number":
          return clamp(0.5, schema);
        case "boolean":
          return true;
        case "null":
          return null;
        default:
          return "any";
      }
    };
    const value = sample(rootSchema, rootDoc, "", 0);
    return { value, choices };
  };
}

function isScalar(schema) {
  if (!isObject(schema)) return false;
  if ("const" in schema || Array.isArray(schema.enum)) return true;
  return ["string", "integer", "number", "boolean"].includes(schema.type);
}

function stringFor(schema) {
  const text = schema.format === "date-time" ? "2025-11-25T10:30:00Z" : schema.format === "uri" ? "https://example.com/resource" : "text value";
  return schema.minLength > text.length ? text.padEnd(schema.minLength, "x") : text;
}

function clamp(n, schema) {
  if (typeof schema.maximum === "number" && n > schema.maximum) n = schema.maximum;
  if (typeof schema.minimum === "number" && n < schema.minimum) n = schema.minimum;
  return n;
}

function merge(a, b) {
  if (a === undefined) return b;
  if (b === undefined || b === "any") return a;
  if (isObject(a) && isObject(b)) {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v;
    return out;
  }
  return b;
}

/**
 * `{ valid: [{ label, value, valid: true }], invalid: [...] }` for the definition `schema` of `doc`; `judge(value)`
 * is ajv's verdict. `kind` is "result", "request" or "notification" (messages get "wrong method" and "params null").
 */
export function buildInputs({ schema, doc, kind, resolveRef, judge }) {
  const build = sampler(resolveRef);
  const first = build(schema, doc, new Map());
  const valid = [];
  const seen = new Set();
  const keep = (label, value) => {
    const wire = fromWire(value);
    const key = JSON.stringify(wire);
    if (seen.has(key) || !judge(wire)) return;
    seen.add(key);
    valid.push({ label, value: wire, valid: true });
  };
  // One valid sample per option of the shallowest choice (ties: the first met).
  const choice = [...first.choices].sort((a, b) => a.depth - b.depth)[0];
  if (choice) {
    for (let i = 0; i < choice.count && valid.length < MAX_VALID; i++) {
      const { value } = build(schema, doc, new Map([[choice.path, i]]));
      keep(describe(value, choice.path, i), value);
    }
  } else {
    keep("typical", first.value);
  }
  if (valid.length === 0) return { valid, invalid: [], problem: "no valid sample could be built from the schema" };

  const base = valid[0].value;
  const invalid = [];
  const mistake = (label, value) => {
    const wire = fromWire(value);
    if (!judge(wire) && !invalid.some((i) => i.label === label)) invalid.push({ label, value: wire, valid: false });
  };
  mistake("null", null);
  mistake("not an object (a string)", "text value");
  const message = kind !== "result";
  // The object a peer most often gets wrong: a message's params, a result itself.
  const target = message && isObject(base.params) ? ["params"] : [];
  const host = target.reduce((v, k) => v[k], base);
  if (isObject(host)) {
    for (const key of Object.keys(host)) {
      const changed = structuredClone(base);
      delete target.reduce((v, k) => v[k], changed)[key];
      if (!judge(fromWire(changed))) {
        mistake(`${[...target, key].join(".")} missing`, changed);
        break;
      }
    }
    for (const key of Object.keys(host).sort((a, b) => rank(host[a]) - rank(host[b]))) {
      const changed = structuredClone(base);
      target.reduce((v, k) => v[k], changed)[key] = wrongType(host[key]);
      if (!judge(fromWire(changed))) {
        mistake(`${[...target, key].join(".")} of the wrong type`, changed);
        break;
      }
    }
  }
  if (isObject(host)) {
    // A member the schema does not name: valid where the object is open, a mistake where it is closed.
    const changed = structuredClone(base);
    target.reduce((v, k) => v[k], changed)["x-extra"] = 1;
    const label = `unnamed member ${[...target, "x-extra"].join(".")}`;
    if (judge(fromWire(changed))) valid.push({ label, value: fromWire(changed), valid: true });
    else mistake(label, changed);
  }
  if (message) {
    mistake("wrong method", { ...base, method: "tasks/unknown" });
    if ("params" in base) mistake("params null", { ...base, params: null });
  } else {
    for (const path of [["status"], ["task", "status"], ["resultType"]]) {
      const owner = path.slice(0, -1).reduce((v, k) => (isObject(v) ? v[k] : undefined), base);
      if (!isObject(owner) || typeof owner[path.at(-1)] !== "string") continue;
      const changed = structuredClone(base);
      path.slice(0, -1).reduce((v, k) => v[k], changed)[path.at(-1)] = "done";
      mistake(`${path.join(".")} not one of its constants`, changed);
      break;
    }
  }
  return { valid, invalid };
}

// Strings first (the most common member), then numbers, booleans, objects.
function rank(v) {
  return typeof v === "string" ? 0 : typeof v === "number" ? 1 : typeof v === "boolean" ? 2 : 3;
}

function wrongType(v) {
  if (typeof v === "string") return 42;
  if (typeof v === "number") return String(v);
  if (typeof v === "boolean") return "true";
  return "text value";
}

/** A valid sample's label: the value at the choice's path when it is a short string (a status), else the option's number. */
function describe(value, path, i) {
  const keys = path.split("/").filter((k) => k && !/^allOf\d+$/.test(k));
  const at = keys.reduce((v, k) => (v == null ? undefined : v[k]), value);
  for (const probe of [at?.status, at?.type, at?.method, value?.status, value?.task?.status, value?.params?.status, at]) {
    if (typeof probe === "string" && /^[A-Za-z_/-]{1,40}$/.test(probe)) return probe;
  }
  const where = keys.join(".");
  return at === null || typeof at !== "object" ? `${where || "value"} ${at === null ? "null" : typeof at}` : `${where || "option"} ${i + 1}`;
}
