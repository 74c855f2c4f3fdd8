/**
 * Lowering: JSON Schema → IR. Each keyword of a schema object becomes part of a node here, and
 * this is the one place that decides what a keyword means in a dialect. Anything it does not
 * implement stops generation with the keyword's location.
 */
import { GeneratorError, formatLocation, type SourceLocation } from "../diagnostics.js";
import type { ArrayNode, Definition, DefinitionId, Docs, JsonValue, MapNode, Node, ObjectNode, PrimitiveNode, PrimitiveType, RefNode } from "../ir/nodes.js";
import { dialectsDefining, hasArrayItems, hasBooleanExclusiveBounds, keywordRole, refHasSiblings } from "../load/dialect.js";
import { appendPointer, unescapePointerToken } from "../load/json-pointer.js";
import { isSwitchedOff } from "../load/vocabularies.js";
import { RECURSIVE_ANCHOR, type LocatedSchema, type SchemaContext, type SchemaRegistry } from "../load/registry.js";
import { JSON_TYPES, type JsonType } from "../ir/query.js";
import { pascalCase } from "../names.js";

export interface LowerOptions {
  /** Keywords (besides `x-*`) to accept as annotations though no dialect defines them. */
  readonly extraAnnotations?: readonly string[];
}

type SchemaObject = Record<string, unknown>;

const STRING_KEYWORDS = ["minLength", "maxLength", "pattern"];
const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
const OBJECT_KEYWORDS = [
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "dependencies",
  "dependentRequired",
  "dependentSchemas",
];
const ARRAY_KEYWORDS = ["items", "prefixItems", "additionalItems", "contains", "minItems", "maxItems", "uniqueItems", "minContains", "maxContains"];

export class Lowerer {
  private readonly definitions = new Map<DefinitionId, Definition>();
  private readonly inProgress = new Set<DefinitionId>();
  /** Ids in the order definitions were first met, so output follows the order of the sources. */
  private readonly order: DefinitionId[] = [];

  constructor(
    private readonly registry: SchemaRegistry,
    private readonly options: LowerOptions = {},
  ) {}

  /**
   * The dynamic scope (2020-12): for each `$dynamicAnchor` name, the schema of the outermost
   * resource entered so far on the way to the schema being lowered. A `$dynamicRef` to a dynamic
   * anchor resolves to it; lowering follows each path of references, so the run-time scope of a
   * path is known here, and a schema reached under another scope is a definition of its own
   * (see `definitionId`).
   */
  private scope: ReadonlyMap<string, LocatedSchema> = new Map();
  /** For definitions specialised to a dynamic scope: the suffix that tells their name apart. */
  private readonly scopeSuffixes = new Map<DefinitionId, string>();

  /** Lowers a schema as a definition of its own (once); returns its id. */
  define(located: LocatedSchema, nameHint: string, exported: boolean): DefinitionId {
    const id = this.definitionId(located);
    const existing = this.definitions.get(id);
    if (existing) {
      if (exported && !existing.exported) this.definitions.set(id, { ...existing, exported, nameHint });
      return id;
    }
    if (this.inProgress.has(id)) return id;
    this.inProgress.add(id);
    this.order.push(id);
    const node = this.lower(located.schema, located.context);
    this.inProgress.delete(id);
    this.definitions.set(id, { id, loc: located.context.loc, node, nameHint, exported });
    return id;
  }

  /**
   * Every definition lowered so far, in the order first met. A schema lowered under several
   * dynamic scopes gives one definition per scope; those besides its own scope's are named with
   * the anchor's schema they bind (`TreeForStrictTree`).
   */
  list(): Definition[] {
    const all = this.order.map((id) => this.definitions.get(id)!);
    const perLocation = new Map<string, number>();
    for (const def of all) perLocation.set(formatLocation(def.loc), (perLocation.get(formatLocation(def.loc)) ?? 0) + 1);
    return all.map((def) => {
      const suffix = this.scopeSuffixes.get(def.id);
      return suffix && perLocation.get(formatLocation(def.loc))! > 1 ? { ...def, nameHint: `${def.nameHint}For${suffix}` } : def;
    });
  }

