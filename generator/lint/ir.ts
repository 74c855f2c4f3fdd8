/**
 * Lint rules that read the lowered IR (before analyze simplifies it, so a contradiction is seen
 * where it is written, not after it has become `never`): `unreachable-property`,
 * `unsatisfiable`, `placeholder-union` and `duplicate-branch`. Every node keeps the location of
 * the schema it came from, and `$ref`s are already resolved to definitions, so these rules can
 * look through references and still point at the exact keyword.
 */
import { formatLocation, type Diagnostic, type SourceLocation } from "../diagnostics.js";
import type { Definition, DefinitionId, JsonValue, Node, ObjectNode, PrimitiveNode, UnionNode } from "../ir/nodes.js";
import { canonicalJson, structureKey } from "../ir/structure.js";
import { visitNodes } from "../ir/walk.js";
import { appendPointer } from "../load/json-pointer.js";

export interface IrLintOptions {
  /**
   * In merged-intersection mode, the locations of the intersections the merge leaves as they are
   * (their branches still judge the whole value). Intersections not listed are read as the
   * TypeScript intersection, where a sibling's property is reachable. Undefined: JSON Schema mode.
   */
  readonly unmergedIntersections?: ReadonlySet<string>;
}

type Found = Omit<Diagnostic, "severity">;

export function lintIr(definitions: readonly Definition[], options: IrLintOptions = {}): Diagnostic[] {
  const byId = new Map(definitions.map((d) => [d.id, d]));
  const found: Found[] = [];
  for (const def of definitions) {
    visitNodes(def.node, (node) => {
      switch (node.kind) {
        case "intersection":
          if (!options.unmergedIntersections || options.unmergedIntersections.has(formatLocation(node.loc))) {
            found.push(...unreachableProperties(node.parts, byId));
          }
          found.push(...contradictions(node.parts, node.loc, byId));
          break;
        case "union":
          found.push(...unionFindings(node, byId));
          break;
        case "primitive":
          found.push(...primitiveBounds(node));
          break;
        case "array":
          found.push(...countBounds(node.loc, "minItems", node.minItems, "maxItems", node.maxItems));
          if (node.contains) found.push(...countBounds(node.loc, "minContains", node.minContains, "maxContains", node.maxContains));
          break;
        case "map":
          found.push(...countBounds(node.loc, "minProperties", node.minProperties, "maxProperties", node.maxProperties));
          break;
        case "object":
          found.push(...objectContradictions(node));
          break;
        case "literal":
          if (node.values.length === 0) {
            found.push({ rule: "unsatisfiable", location: at(node.loc, node.keyword), message: `"${node.keyword}": [] admits no value, so this schema accepts nothing` });
          }
          break;
        default:
          break;
      }
    });
  }
  return found.map((f) => ({ severity: "warning", ...f }));
}

// ---------------------------------------------------------------------------------------------
// unreachable-property
// ---------------------------------------------------------------------------------------------

/** Which property names a branch lets through: all (open), or only those `admits` says. */
type Closure =
  | { readonly open: true }
  | {
      readonly open: false;
      readonly admits: (name: string) => boolean;
      /** What closes it, for the message. */
      readonly why: string;
    };

const OPEN: Closure = { open: true };

function closureOf(node: Node, byId: ReadonlyMap<DefinitionId, Definition>, seen: ReadonlySet<DefinitionId> = new Set()): Closure {
  switch (node.kind) {
    case "object": {
      if (node.additional?.kind !== "never") return OPEN;
      const names = new Set(node.properties.filter((p) => p.node.kind !== "never").map((p) => p.name));
      const patterns = node.patternProperties.map((p) => new RegExp(p.pattern, "u"));
      return {
        open: false,
        admits: (name) => names.has(name) || patterns.some((re) => re.test(name)),
        why: `sets additionalProperties: false and declares only ${list([...names])}`,
      };
    }
    case "ref": {
      const def = byId.get(node.target);
      if (!def || seen.has(node.target)) return OPEN;
      return closureOf(def.node, byId, new Set([...seen, node.target]));
    }
    case "union": {
      const objectVariants = node.variants.filter((v) => acceptsObjects(v, byId, seen));
      if (objectVariants.length === 0) return OPEN; // a type contradiction, not this rule's business
      const closures = objectVariants.map((v) => closureOf(v, byId, seen));
      if (closures.some((c) => c.open)) return OPEN;
      const closed = closures as Extract<Closure, { open: false }>[];
      return {
        open: false,
        admits: (name) => closed.some((c) => c.admits(name)),
        why: `is an ${node.exclusive ? "oneOf" : "anyOf"} whose every object branch sets additionalProperties: false`,
      };
    }
    case "intersection": {
      const closed = node.parts.map((p) => closureOf(p, byId, seen)).filter((c): c is Extract<Closure, { open: false }> => !c.open);
      if (closed.length === 0) return OPEN;
      return { open: false, admits: (name) => closed.every((c) => c.admits(name)), why: closed[0]!.why };
    }
    default:
      return OPEN;
  }
}

