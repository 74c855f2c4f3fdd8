/**
 * Names of private validator helpers, from what they check: a helper testing one schema is named
 * by that schema (`$isNullOrString`, `$isTaskIdObject`, `$isStringArray`), not by the first place
 * it was needed. Helpers are shared by body (see scope.ts), so one name stands for one check.
 */
import type { Model } from "../../analyze/model.js";
import type { JsonValue, Node } from "../../ir/nodes.js";
import { pascalCase } from "../../names.js";

/** Past this many characters a description reads worse than the owner's name with a part number. */
const MAX_DESCRIPTION = 48;

/** Up to this many variants, properties or parts are spelled out in a name. */
const SPELLED_OUT = 3;

/** What a node checks, as the PascalCase tail of a helper name; undefined when no short name says it. */
export function describeCheck(node: Node, model: Model): string | undefined {
  const text = describe(node, model);
  return text.length <= MAX_DESCRIPTION ? text : undefined;
}

function describe(node: Node, model: Model): string {
  switch (node.kind) {
    case "unknown":
      return "Anything";
    case "never":
      return "Nothing";
    case "primitive":
      return primitiveName(node);
    case "literal":
      return literalName(node.values);
    case "object": {
      const names = node.properties.map((p) => pascalCase(p.name));
      if (names.length === 0) return "Object";
      return `${names.slice(0, SPELLED_OUT).join("")}${names.length > SPELLED_OUT ? "Etc" : ""}Object`;
    }
    case "map":
      return node.values.kind === "unknown" ? "Object" : `${describe(node.values, model)}Map`;
    case "array":
      return node.items && node.items.kind !== "unknown" ? `${describe(node.items, model)}Array` : "Array";
    case "union": {
      if (node.discriminator) return `${pascalCase(node.discriminator.property)}TaggedUnion`;
      const listed = node.variants.length <= SPELLED_OUT ? node.variants.map((v) => describe(v, model)).join("Or") : `AnyOf${node.variants.length}Schemas`;
      return node.exclusive ? `ExactlyOneOf${listed.replace(/^AnyOf/, "")}` : listed;
    }
    case "intersection":
      return node.parts.length <= SPELLED_OUT ? node.parts.map((p) => describe(p, model)).join("And") : `AllOf${node.parts.length}Schemas`;
    case "ref":
      return model.byId.get(node.target)?.name ?? "Reference";
    case "not":
      return `Not${describe(node.node, model)}`;
    case "conditional":
      return "Conditional";
    case "unevaluated":
      return `${describe(node.node, model)}AndUnevaluated`;
  }
}

function primitiveName(node: Extract<Node, { kind: "primitive" }>): string {
  const type = pascalCase(node.type);
  const s = node.string;
  if (node.type === "string" && s) {
    const sized = s.minLength === 1 && s.maxLength === undefined ? "NonEmpty" : s.minLength !== undefined || s.maxLength !== undefined ? "Sized" : "";
    // `format` is an annotation here (validators do not check it), so it is not part of the name.
    return `${sized}${s.pattern !== undefined ? "Patterned" : ""}${type}`;
  }
  const n = node.number;
  if ((node.type === "number" || node.type === "integer") && n) {
    const safe = n.minimum === -Number.MAX_SAFE_INTEGER && n.maximum === Number.MAX_SAFE_INTEGER && n.exclusiveMinimum === undefined && n.exclusiveMaximum === undefined;
    const bounds = safe
      ? "Safe"
      : n.exclusiveMinimum === 0 && n.minimum === undefined && n.maximum === undefined && n.exclusiveMaximum === undefined
        ? "Positive"
        : n.minimum === 0 && n.maximum === undefined && n.exclusiveMinimum === undefined && n.exclusiveMaximum === undefined
          ? "NonNegative"
          : [n.minimum, n.maximum, n.exclusiveMinimum, n.exclusiveMaximum].some((b) => b !== undefined)
            ? "Bounded"
            : "";
    const step = n.multipleOf === undefined ? "" : Number.isInteger(n.multipleOf) ? `MultipleOf${n.multipleOf}` : "Stepped";
    return `${bounds}${type}${step}`;
  }
  return type;
}

/** `null` → `Null`, `"working"` → `ConstWorking`, `"a" | "b"` → `ConstAOrB`, `3` → `Const3`, more values → `OneOf5Values`. */
function literalName(values: readonly JsonValue[]): string {
  const word = (value: JsonValue): string => {
    if (value === null) return "Null";
    if (typeof value === "boolean") return value ? "True" : "False";
    if (typeof value === "string" && /^[A-Za-z][A-Za-z0-9_/ .-]*$/.test(value)) return pascalCase(value);
    if (typeof value === "number" && Number.isSafeInteger(value)) return value < 0 ? `Minus${-value}` : String(value);
    return Array.isArray(value) ? "Array" : typeof value === "object" ? "Object" : pascalCase(typeof value);
  };
  if (values.length === 0) return "Nothing";
  if (values.length > SPELLED_OUT) return `OneOf${values.length}Values`;
  if (values.length === 1 && (values[0] === null || typeof values[0] === "boolean")) return word(values[0]!);
  return `Const${values.map(word).join("Or")}`;
}