  /**
   * A definition's id: its location, and when the dynamic scope it is lowered under binds an
   * anchor otherwise than its own resource alone would, those bindings too.
   */
  private definitionId(located: LocatedSchema): DefinitionId {
    const loc = formatLocation(located.context.loc);
    if (!this.registry.hasDynamicAnchors) return loc;
    const own = this.registry.dynamicAnchorsOf(located.context.baseUri);
    const scope = this.entering(located.context.baseUri);
    const bound = [...scope].filter(([name, target]) => own.get(name) !== target).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (bound.length === 0) return loc;
    const id = `${loc} (dynamic scope: ${bound.map(([name, target]) => `${name} → ${formatLocation(target.context.loc)}`).join(", ")})`;
    this.scopeSuffixes.set(id, pascalCase(nameHintFor(bound[0]![1])));
    return id;
  }

  /** The dynamic scope once the resource `baseUri` is entered: its anchors bound unless an outer resource bound them first. */
  private entering(baseUri: string): ReadonlyMap<string, LocatedSchema> {
    const own = this.registry.dynamicAnchorsOf(baseUri);
    if ([...own.keys()].every((name) => this.scope.has(name))) return this.scope;
    const scope = new Map(this.scope);
    for (const [name, target] of own) if (!scope.has(name)) scope.set(name, target);
    return scope;
  }

  lower(schema: unknown, context: SchemaContext): Node {
    const ctx = (schema !== null && typeof schema === "object" && this.registry.contextOf(schema)) || context;
    const outer = this.scope;
    this.scope = this.entering(ctx.baseUri);
    try {
      return this.lowerIn(schema, ctx);
    } finally {
      this.scope = outer;
    }
  }

  private lowerIn(schema: unknown, ctx: SchemaContext): Node {
    const loc = ctx.loc;
    if (schema === true) return { kind: "unknown", loc };
    if (schema === false) return { kind: "never", loc };
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
      throw new GeneratorError(loc, `a schema must be an object or a boolean, got ${describe(schema)}`);
    }
    const raw = schema as SchemaObject;
    const docs = docsOf(raw, loc);

    if (typeof raw.$ref === "string" && !refHasSiblings(ctx.dialect)) {
      // draft-04 to draft-07: keywords beside $ref are ignored (the lint pass reports them).
      return withDocs(this.refTo(raw.$ref, ctx), docs);
    }
    this.checkKeywords(raw, ctx);
    // From here on only the dialect's own keywords are read: one that only another dialect
    // defines (`dependencies` in 2020-12, `const` in draft-04) is an annotation where it is.
    const s = ownKeywords(raw, ctx);

    const parts: Node[] = [];
    if ("$ref" in s) parts.push(this.refTo(expectString(s.$ref, at(loc, "$ref")), ctx));
    if (applies(s, "$dynamicRef", ctx)) parts.push(this.dynamicRefTo(expectString(s.$dynamicRef, at(loc, "$dynamicRef")), ctx));
    if (applies(s, "$recursiveRef", ctx)) parts.push(this.recursiveRefTo(expectString(s.$recursiveRef, at(loc, "$recursiveRef")), ctx));
    const typed = this.typePart(s, ctx);
    if (typed) parts.push(typed);
    if ("enum" in s) {
      const values = s.enum;
      if (!Array.isArray(values)) throw new GeneratorError(at(loc, "enum"), "enum must be an array");
      parts.push({ kind: "literal", values: values as JsonValue[], keyword: "enum", loc });
    }
    if ("const" in s) parts.push({ kind: "literal", values: [s.const as JsonValue], keyword: "const", loc });
    if ("allOf" in s) {
      this.schemaList(s, "allOf", ctx).forEach((part) => parts.push(part));
    }
    if ("anyOf" in s) {
      parts.push({ kind: "union", variants: this.schemaList(s, "anyOf", ctx), exclusive: false, loc: at(loc, "anyOf") });
    }
    if ("oneOf" in s) {
      parts.push({ kind: "union", variants: this.schemaList(s, "oneOf", ctx), exclusive: true, loc: at(loc, "oneOf") });
    }
    if ("not" in s) parts.push({ kind: "not", node: this.sub(s.not, ctx, "not"), loc: at(loc, "not") });
    if ("if" in s) {
      const then = "then" in s ? this.sub(s.then, ctx, "then") : undefined;
      const otherwise = "else" in s ? this.sub(s.else, ctx, "else") : undefined;
      parts.push({
        kind: "conditional",
        if: this.sub(s.if, ctx, "if"),
        ...(then ? { then } : {}),
        ...(otherwise ? { else: otherwise } : {}),
        loc: at(loc, "if"),
      });
    }