/** Whether some object can pass the node (primitives, arrays and non-object constants cannot). */
function acceptsObjects(node: Node, byId: ReadonlyMap<DefinitionId, Definition>, seen: ReadonlySet<DefinitionId>): boolean {
  switch (node.kind) {
    case "primitive":
    case "array":
    case "never":
      return false;
    case "literal":
      return node.values.some((v) => v !== null && typeof v === "object" && !Array.isArray(v));
    case "ref": {
      const def = byId.get(node.target);
      if (!def || seen.has(node.target)) return true;
      return acceptsObjects(def.node, byId, new Set([...seen, node.target]));
    }
    case "union":
      return node.variants.some((v) => acceptsObjects(v, byId, seen));
    case "intersection":
      return node.parts.every((p) => acceptsObjects(p, byId, seen));
    default:
      return true;
  }
}

interface Declaration {
  readonly name: string;
  /** Where the property is declared (`.../properties/name`, or `.../required` for a bare required name). */
  readonly loc: SourceLocation;
  readonly required: boolean;
  /** The first `$ref` crossed to reach the declaration, if any. */
  readonly via?: SourceLocation;
}

function declarationsOf(node: Node, byId: ReadonlyMap<DefinitionId, Definition>, via: SourceLocation | undefined, seen: ReadonlySet<DefinitionId> = new Set()): Declaration[] {
  const viaPart = via ? { via } : {};
  switch (node.kind) {
    case "object":
      return [
        ...node.properties
          .filter((p) => p.node.kind !== "never")
          .map((p) => ({ name: p.name, loc: at(node.loc, "properties", p.name), required: p.required, ...viaPart })),
        ...node.requiredOnly.map((name) => ({ name, loc: at(node.loc, "required"), required: true, ...viaPart })),
      ];
    case "ref": {
      const def = byId.get(node.target);
      if (!def || seen.has(node.target)) return [];
      return declarationsOf(def.node, byId, via ?? node.loc, new Set([...seen, node.target]));
    }
    case "union":
      return node.variants.flatMap((v) => declarationsOf(v, byId, via, seen));
    case "intersection":
      return node.parts.flatMap((p) => declarationsOf(p, byId, via, seen));
    default:
      return [];
  }
}

function unreachableProperties(parts: readonly Node[], byId: ReadonlyMap<DefinitionId, Definition>): Found[] {
  const closures = parts.map((p) => closureOf(p, byId));
  if (closures.every((c) => c.open)) return [];
  const found: Found[] = [];
  const reported = new Set<string>();
  parts.forEach((part, j) => {
    for (const decl of declarationsOf(part, byId, undefined)) {
      const i = closures.findIndex((c, k) => k !== j && !c.open && !c.admits(decl.name));
      if (i < 0) continue;
      const location = decl.via ? parent(decl.via) : decl.loc;
      const key = `${formatLocation(location)}|${decl.name}`;
      if (reported.has(key)) continue;
      reported.add(key);
      const closer = parts[i]!;
      const closure = closures[i] as Extract<Closure, { open: false }>;
      const declared = decl.via ? ` (declared at ${where(decl.loc, location)})` : "";
      const target = closer.kind === "ref" ? ` (through its $ref to ${where(byId.get(closer.target)?.loc ?? closer.loc, location)})` : "";
      const branchOpen = closureOf(part, byId).open;
      const sentences = [
        `"${decl.name}"${declared} can never be present: the sibling branch ${where(schemaLocation(closer), location)}${target} ${closure.why}, ` +
          `and JSON Schema checks every allOf branch against the whole value`,
      ];
      if (decl.required) sentences.push(`since "${decl.name}" is required here, no value satisfies this allOf at all`);
      if (decl.name === "_meta") {
        // The MCP case the design names: a Result/params base (open, with _meta) and a closed task.
        sentences.push(
          `the closed branch also rejects every other property ${branchOpen ? "this branch admits" : "it does not declare"}, such as the "resultType" that results of the MCP Tasks extension carry, ` +
            `so the specification's own examples with "_meta" or "resultType" are rejected`,
        );
      } else if (branchOpen) {
        sentences.push(`the closed branch also rejects every other property it does not declare, though this branch admits them`);
      }
      sentences.push(
        `if the allOf means the TypeScript intersection (one object with the properties of all branches), generate with --allof merged ("allOf": "merged" in the config)`,
      );
      found.push({ rule: "unreachable-property", location, message: sentences.join("; ") });
    }
  });
  return found;
}

