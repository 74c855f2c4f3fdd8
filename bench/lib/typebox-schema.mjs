// A JSON Schema definition as TypeBox types, for `npm run bench` to give TypeBox's compiler the same seed schema
// ajv and the generator read. Only exact mappings: a keyword TypeBox's check would read differently (or not at
// all) is refused with its location, never approximated (no `Type.Unsafe`, which checks nothing). Annotations
// (`description`, `format`, which the generator and the bench's ajv also keep as annotations…) are dropped.
import { Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

/** Thrown for a keyword (or a value of one) TypeBox cannot check exactly as JSON Schema does. */
export class TypeBoxRefusal extends Error {}

const ANNOTATIONS = new Set([
  "$schema", "$comment", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
  "format", "contentMediaType", "contentEncoding", "$defs", "definitions",
]);
const HANDLED = new Set([
  "type", "properties", "required", "additionalProperties", "propertyNames", "items", "enum", "const", "anyOf", "allOf", "not", "$ref",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern",
  "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
]);
const OBJECT_KEYWORDS = ["properties", "required", "additionalProperties", "propertyNames", "minProperties", "maxProperties"];
const ARRAY_KEYWORDS = ["items", "minItems", "maxItems", "uniqueItems"];
const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
const STRING_KEYWORDS = ["minLength", "maxLength", "pattern"];

const pick = (schema, keys) => Object.fromEntries(keys.filter((k) => schema[k] !== undefined).map((k) => [k, schema[k]]));

/**
 * TypeBox's compiled check of the definition `schema` found at `pointer` in `doc` (`resolveRef(ref, doc)` gives
 * `{ schema, doc }`). Returns `(value) => boolean`; throws TypeBoxRefusal naming where and why it cannot.
 */
export function compileTypeBox({ schema, doc, pointer, resolveRef }) {
  const references = new Map(); // `$id` (document URI + pointer) → converted schema
  const pending = [];
  const refTo = (target, targetDoc, at) => {
    const id = `${targetDoc.uri}${at}`;
    if (!references.has(id)) {
      references.set(id, null);
      pending.push({ id, schema: target, doc: targetDoc, at });
    }
    return Type.Ref(id);
  };

  const convert = (s, d, at) => {
    if (s === true) return Type.Unknown();
    if (s === false) return Type.Never();
    if (typeof s !== "object" || s === null || Array.isArray(s)) throw new TypeBoxRefusal(`${d.file}${at}: not a schema`);
    for (const key of Object.keys(s)) {
      if (!ANNOTATIONS.has(key) && !HANDLED.has(key) && !key.startsWith("x-")) throw new TypeBoxRefusal(`${d.file}${at}: ${key} has no exact TypeBox mapping`);
    }
    const parts = [];
    if (typeof s.$ref === "string") {
      const target = resolveRef(s.$ref, d);
      parts.push(refTo(target.schema, target.doc, `#${s.$ref.split("#")[1] ?? ""}`));
    }
    if ("const" in s) parts.push(literal(s.const, d, `${at}/const`));
    if (Array.isArray(s.enum)) parts.push(Type.Union(s.enum.map((v, i) => literal(v, d, `${at}/enum/${i}`))));
    if (Array.isArray(s.anyOf)) parts.push(Type.Union(s.anyOf.map((sub, i) => convert(sub, d, `${at}/anyOf/${i}`))));
    if (Array.isArray(s.allOf)) s.allOf.forEach((sub, i) => parts.push(convert(sub, d, `${at}/allOf/${i}`)));
    if (s.not !== undefined) parts.push(Type.Not(convert(s.not, d, `${at}/not`)));
    const typed = typedPart(s, d, at, convert);
    if (typed) parts.push(typed);
    if (parts.length === 0) return Type.Unknown();
    return parts.length === 1 ? parts[0] : Type.Intersect(parts);
  };

  const root = refTo(schema, doc, pointer);
  while (pending.length) {
    const { id, schema: s, doc: d, at } = pending.shift();
    const converted = convert(s, d, at.slice(1));
    references.set(id, { ...converted, $id: id });
  }
  const check = TypeCompiler.Compile(root, [...references.values()]);
  return (value) => check.Check(value);
}

function literal(value, d, at) {
  if (value === null) return Type.Null();
  if (["string", "number", "boolean"].includes(typeof value)) return Type.Literal(value);
  throw new TypeBoxRefusal(`${d.file}${at}: a constant ${Array.isArray(value) ? "array" : "object"} has no exact TypeBox mapping`);
}

/**
 * The part of `s` its `type` (and type-specific keywords) say. Without `type`, object or array keywords apply
 * only to objects or arrays: "an object that …, or not an object at all". Number and string keywords without a
 * type are refused (no such schema in the bundled sets).
 */
function typedPart(s, d, at, convert) {
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const has = (keys) => keys.some((k) => s[k] !== undefined);
  if (s.propertyNames !== undefined && !(s.propertyNames === true || (Object.keys(s.propertyNames).length === 1 && s.propertyNames.type === "string"))) {
    throw new TypeBoxRefusal(`${d.file}${at}/propertyNames: only {type: "string"} (always true of JSON keys) maps exactly`);
  }
  if (typeof s.exclusiveMinimum === "boolean" || typeof s.exclusiveMaximum === "boolean") throw new TypeBoxRefusal(`${d.file}${at}: draft-04 boolean exclusive bounds`);
  if (types.length === 0) {
    if (has(NUMBER_KEYWORDS) || has(STRING_KEYWORDS)) throw new TypeBoxRefusal(`${d.file}${at}: number or string keywords without a type`);
    const guards = [];
    if (has(OBJECT_KEYWORDS)) guards.push(Type.Union([objectType(s, d, at, convert), Type.Not(Type.Object({}))]));
    if (has(ARRAY_KEYWORDS)) guards.push(Type.Union([arrayType(s, d, at, convert), Type.Not(Type.Array(Type.Unknown()))]));
    return guards.length === 0 ? undefined : guards.length === 1 ? guards[0] : Type.Intersect(guards);
  }
  const members = types.map((type) => {
    switch (type) {
      case "object":
        return objectType(s, d, at, convert);
      case "array":
        return arrayType(s, d, at, convert);
      case "string":
        return Type.String(pick(s, STRING_KEYWORDS));
      case "integer":
        return Type.Integer(pick(s, NUMBER_KEYWORDS));
      case "number":
        return Type.Number(pick(s, NUMBER_KEYWORDS));
      case "boolean":
        return Type.Boolean();
      case "null":
        return Type.Null();
      default:
        throw new TypeBoxRefusal(`${d.file}${at}/type: unknown type ${type}`);
    }
  });
  return members.length === 1 ? members[0] : Type.Union(members);
}

function objectType(s, d, at, convert) {
  const required = new Set(s.required ?? []);
  const properties = {};
  for (const [key, sub] of Object.entries(s.properties ?? {})) {
    const converted = convert(sub, d, `${at}/properties/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    properties[key] = required.has(key) ? converted : Type.Optional(converted);
  }
  // A required member the properties do not name is checked by additionalProperties (or by nothing).
  for (const key of required) {
    if (key in properties) continue;
    const extra = s.additionalProperties;
    properties[key] = extra === undefined || extra === true ? Type.Unknown() : extra === false ? Type.Never() : convert(extra, d, `${at}/additionalProperties`);
  }
  const options = pick(s, ["minProperties", "maxProperties"]);
  if (s.additionalProperties === false) options.additionalProperties = false;
  else if (s.additionalProperties !== undefined && s.additionalProperties !== true && Object.keys(s.additionalProperties).length > 0) {
    options.additionalProperties = convert(s.additionalProperties, d, `${at}/additionalProperties`);
  }
  return Type.Object(properties, options);
}

function arrayType(s, d, at, convert) {
  if (Array.isArray(s.items)) throw new TypeBoxRefusal(`${d.file}${at}/items: a tuple form (draft-07 items array)`);
  return Type.Array(s.items === undefined ? Type.Unknown() : convert(s.items, d, `${at}/items`), pick(s, ["minItems", "maxItems", "uniqueItems"]));
}