    const rest: Node = parts.length === 0 ? { kind: "unknown", loc } : parts.length === 1 ? parts[0]! : { kind: "intersection", parts, loc };
    const properties = applies(s, "unevaluatedProperties", ctx) ? this.sub(s.unevaluatedProperties, ctx, "unevaluatedProperties") : undefined;
    const items = applies(s, "unevaluatedItems", ctx) ? this.sub(s.unevaluatedItems, ctx, "unevaluatedItems") : undefined;
    if (!properties && !items) return withDocs(rest, docs);
    return withDocs(
      {
        kind: "unevaluated",
        node: rest,
        ...(properties ? { properties } : {}),
        ...(items ? { items } : {}),
        containsEvaluates: ctx.dialect === "2020-12",
        loc,
      },
      docs,
    );
  }

  private refTo(ref: string, ctx: SchemaContext): RefNode {
    const target = this.registry.resolveRef(ref, ctx);
    const id = this.define(target, nameHintFor(target), false);
    return { kind: "ref", target: id, loc: at(ctx.loc, "$ref") };
  }

  /**
   * A `$dynamicRef`: resolved like `$ref`; when that lands on a `$dynamicAnchor` of the name its
   * fragment gives, the outermost resource of the dynamic scope with that anchor takes over.
   */
  private dynamicRefTo(ref: string, ctx: SchemaContext): RefNode {
    const initial = this.registry.resolveRef(ref, ctx, "$dynamicRef");
    const hash = ref.indexOf("#");
    const fragment = hash < 0 ? "" : ref.slice(hash + 1);
    const schema = initial.schema;
    const anchored = fragment !== "" && !fragment.startsWith("/") && schema !== null && typeof schema === "object" && (schema as SchemaObject).$dynamicAnchor === fragment;
    const target = (anchored && this.scope.get(fragment)) || initial;
    const id = this.define(target, nameHintFor(target), false);
    return { kind: "ref", target: id, loc: at(ctx.loc, "$dynamicRef") };
  }

  /**
   * A `$recursiveRef` (2019-09): resolved like `$ref`; when that lands on a schema with
   * `$recursiveAnchor: true`, the outermost resource of the dynamic scope with one takes over.
   */
  private recursiveRefTo(ref: string, ctx: SchemaContext): RefNode {
    const initial = this.registry.resolveRef(ref, ctx, "$recursiveRef");
    const schema = initial.schema;
    const anchored = schema !== null && typeof schema === "object" && (schema as SchemaObject).$recursiveAnchor === true;
    const target = (anchored && this.scope.get(RECURSIVE_ANCHOR)) || initial;
    const id = this.define(target, nameHintFor(target), false);
    return { kind: "ref", target: id, loc: at(ctx.loc, "$recursiveRef") };
  }

  private sub(value: unknown, ctx: SchemaContext, ...tokens: (string | number)[]): Node {
    return this.lower(value, { ...ctx, loc: at(ctx.loc, ...tokens) });
  }

  private schemaList(s: SchemaObject, keyword: string, ctx: SchemaContext): Node[] {
    const list = s[keyword];
    if (!Array.isArray(list) || (list.length === 0 && keyword !== "prefixItems")) {
      throw new GeneratorError(at(ctx.loc, keyword), `${keyword} must be a non-empty array of schemas`);
    }
    return list.map((item, i) => this.sub(item, ctx, keyword, i));
  }

  private checkKeywords(s: SchemaObject, ctx: SchemaContext): void {
    for (const keyword of Object.keys(s)) {
      const role = keywordRole(ctx.dialect, keyword);
      if (keyword === "divisibleBy" && role === undefined) {
        throw new GeneratorError(
          at(ctx.loc, keyword),
          `keyword "divisibleBy" is draft-03's, which mcp-tasks-gen does not read (draft-04 and later name it "multipleOf"); write "multipleOf" instead`,
        );
      }
      if (role === undefined && dialectsDefining(keyword, ctx.dialect).length > 0) continue; // another dialect's keyword: an annotation here (lint notes it)
      if (isSwitchedOff(ctx.dialect, ctx.vocabularies, keyword)) continue; // its vocabulary is not in the meta-schema's $vocabulary
      if (role === "unsupported") {
        throw new GeneratorError(
          at(ctx.loc, keyword),
          `keyword "${keyword}" is not supported by mcp-tasks-gen (it would change what is valid, so it cannot be ignored)`,
        );
      }
      if (role === undefined && !keyword.startsWith("x-") && !this.options.extraAnnotations?.includes(keyword)) {
        throw new GeneratorError(
          at(ctx.loc, keyword),
          `unknown keyword "${keyword}" (not part of JSON Schema ${ctx.dialect}); to keep it as an annotation, list it under "annotations" of the set in the config, or pass --annotation ${keyword} with --schema (or rename it to "x-${keyword}")`,
        );
      }
    }
  }

  /** The node for `type` and the keywords that only apply to one JSON type. */
  private typePart(s: SchemaObject, ctx: SchemaContext): Node | undefined {
    const loc = ctx.loc;
    let types: JsonType[];
    if ("type" in s) {
      const raw = Array.isArray(s.type) ? s.type : [s.type];
      for (const t of raw) {
        if (!JSON_TYPES.includes(t as JsonType)) {
          throw new GeneratorError(at(loc, "type"), `unknown type ${describe(t)}; expected one of ${JSON_TYPES.join(", ")}`);
        }
      }
      types = [...new Set(raw as JsonType[])];
      if (types.includes("number")) types = types.filter((t) => t !== "integer");
      if (types.length === 0) return { kind: "never", loc: at(loc, "type") };
    } else {
      const constrained = [STRING_KEYWORDS, NUMBER_KEYWORDS, OBJECT_KEYWORDS, ARRAY_KEYWORDS].some((group) =>
        group.some((k) => k in s),
      );
      if (!constrained) return undefined;
      types = ["string", "number", "boolean", "null", "object", "array"];
    }
    const variants = types.map((t) => this.nodeForType(t, s, ctx));
    if (variants.length === 1) return variants[0];
    return { kind: "union", variants, exclusive: false, byType: !("type" in s), loc: at(loc, "type") };
  }

  private nodeForType(type: JsonType, s: SchemaObject, ctx: SchemaContext): Node {
    const loc = ctx.loc;
    switch (type) {
      case "object":
        return this.objectNode(s, ctx);
      case "array":
        return this.arrayNode(s, ctx);
      case "string": {
        const string = {
          ...optionalCount(s, "minLength", loc),
          ...optionalCount(s, "maxLength", loc),
          ...optionalPattern(s, "pattern", loc),
        };
        return primitive("string", loc, Object.keys(string).length ? { string } : {});
      }
      case "number":
      case "integer": {
        for (const keyword of ["exclusiveMinimum", "exclusiveMaximum"]) {
          if (typeof s[keyword] === "boolean" && !hasBooleanExclusiveBounds(ctx.dialect)) {
            throw new GeneratorError(
              at(loc, keyword),
              `${keyword} must be a number in ${ctx.dialect}, got a boolean (draft-04's form: declare "$schema": "http://json-schema.org/draft-04/schema#", or pass --dialect draft-04 for documents without $schema)`,
            );
          }
        }
        const number = {
          ...(hasBooleanExclusiveBounds(ctx.dialect)
            ? { ...booleanExclusiveBound(s, "minimum", "exclusiveMinimum", loc), ...booleanExclusiveBound(s, "maximum", "exclusiveMaximum", loc) }
            : {
                ...optionalNumber(s, "minimum", loc),
                ...optionalNumber(s, "maximum", loc),
                ...optionalNumber(s, "exclusiveMinimum", loc),
                ...optionalNumber(s, "exclusiveMaximum", loc),
              }),
          ...optionalNumber(s, "multipleOf", loc),
        };
        if (number.multipleOf !== undefined && !(number.multipleOf > 0)) {
          throw new GeneratorError(at(loc, "multipleOf"), "multipleOf must be greater than 0");
        }
        return primitive(type, loc, Object.keys(number).length ? { number } : {});
      }
      default:
        return primitive(type, loc, {});
    }
  }

  private objectNode(s: SchemaObject, ctx: SchemaContext): ObjectNode | MapNode {
    const loc = ctx.loc;
    const required = "required" in s ? expectStringArray(s.required, at(loc, "required")) : [];
    const props = "properties" in s ? expectObject(s.properties, at(loc, "properties")) : {};
    const properties = Object.keys(props).map((name) => ({
      name,
      node: this.sub(props[name], ctx, "properties", name),
      required: required.includes(name),
    }));
    const requiredOnly = [...new Set(required.filter((name) => !Object.prototype.hasOwnProperty.call(props, name)))];
    const additional = "additionalProperties" in s ? this.sub(s.additionalProperties, ctx, "additionalProperties") : undefined;
    const patterns = "patternProperties" in s ? expectObject(s.patternProperties, at(loc, "patternProperties")) : {};
    const patternProperties = Object.keys(patterns).map((pattern) => {
      checkRegex(pattern, at(loc, "patternProperties", pattern));
      return { pattern, node: this.sub(patterns[pattern], ctx, "patternProperties", pattern) };
    });
    const propertyNames = "propertyNames" in s ? this.sub(s.propertyNames, ctx, "propertyNames") : undefined;
    const counts = { ...optionalCount(s, "minProperties", loc), ...optionalCount(s, "maxProperties", loc) };

    const dependentRequired: { name: string; requires: string[] }[] = [];
    const dependentSchemas: { name: string; node: Node }[] = [];
    const addDependencies = (keyword: string, allowArrays: boolean, allowSchemas: boolean) => {
      const deps = expectObject(s[keyword], at(loc, keyword));
      for (const [name, dep] of Object.entries(deps)) {
        if (Array.isArray(dep) && allowArrays) {
          dependentRequired.push({ name, requires: expectStringArray(dep, at(loc, keyword, name)) });
        } else if (allowSchemas) {
          dependentSchemas.push({ name, node: this.sub(dep, ctx, keyword, name) });
        } else {
          throw new GeneratorError(at(loc, keyword, name), `${keyword} values must be arrays of property names`);
        }
      }
    };
    if ("dependencies" in s) addDependencies("dependencies", true, true);
    if ("dependentRequired" in s) addDependencies("dependentRequired", true, false);
    if ("dependentSchemas" in s) addDependencies("dependentSchemas", false, true);

    const isMap =
      additional !== undefined &&
      properties.length === 0 &&
      requiredOnly.length === 0 &&
      patternProperties.length === 0 &&
      dependentRequired.length === 0 &&
      dependentSchemas.length === 0 &&
      additional.kind !== "never";
    if (isMap) {
      return { kind: "map", values: additional, ...(propertyNames ? { keys: propertyNames } : {}), ...counts, loc };
    }
    return {
      kind: "object",
      properties,
      requiredOnly,
      ...(additional ? { additional } : {}),
      patternProperties,
      ...(propertyNames ? { propertyNames } : {}),
      ...counts,
      dependentRequired,
      dependentSchemas,
      loc,
    };
  }

  private arrayNode(s: SchemaObject, ctx: SchemaContext): ArrayNode {
    const loc = ctx.loc;
    let prefixItems: Node[] = [];
    let items: Node | undefined;
    if (Array.isArray(s.items)) {
      if (!hasArrayItems(ctx.dialect)) {
        throw new GeneratorError(at(loc, "items"), "in JSON Schema 2020-12 `items` takes one schema; use `prefixItems` for positions");
      }
      prefixItems = s.items.map((item, i) => this.sub(item, ctx, "items", i));
      if ("additionalItems" in s) items = this.sub(s.additionalItems, ctx, "additionalItems");
    } else {
      if ("prefixItems" in s) prefixItems = this.schemaList(s, "prefixItems", ctx);
      if ("items" in s) items = this.sub(s.items, ctx, "items");
    }
    const contains = "contains" in s ? this.sub(s.contains, ctx, "contains") : undefined;
    const uniqueItems = "uniqueItems" in s ? expectBoolean(s.uniqueItems, at(loc, "uniqueItems")) : undefined;
    return {
      kind: "array",
      prefixItems,
      ...(items ? { items } : {}),
      ...(contains ? { contains } : {}),
      ...(contains ? optionalCount(s, "minContains", loc) : {}),
      ...(contains ? optionalCount(s, "maxContains", loc) : {}),
      ...optionalCount(s, "minItems", loc),
      ...optionalCount(s, "maxItems", loc),
      ...(uniqueItems ? { uniqueItems } : {}),
      loc,
    };
  }
}