// ---------------------------------------------------------------------------------------------
// unsatisfiable
// ---------------------------------------------------------------------------------------------

const JSON_TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"] as const;
type JsonType = (typeof JSON_TYPES)[number];
const ALL_TYPES: ReadonlySet<JsonType> = new Set(JSON_TYPES);

/** The JSON types some value of the node can have (`number` includes `integer`). */
function typesOf(node: Node, byId: ReadonlyMap<DefinitionId, Definition>, seen: ReadonlySet<DefinitionId> = new Set()): ReadonlySet<JsonType> {
  switch (node.kind) {
    case "never":
      return new Set();
    case "primitive":
      return new Set(node.type === "number" ? ["number", "integer"] : [node.type]);
    case "literal":
      return new Set(node.values.flatMap(typesOfValue));
    case "object":
    case "map":
      return new Set(["object"]);
    case "array":
      return new Set(["array"]);
    case "union":
      return new Set(node.variants.flatMap((v) => [...typesOf(v, byId, seen)]));
    case "intersection":
      return node.parts.map((p) => typesOf(p, byId, seen)).reduce((a, b) => intersect(a, b), ALL_TYPES);
    case "ref": {
      const def = byId.get(node.target);
      if (!def || seen.has(node.target)) return ALL_TYPES;
      return typesOf(def.node, byId, new Set([...seen, node.target]));
    }
    default:
      return ALL_TYPES; // unknown, not, conditional: no claim
  }
}

function typesOfValue(value: JsonValue): JsonType[] {
  if (value === null) return ["null"];
  if (Array.isArray(value)) return ["array"];
  switch (typeof value) {
    case "number":
      return Number.isInteger(value) ? ["number", "integer"] : ["number"];
    case "string":
      return ["string"];
    case "boolean":
      return ["boolean"];
    default:
      return ["object"];
  }
}

function intersect<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): Set<T> {
  return new Set([...a].filter((x) => b.has(x)));
}

function describeTypes(types: ReadonlySet<JsonType>): string {
  const shown = types.has("number") ? [...types].filter((t) => t !== "integer") : [...types];
  return shown.length === 0 ? "nothing" : shown.join(" | ");
}

/** Contradictions between the parts of an intersection (allOf branches, or keywords of one schema). */
function contradictions(parts: readonly Node[], loc: SourceLocation, byId: ReadonlyMap<DefinitionId, Definition>): Found[] {
  const types = parts.map((p) => typesOf(p, byId));
  if (types.some((t) => t.size === 0)) return []; // a part that is unsatisfiable by itself is reported where it is
  const all = types.reduce((a, b) => intersect(a, b), ALL_TYPES);
  const pair = all.size === 0 ? findDisjointPair(types) : undefined;
  // A constant of the wrong type reads best as such, at its `const`/`enum` keyword.
  if (all.size > 0 || pair?.some((i) => literalOf(parts[i]!, byId))) return literalContradiction(parts, loc, byId);
  const shown = (pair ?? parts.map((_, i) => i)).map((i) => {
    const part = parts[i]!;
    const own = schemaLocation(part).pointer === loc.pointer && part.kind !== "intersection";
    return own ? `"type" says ${describeTypes(types[i]!)}` : `${where(schemaLocation(part), loc)} admits only ${describeTypes(types[i]!)}`;
  });
  return [{ rule: "unsatisfiable", location: loc, message: `no value satisfies this schema: ${shown.join(", but ")}` }];
}

function findDisjointPair(types: readonly ReadonlySet<JsonType>[]): [number, number] | undefined {
  for (let i = 0; i < types.length; i++) {
    for (let j = i + 1; j < types.length; j++) if (intersect(types[i]!, types[j]!).size === 0) return [i, j];
  }
  return undefined;
}

