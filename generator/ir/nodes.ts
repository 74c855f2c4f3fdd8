/**
 * The intermediate representation every emitter reads. A schema is lowered into a tree of a few
 * node kinds; each keeps the JSON Schema constraints it carries, so types and validators are
 * emitted from the same facts and cannot disagree. No emitter looks at raw JSON Schema.
 */
import type { SourceLocation } from "../diagnostics.js";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Identifies a definition: the canonical location of its schema (`file#/pointer`). */
export type DefinitionId = string;

/** Annotations that become documentation; they never change what is valid. */
export interface Docs {
  readonly title?: string;
  readonly description?: string;
  readonly deprecated?: boolean;
  readonly default?: JsonValue;
  readonly examples?: readonly JsonValue[];
  readonly format?: string;
}

interface NodeBase {
  /** Where the schema that produced this node sits; validators report it as the schema location. */
  readonly loc: SourceLocation;
  readonly docs?: Docs;
}

/** Accepts everything (`true`, `{}`). */
export interface UnknownNode extends NodeBase {
  readonly kind: "unknown";
}

/** Accepts nothing (`false`). */
export interface NeverNode extends NodeBase {
  readonly kind: "never";
}

export interface StringConstraints {
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
}

export interface NumberConstraints {
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
}

export type PrimitiveType = "string" | "number" | "integer" | "boolean" | "null";

/** One JSON primitive type with its constraints. `number` includes integers. */
export interface PrimitiveNode extends NodeBase {
  readonly kind: "primitive";
  readonly type: PrimitiveType;
  readonly string?: StringConstraints;
  readonly number?: NumberConstraints;
}

/** A fixed set of values (`enum`, or `const` as a set of one), compared by JSON deep equality. */
export interface LiteralNode extends NodeBase {
  readonly kind: "literal";
  readonly values: readonly JsonValue[];
  readonly keyword: "enum" | "const";
  /**
   * Where the values were listed, when that is not `loc` + `keyword` (an `anyOf` of constants
   * merged into one set keeps pointing at its `anyOf`).
   */
  readonly origin?: SourceLocation;
}

export interface Property {
  readonly name: string;
  readonly node: Node;
  readonly required: boolean;
}

export interface PatternProperty {
  readonly pattern: string;
  readonly node: Node;
}

/** A JSON object with known properties. `additional` undefined means the keyword was absent. */
export interface ObjectNode extends NodeBase {
  readonly kind: "object";
  readonly properties: readonly Property[];
  /** Required names that have no entry in `properties`. */
  readonly requiredOnly: readonly string[];
  readonly additional?: Node;
  readonly patternProperties: readonly PatternProperty[];
  readonly propertyNames?: Node;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly dependentRequired: readonly { readonly name: string; readonly requires: readonly string[] }[];
  readonly dependentSchemas: readonly { readonly name: string; readonly node: Node }[];
}

/** A JSON object used as a dictionary: every value has one schema. */
export interface MapNode extends NodeBase {
  readonly kind: "map";
  readonly values: Node;
  readonly keys?: Node;
  readonly minProperties?: number;
  readonly maxProperties?: number;
}

export interface ArrayNode extends NodeBase {
  readonly kind: "array";
  /** Positional schemas (`prefixItems`, or draft-07 `items` as an array). */
  readonly prefixItems: readonly Node[];
  /** Schema of the items after the prefix; undefined means any. */
  readonly items?: Node;
  readonly contains?: Node;
  readonly minContains?: number;
  readonly maxContains?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
}

/** A property whose constant value tells a union's variants apart. */
export interface Discriminator {
  readonly property: string;
  /** One entry per variant, in variant order: the values that select it. */
  readonly cases: readonly { readonly values: readonly (string | number | boolean | null)[]; readonly variant: number }[];
}

/** `anyOf` (exclusive: false) or `oneOf` (exclusive: true). */
export interface UnionNode extends NodeBase {
  readonly kind: "union";
  readonly variants: readonly Node[];
  readonly exclusive: boolean;
  readonly discriminator?: Discriminator;
  /** Set when the union stands for the JSON types a schema without `type` admits. */
  readonly byType?: boolean;
}

/** Every part must hold (`allOf`, or several keywords of one schema). */
export interface IntersectionNode extends NodeBase {
  readonly kind: "intersection";
  readonly parts: readonly Node[];
}

export interface NotNode extends NodeBase {
  readonly kind: "not";
  readonly node: Node;
}

export interface ConditionalNode extends NodeBase {
  readonly kind: "conditional";
  readonly if: Node;
  readonly then?: Node;
  readonly else?: Node;
}

/**
 * `unevaluatedProperties` / `unevaluatedItems` of one schema: `node` is the schema's other keywords;
 * the properties (items) that `node` leaves unevaluated — no keyword of it, through its in-place
 * applicators (`allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`, `$ref`, `dependentSchemas`; never `not`),
 * took them for a value it accepts — must match `properties` (`items`).
 */
export interface UnevaluatedNode extends NodeBase {
  readonly kind: "unevaluated";
  readonly node: Node;
  readonly properties?: Node;
  readonly items?: Node;
  /** Whether the items `contains` matches count as evaluated (2020-12; not 2019-09). */
  readonly containsEvaluates: boolean;
}

/** A reference to a definition of the model. */
export interface RefNode extends NodeBase {
  readonly kind: "ref";
  readonly target: DefinitionId;
}

export type Node =
  | UnknownNode
  | NeverNode
  | PrimitiveNode
  | LiteralNode
  | ObjectNode
  | MapNode
  | ArrayNode
  | UnionNode
  | IntersectionNode
  | NotNode
  | ConditionalNode
  | UnevaluatedNode
  | RefNode;

export type NodeKind = Node["kind"];

/** A schema that gets a declaration of its own. */
export interface Definition {
  readonly id: DefinitionId;
  readonly loc: SourceLocation;
  readonly node: Node;
  /** The name the schema gives it (a `$defs` key or a root title), before naming rules apply. */
  readonly nameHint: string;
  /** True for definitions of the input files (always emitted); false for ones only referenced. */
  readonly exported: boolean;
}