/**
 * Whether a keyword is present and means something in the schema's dialect (a draft-07 schema that
 * declares `unevaluatedProperties` an annotation keeps it one).
 */
function applies(s: SchemaObject, keyword: string, ctx: SchemaContext): boolean {
  const role = keywordRole(ctx.dialect, keyword);
  return keyword in s && role !== undefined && role !== "annotation";
}

/** The name a schema suggests for itself when it becomes a definition. */
export function nameHintFor(located: LocatedSchema): string {
  const pointer = located.context.loc.pointer;
  const match = /\/(?:\$defs|definitions)\/([^/]+)$/.exec(pointer);
  if (match) return unescapePointerToken(match[1]!);
  const schema = located.schema as SchemaObject | undefined;
  if (pointer === "" && schema && typeof schema === "object" && typeof schema.title === "string") return schema.title;
  if (pointer === "") {
    const base = located.context.loc.file.split("/").pop() ?? "Schema";
    return base.replace(/\.schema\.json$|\.json$/, "");
  }
  return pointer.split("/").filter(Boolean).slice(-2).join("-");
}

function primitive(type: PrimitiveType, loc: SourceLocation, constraints: Partial<PrimitiveNode>): PrimitiveNode {
  return { kind: "primitive", type, ...constraints, loc };
}