/** Constants (`const`/`enum`, also through `$ref`) that no other part lets through. */
function literalContradiction(parts: readonly Node[], loc: SourceLocation, byId: ReadonlyMap<DefinitionId, Definition>): Found[] {
  const literals = parts.map((p) => ({ part: p, literal: literalOf(p, byId) })).filter((l) => l.literal !== undefined);
  if (literals.length === 0) return [];
  let values = literals[0]!.literal!.values;
  let last = literals[0]!;
  let against: string[] = [];
  for (const other of literals.slice(1)) {
    const keys = new Set(other.literal!.values.map(canonicalJson));
    const kept = values.filter((v) => keys.has(canonicalJson(v)));
    if (kept.length === 0 && values.length > 0) {
      against = [`${describeLiteral(last.literal!)} at ${where(literalLocation(last.part, last.literal!), loc)}`];
      last = other;
    }
    values = kept;
  }
  if (values.length > 0) {
    for (const part of parts) {
      if (literals.some((l) => l.part === part)) continue;
      const kept = values.filter((v) => admitsValue(part, v, byId));
      if (kept.length === 0) {
        const beside = literals.some((l) => l.literal!.loc.pointer === schemaLocation(part).pointer && l.part.kind === "literal");
        against = [beside ? `the ${describeCheck(part, byId)} beside it` : `${where(schemaLocation(part), loc)} (${describeCheck(part, byId)})`];
        last = literals[literals.length - 1]!;
        values = kept;
        break;
      }
      values = kept;
    }
  }
  if (values.length > 0 || against.length === 0) return [];
  const literal = last.literal!;
  const what = literal.values.length === 1 ? `${literal.keyword} ${shortJson(literal.values[0]!)}` : `none of the enum values ${shortJson(literal.values as JsonValue)}`;
  return [
    {
      rule: "unsatisfiable",
      location: literalLocation(last.part, literal),
      message: `${what} is not admitted by ${against.join(", ")}, so no value satisfies this schema`,
    },
  ];
}

interface LiteralFacts {
  readonly values: readonly JsonValue[];
  readonly keyword: "enum" | "const";
  readonly loc: SourceLocation;
}

function literalOf(node: Node, byId: ReadonlyMap<DefinitionId, Definition>, seen: ReadonlySet<DefinitionId> = new Set()): LiteralFacts | undefined {
  if (node.kind === "literal") return { values: node.values, keyword: node.keyword, loc: node.loc };
  if (node.kind === "ref") {
    const def = byId.get(node.target);
    if (!def || seen.has(node.target)) return undefined;
    return literalOf(def.node, byId, new Set([...seen, node.target]));
  }
  return undefined;
}

/** The keyword of a literal part: `.../const` when written inline, the `$ref` when it comes from elsewhere. */
function literalLocation(part: Node, literal: LiteralFacts): SourceLocation {
  return part.kind === "ref" ? part.loc : at(literal.loc, literal.keyword);
}

function describeLiteral(literal: LiteralFacts): string {
  return literal.values.length === 1 ? `${literal.keyword} ${shortJson(literal.values[0]!)}` : `${literal.keyword} ${shortJson(literal.values as JsonValue)}`;
}

/** Whether a value passes a node; true when the node is not a simple value check (no claim). */
function admitsValue(node: Node, value: JsonValue, byId: ReadonlyMap<DefinitionId, Definition>, seen: ReadonlySet<DefinitionId> = new Set()): boolean {
  switch (node.kind) {
    case "never":
      return false;
    case "primitive":
      return primitiveAdmits(node, value);
    case "literal":
      return node.values.some((v) => canonicalJson(v) === canonicalJson(value));
    case "object":
    case "map":
      return value !== null && typeof value === "object" && !Array.isArray(value) ? true : false;
    case "array":
      return Array.isArray(value);
    case "union":
      return node.variants.some((v) => admitsValue(v, value, byId, seen));
    case "intersection":
      return node.parts.every((p) => admitsValue(p, value, byId, seen));
    case "ref": {
      const def = byId.get(node.target);
      if (!def || seen.has(node.target)) return true;
      return admitsValue(def.node, value, byId, new Set([...seen, node.target]));
    }
    default:
      return true;
  }
}

function primitiveAdmits(node: PrimitiveNode, value: JsonValue): boolean {
  switch (node.type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "string": {
      if (typeof value !== "string") return false;
      const length = [...value].length;
      const s = node.string;
      if (s?.minLength !== undefined && length < s.minLength) return false;
      if (s?.maxLength !== undefined && length > s.maxLength) return false;
      if (s?.pattern !== undefined && !new RegExp(s.pattern, "u").test(value)) return false;
      return true;
    }
    case "number":
    case "integer": {
      if (typeof value !== "number") return false;
      if (node.type === "integer" && !Number.isInteger(value)) return false;
      const n = node.number;
      if (n?.minimum !== undefined && value < n.minimum) return false;
      if (n?.maximum !== undefined && value > n.maximum) return false;
      if (n?.exclusiveMinimum !== undefined && value <= n.exclusiveMinimum) return false;
      if (n?.exclusiveMaximum !== undefined && value >= n.exclusiveMaximum) return false;
      // multipleOf is left out: in floating point 0.3 / 0.1 is not an integer, and lint must not guess.
      return true;
    }
  }
}

function describeCheck(node: Node, byId: ReadonlyMap<DefinitionId, Definition>): string {
  if (node.kind === "primitive") {
    const constraints = { ...node.string, ...node.number };
    const extra = Object.entries(constraints).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
    return [`type ${node.type}`, ...extra].join(", ");
  }
  return `admits only ${describeTypes(typesOf(node, byId))}`;
}

function primitiveBounds(node: PrimitiveNode): Found[] {
  const found: Found[] = [];
  if (node.string) found.push(...countBounds(node.loc, "minLength", node.string.minLength, "maxLength", node.string.maxLength));
  const n = node.number;
  if (!n) return found;
  // The tightest lower and upper bounds, with the keyword each comes from.
  const lower = tightest([
    { keyword: "minimum", value: n.minimum, exclusive: false },
    { keyword: "exclusiveMinimum", value: n.exclusiveMinimum, exclusive: true },
  ], (a, b) => a > b);
  const upper = tightest([
    { keyword: "maximum", value: n.maximum, exclusive: false },
    { keyword: "exclusiveMaximum", value: n.exclusiveMaximum, exclusive: true },
  ], (a, b) => a < b);
  if (!lower || !upper) return found;
  let empty = lower.value > upper.value || (lower.value === upper.value && (lower.exclusive || upper.exclusive));
  if (!empty && node.type === "integer") {
    const low = lower.exclusive ? Math.floor(lower.value) + 1 : Math.ceil(lower.value);
    const high = upper.exclusive ? Math.ceil(upper.value) - 1 : Math.floor(upper.value);
    empty = low > high;
  }
  if (empty) {
    found.push({
      rule: "unsatisfiable",
      location: at(node.loc, lower.keyword),
      message: `${lower.keyword} ${lower.value} and ${upper.keyword} ${upper.value} leave no ${node.type === "integer" ? "integer" : "number"} between them, so this schema accepts no ${node.type === "integer" ? "integer" : "number"}`,
    });
  }
  return found;
}

interface Bound {
  readonly keyword: string;
  readonly value: number;
  readonly exclusive: boolean;
}

function tightest(candidates: readonly { keyword: string; value: number | undefined; exclusive: boolean }[], tighter: (a: number, b: number) => boolean): Bound | undefined {
  let best: Bound | undefined;
  for (const c of candidates) {
    if (c.value === undefined) continue;
    if (!best || tighter(c.value, best.value) || (c.value === best.value && c.exclusive)) best = { keyword: c.keyword, value: c.value, exclusive: c.exclusive };
  }
  return best;
}

function countBounds(loc: SourceLocation, minKeyword: string, min: number | undefined, maxKeyword: string, max: number | undefined): Found[] {
  if (min === undefined || max === undefined || min <= max) return [];
  return [{ rule: "unsatisfiable", location: at(loc, minKeyword), message: `${minKeyword} ${min} is greater than ${maxKeyword} ${max}, so this schema accepts nothing of its type` }];
}