function docsOf(s: SchemaObject, loc: SourceLocation): Docs | undefined {
  const docs: { -readonly [K in keyof Docs]: Docs[K] } = {};
  if (typeof s.title === "string") docs.title = s.title;
  if (typeof s.description === "string") docs.description = s.description;
  if (s.deprecated === true) docs.deprecated = true;
  if ("default" in s) docs.default = s.default as JsonValue;
  if (Array.isArray(s.examples)) docs.examples = s.examples as JsonValue[];
  if ("format" in s) docs.format = expectString(s.format, at(loc, "format"));
  return Object.keys(docs).length ? docs : undefined;
}

function withDocs<T extends Node>(node: T, docs: Docs | undefined): T {
  if (!docs) return node;
  return { ...node, docs: { ...node.docs, ...docs } };
}

function at(loc: SourceLocation, ...tokens: (string | number)[]): SourceLocation {
  return { file: loc.file, pointer: appendPointer(loc.pointer, ...tokens) };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? JSON.stringify(value) : typeof value;
}

function expectString(value: unknown, loc: SourceLocation): string {
  if (typeof value !== "string") throw new GeneratorError(loc, `expected a string, got ${describe(value)}`);
  return value;
}

function expectBoolean(value: unknown, loc: SourceLocation): boolean {
  if (typeof value !== "boolean") throw new GeneratorError(loc, `expected a boolean, got ${describe(value)}`);
  return value;
}