function objectContradictions(node: ObjectNode): Found[] {
  const found = countBounds(node.loc, "minProperties", node.minProperties, "maxProperties", node.maxProperties);
  const closed = node.additional?.kind === "never";
  const patterns = node.patternProperties.map((p) => new RegExp(p.pattern, "u"));
  for (const property of node.properties) {
    if (property.required && property.node.kind === "never") {
      found.push({
        rule: "unsatisfiable",
        location: at(node.loc, "properties", property.name),
        message: `"${property.name}" is required but its schema is false, so this object schema accepts no object`,
      });
    }
  }
  if (closed) {
    for (const name of node.requiredOnly) {
      if (patterns.some((re) => re.test(name))) continue;
      found.push({
        rule: "unsatisfiable",
        location: at(node.loc, "required"),
        message: `"${name}" is required but additionalProperties is false and no property or pattern declares it, so this object schema accepts no object`,
      });
    }
  }
  const required = node.properties.filter((p) => p.required).length + node.requiredOnly.length;
  if (node.maxProperties !== undefined && required > node.maxProperties) {
    found.push({
      rule: "unsatisfiable",
      location: at(node.loc, "maxProperties"),
      message: `maxProperties ${node.maxProperties} is less than the ${required} required properties, so this object schema accepts no object`,
    });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// placeholder-union, duplicate-branch
// ---------------------------------------------------------------------------------------------

function unionFindings(node: UnionNode, byId: ReadonlyMap<DefinitionId, Definition>): Found[] {
  if (node.byType) return []; // the JSON types of an untyped schema, not a written anyOf
  const keyword = node.exclusive ? "oneOf" : "anyOf";
  if (node.variants.length >= 2 && node.variants.every((v) => acceptsAnything(v, byId))) {
    const outcome = node.exclusive
      ? "as a oneOf it accepts nothing (every value matches more than one branch)"
      : "it checks nothing and is generated as unknown";
    return [
      {
        rule: "placeholder-union",
        location: node.loc,
        message: `every branch of this ${keyword} (${node.variants.length}) accepts any value, so ${outcome}; the tool that wrote the schema probably lost the real branch types (z.any()/z.unknown(), an unresolved type)`,
      },
    ];
  }
  const found: Found[] = [];
  const firstByKey = new Map<string, number>();
  node.variants.forEach((variant, i) => {
    const key = structureKey(throughRefs(variant, byId));
    const first = firstByKey.get(key);
    if (first === undefined) {
      firstByKey.set(key, i);
      return;
    }
    const consequence = node.exclusive
      ? "; in a oneOf a value that matches one matches both, so these branches reject every value they describe"
      : "; one of them can go";
    found.push({
      rule: "duplicate-branch",
      location: at(node.loc, i),
      message: `this ${keyword} branch accepts exactly what branch ${where(at(node.loc, first), at(node.loc, i))} accepts${consequence}`,
    });
  });
  return found;
}

function acceptsAnything(node: Node, byId: ReadonlyMap<DefinitionId, Definition>, seen: ReadonlySet<DefinitionId> = new Set()): boolean {
  switch (node.kind) {
    case "unknown":
      return true;
    case "ref": {
      const def = byId.get(node.target);
      if (!def || seen.has(node.target)) return false;
      return acceptsAnything(def.node, byId, new Set([...seen, node.target]));
    }
    case "intersection":
      return node.parts.every((p) => acceptsAnything(p, byId, seen));
    default:
      return false;
  }
}

/** A branch that is only a `$ref` compares as the schema it points to. */
function throughRefs(node: Node, byId: ReadonlyMap<DefinitionId, Definition>): Node {
  const seen = new Set<DefinitionId>();
  let current = node;
  while (current.kind === "ref" && !seen.has(current.target)) {
    seen.add(current.target);
    const def = byId.get(current.target);
    if (!def) break;
    current = def.node;
  }
  return current;
}

// ---------------------------------------------------------------------------------------------
// locations and text
// ---------------------------------------------------------------------------------------------

function at(loc: SourceLocation, ...tokens: (string | number)[]): SourceLocation {
  return { file: loc.file, pointer: appendPointer(loc.pointer, ...tokens) };
}

/**
 * The location of the schema a node was lowered from: a `$ref` node sits at `.../$ref`, an
 * `anyOf`/`oneOf` at `.../anyOf`, a `not` at `.../not`, a conditional at `.../if` (decided by the
 * node's kind: a property may well be named `type` or `anyOf`).
 */
function schemaLocation(node: Node): SourceLocation {
  switch (node.kind) {
    case "ref":
    case "union":
    case "not":
    case "conditional":
      return parent(node.loc);
    default:
      return node.loc;
  }
}

function parent(loc: SourceLocation): SourceLocation {
  return { file: loc.file, pointer: loc.pointer.slice(0, loc.pointer.lastIndexOf("/")) };
}

/** A location as a message shows it: `#/pointer` in the same file as `from`, `file#/pointer` otherwise. */
function where(loc: SourceLocation, from: SourceLocation): string {
  return loc.file === from.file ? `#${loc.pointer}` : formatLocation(loc);
}

function list(names: readonly string[]): string {
  if (names.length === 0) return "no property";
  const shown = names.slice(0, 8).map((n) => `"${n}"`);
  return names.length > 8 ? `${shown.join(", ")} and ${names.length - 8} more` : shown.join(", ");
}

function shortJson(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