function expectObject(value: unknown, loc: SourceLocation): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new GeneratorError(loc, `expected an object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

function expectStringArray(value: unknown, loc: SourceLocation): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new GeneratorError(loc, `expected an array of strings, got ${describe(value)}`);
  }
  return value as string[];
}

function optionalNumber<K extends string>(s: SchemaObject, keyword: K, loc: SourceLocation): { [P in K]?: number } {
  if (!(keyword in s)) return {};
  const value = s[keyword];
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new GeneratorError(at(loc, keyword), `${keyword} must be a number, got ${describe(value)}`);
  }
  return { [keyword]: value } as { [P in K]?: number };
}

/**
 * A draft-04 bound: `"exclusiveMaximum": true` beside `"maximum": 5` is the later
 * `"exclusiveMaximum": 5`; `false` (or absent) leaves `maximum` inclusive.
 */
function booleanExclusiveBound(
  s: SchemaObject,
  bound: "minimum" | "maximum",
  exclusive: "exclusiveMinimum" | "exclusiveMaximum",
  loc: SourceLocation,
): { minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number } {
  const value = optionalNumber(s, bound, loc)[bound];
  if (!(exclusive in s)) return value === undefined ? {} : { [bound]: value };
  const isExclusive = expectBoolean(s[exclusive], at(loc, exclusive));
  if (value === undefined) {
    throw new GeneratorError(at(loc, exclusive), `in draft-04 ${exclusive} is a boolean that makes "${bound}" exclusive, but this schema has no "${bound}"`);
  }
  return isExclusive ? { [exclusive]: value } : { [bound]: value };
}

/**
 * The schema with only the keywords its dialect defines and its vocabularies switch on (and any
 * extension keywords, which nothing reads).
 */
function ownKeywords(s: SchemaObject, ctx: SchemaContext): SchemaObject {
  let own: SchemaObject | undefined;
  for (const keyword of Object.keys(s)) {
    if (dialectsDefining(keyword, ctx.dialect).length === 0 && !isSwitchedOff(ctx.dialect, ctx.vocabularies, keyword)) continue;
    own ??= { ...s };
    delete own[keyword];
  }
  return own ?? s;
}

function optionalCount<K extends string>(s: SchemaObject, keyword: K, loc: SourceLocation): { [P in K]?: number } {
  if (!(keyword in s)) return {};
  const value = s[keyword];
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new GeneratorError(at(loc, keyword), `${keyword} must be a non-negative integer, got ${describe(value)}`);
  }
  return { [keyword]: value } as { [P in K]?: number };
}

function optionalPattern(s: SchemaObject, keyword: "pattern", loc: SourceLocation): { pattern?: string } {
  if (!(keyword in s)) return {};
  const pattern = expectString(s[keyword], at(loc, keyword));
  checkRegex(pattern, at(loc, keyword));
  return { pattern };
}

function checkRegex(pattern: string, loc: SourceLocation): void {
  try {
    new RegExp(pattern, "u");
  } catch (e) {
    throw new GeneratorError(loc, `invalid regular expression: ${(e as Error).message}`);
  }
}
