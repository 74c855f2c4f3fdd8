/**
 * The error mode: code that finds every error of an invalid value, each with its JSON-pointer
 * path, keyword, message and schema location. Decisions (which union variant, whether `if`
 * holds) reuse the boolean mode, so both modes agree on what is valid.
 *
 * The code for a schema is built once, for the parameters `value` and `path` (a fragment), and
 * then either inlined where the schema sits (`value` and `path` substituted) or, when heavier than
 * a function may be (the one splitting rule, size.ts), made a private `$check…Part` function.
 */
import type { Model } from "../../analyze/model.js";
import { formatLocation, type SourceLocation } from "../../diagnostics.js";
import type { ArrayNode, DefinitionId, MapNode, Node, ObjectNode, PrimitiveNode, UnevaluatedNode, UnionNode } from "../../ir/nodes.js";
import { describeTypes, enterRef, jsonTypes, runtimeTypes, runtimeTypesOverlap } from "../../ir/query.js";
import { appendPointer, escapePointerToken as escapeToken } from "../../load/json-pointer.js";
import {
  arrayConditions,
  containsBounds,
  literal,
  literalCondition,
  num,
  objectSizeConditions,
  primitiveConditions,
  str,
  typeName,
  typeTest,
  UNDEFINED,
  type Condition,
} from "./conditions.js";
import {
  and,
  assign,
  BREAK,
  call,
  compare,
  constant,
  exprStmt,
  FALSE,
  forIn,
  forOf,
  forRange,
  id,
  ifElse,
  increment,
  index,
  isTrue,
  letVar,
  Local,
  location,
  locationsOf,
  member,
  mentionsLocal,
  not,
  or,
  plus,
  ret,
  substituteAll,
  switchOn,
  TRUE,
  weight,
  type Expr,
  type Stmt,
} from "./codegen/nodes.js";
import { guardName, typeGuard } from "./json-types.js";
import { propertyAccess, type ModuleScope } from "./scope.js";
import { chunkByWeight, heavy, MAX_FUNCTION_WEIGHT } from "./size.js";
import { knownKeyTest, VALUE, type GuardEmitter } from "./guard-mode.js";
import { EvaluatedTracker, mayBeArray, mayBeObject } from "./evaluated.js";

const PATH = id("path");
const ERRORS = id("errors");
/**
 * The head of every loop over a value's items or properties: once the caller's first error is found
 * (`abortEarly`), the loop ends, so the search costs no more than the way to that error.
 */
const FULL = member(ERRORS, "full");
const STOP_WHEN_FULL = ifElse(FULL, [BREAK]);

/**
 * The message of a member a closed object does not name. The name is in the error's path; a message
 * that quoted it would carry a peer's text (and cost `JSON.stringify` per error).
 */
const UNEXPECTED_PROPERTY = str("unexpected property");

/**
 * The runtime's own reporters of the common type errors (runtime/protocol/json.ts `notObject`…), by the
 * expected text `typeName` gives: a shorter call than `wrongType(…, "an object", …)`, its words at hand.
 */
const TYPE_ERROR_REPORTERS: ReadonlyMap<string, string> = new Map([
  ["an object", "notObject"],
  ["a string", "notString"],
  ["an array", "notArray"],
  ["an integer", "notInteger"],
  ["a number", "notNumber"],
  ["a boolean", "notBoolean"],
]);

/** A function body and the schema location its `at` stands for (see codegen/nodes.ts `location`). */
export interface CheckBody {
  readonly body: Stmt[];
  readonly at: string | undefined;
}

export class CheckEmitter {
  constructor(
    private readonly model: Model,
    private readonly scope: ModuleScope,
    private readonly test: GuardEmitter,
  ) {}

  /** The private error-collecting function of a definition (`$` keeps it out of definition names' reach). */
  checkName(id: string): string {
    return `$check${this.model.byId.get(id)!.name}`;
  }

  /** Body of `checkX(value, path, errors)` for a definition found at `loc`. */
  body(node: Node, owner: string, loc: SourceLocation): CheckBody {
    return this.withAt(this.fragment(node, owner), loc);
  }

  /**
   * A body that declares `at`, the schema location of what it checks, when some location it
   * reports lies under it (those are written `at + "/rest"`, to keep the code short).
   */
  private withAt(body: Stmt[], loc: SourceLocation): CheckBody {
    const code = guardClauses(body);
    const at = formatLocation(loc);
    if (!locationsOf(code).some((l) => l === at || l.startsWith(`${at}/`))) return { body: code, at: undefined };
    return { body: [constant("at", this.locationExpression(loc)), ...code], at };
  }

  /**
   * A schema location as an expression. Deep locations build on a module constant for their first
   * tokens (itself built on the one before), so that each function spells out at most
   * LOCATION_CHUNK tokens and deep schemas give output linear in their depth, not quadratic.
   */
  private locationExpression(loc: SourceLocation): Expr {
    const tokens = loc.pointer.split("/").slice(1); // escaped tokens: splitting on "/" is exact
    if (tokens.length <= LOCATION_CHUNK) return str(formatLocation(loc));
    const cut = Math.floor((tokens.length - 1) / LOCATION_CHUNK) * LOCATION_CHUNK;
    return plus(id(this.locationConstant(loc.file, tokens.slice(0, cut))), str("/" + tokens.slice(cut).join("/")));
  }

  /** The module constant holding `file#/tokens…` (a multiple of LOCATION_CHUNK tokens), by name. */
  private locationConstant(file: string, tokens: readonly string[]): string {
    const head = tokens.length - LOCATION_CHUNK;
    if (head === 0) return constantName(this.scope.constant("SCHEMA_AT", JSON.stringify(formatLocation({ file, pointer: "/" + tokens.join("/") }))));
    const before = this.locationConstant(file, tokens.slice(0, head));
    return constantName(this.scope.constant("SCHEMA_AT", `${before} + ${JSON.stringify("/" + tokens.slice(head).join("/"))}`, [before]));
  }

  /** The schema location of a node's keyword. */
  private schemaPath(node: Node, keyword?: string): Expr {
    const located = node.kind === "literal" && node.origin && keyword === node.keyword ? node.origin : undefined;
    return location(formatLocation(located ?? (keyword === undefined ? node.loc : { ...node.loc, pointer: appendPointer(node.loc.pointer, keyword) })));
  }

  private report(path: Expr, keyword: string, message: Expr, node: Node, schemaKeyword?: string): Stmt {
    return exprStmt(call(this.scope.runtime("report"), ERRORS, path, str(keyword), message, this.schemaPath(node, schemaKeyword)));
  }

  private typeError(path: Expr, expected: string, v: Expr, node: Node, schemaKeyword?: string): Stmt {
    const own = TYPE_ERROR_REPORTERS.get(expected);
    const schemaPath = this.schemaPath(node, schemaKeyword);
    if (own !== undefined) return exprStmt(call(this.scope.runtime(own), ERRORS, path, v, schemaPath));
    return exprStmt(call(this.scope.runtime("wrongType"), ERRORS, path, str(expected), v, schemaPath));
  }

  /** A `const`, `enum` or tag mismatch. */
  private unexpected(path: Expr, keyword: string, expected: string, v: Expr, node: Node, schemaKeyword?: string): Stmt {
    const words = this.runtimeWords("EXPECTED", "wordsFor", expected);
    return exprStmt(call(this.scope.runtime("unexpected"), ERRORS, path, str(keyword), words, v, this.schemaPath(node, schemaKeyword)));
  }

  private missing(path: Expr, name: string, node: Node, schemaPath: Expr = this.schemaPath(node, "required")): Stmt {
    return exprStmt(call(this.scope.runtime("missing"), ERRORS, path, this.runtimeWords("REQUIRED", "missingWordsFor", name), schemaPath));
  }

  /**
   * The module constant holding the message parts of one expected text or property name (`$EXPECTED…`,
   * `$REQUIRED…`), made once when the module loads rather than looked up on each error.
   */
  private runtimeWords(prefix: string, maker: string, text: string): Expr {
    const make = this.scope.runtimeName(maker);
    return this.scope.constant(prefix, `${make}(${JSON.stringify(text)})`, [make]);
  }

  private conditions(conditions: readonly Condition[], path: Expr, node: Node): Stmt[] {
    return conditions.flatMap((c) => ifElse(not(c.test), [this.report(path, c.keyword, c.message, node, c.keyword)]));
  }

  /**
   * Code checking `v` (reported at `path`): the schema's fragment inlined, or a call to a private
   * function holding it when it is heavier than a function may be (see size.ts).
   */
  statements(node: Node, v: Expr, path: Expr, owner: string): Stmt[] {
    const code = this.fragment(node, owner);
    if (NESTING_KINDS.has(node.kind) && weight(code) > MAX_FUNCTION_WEIGHT) {
      return [exprStmt(call(this.privateCheck(owner, code, "unknown", node.loc), v, path, ERRORS))];
    }
    if (v === VALUE && path === PATH) return code;
    return substituteAll(code, new Map([["value", v], ["path", path]]));
  }

  /** The code checking the parameter `value`, reported at the parameter `path`. */
  private fragment(node: Node, owner: string): Stmt[] {
    const v = VALUE;
    const path = PATH;
    switch (node.kind) {
      case "unknown":
        return [];
      case "never":
        return [this.report(path, "false", str("no value is allowed here"), node)];
      case "primitive": {
        const typeError = this.typeError(path, typeName(node.type), v, node, "type");
        const constraints = this.conditions(primitiveConditions(node, v, this.scope), path, node);
        return ifElse(not(typeTest(node.type, v)), [typeError], constraints);
      }
      case "literal": {
        const c = literalCondition(node, v, this.scope);
        return ifElse(not(c.test), [this.unexpected(path, c.keyword, c.expected!, v, node, c.keyword)]);
      }
      case "ref": {
        const check = exprStmt(call(this.checkName(node.target), v, path, ERRORS));
        // Once the first error asked for is found (`full`), no other definition is entered. A map or array
        // its test accepts has no error to find: testing it first spares the check's walk through its
        // members, a path built for each (as the exported `validateX` tests before it checks). Not for a
        // definition on a reference cycle: testing again at each level of a deep value would make the
        // search quadratic.
        const target = this.model.byId.get(node.target)!.node;
        if (!WALKED_KINDS.has(target.kind) || this.test.recursive.has(node.target)) return ifElse(not(FULL), [check]);
        return ifElse(not(or(FULL, call(this.test.isName(node.target), v))), [check]);
      }
      case "object":
        return this.objectStatements(node, owner);
      case "map":
        return this.mapStatements(node, owner);
      case "array":
        return this.arrayStatements(node, owner);
      case "union":
        return this.unionStatements(node, owner);
      case "intersection": {
        // Each part checks the value on its own (no part relies on another's narrowing), so a long
        // `allOf` can be split into helpers that take the value as `unknown`.
        // When every part takes only objects, one type error says it all (and costs one check),
        // and a part written here as an object need not test again that the value is one.
        const objectsOnly = node.parts.every((part) => {
          const types = jsonTypes(part, this.model.byId);
          return types !== undefined && types.size === 1 && types.has("object");
        });
        const blocks = node.parts
          .map((part) => (objectsOnly && part.kind === "object" ? this.objectStatements(part, owner, true) : this.statements(part, v, path, owner)))
          .filter((b) => b.length > 0);
        const parts = this.split(blocks, objectsOnly ? this.scope.runtimeType("JsonObject") : "unknown", owner, node);
        // The type error points at the `type: "object"` of the first part that has one.
        const typed = node.parts.map((part) => this.objectTypeOwner(part)).find((owner) => owner !== undefined);
        const guard = typed ? this.objectGuard(path, typed) : this.typeError(path, "an object", v, node);
        return objectsOnly ? ifElse(not(this.scope.isJsonObjectOnErrorPath(v)), [guard], parts) : parts;
      }
      case "not":
        return ifElse(this.test.opaque(node.node, v, owner), [this.report(path, "not", str("must not match the schema it is forbidden to match"), node)]);
      case "conditional": {
        const then = node.then ? this.statements(node.then, v, path, owner) : [];
        const otherwise = node.else ? this.statements(node.else, v, path, owner) : [];
        return ifElse(this.test.opaque(node.if, v, owner), then, otherwise);
      }
      case "unevaluated":
        return [...this.statements(node.node, v, path, owner), ...this.unevaluatedStatements(node, owner)];
    }
  }

  /** Errors for the properties and items the schema's other keywords leave unevaluated (see evaluated.ts). */
  private unevaluatedStatements(node: UnevaluatedNode, owner: string): Stmt[] {
    const v = VALUE;
    const out: Stmt[] = [];
    const properties = node.properties;
    if (properties && properties.kind !== "unknown" && mayBeObject(node.node, this.model)) {
      const { statements: decided, hoist } = EvaluatedTracker.hoisting();
      const key = new Local("key");
      const item = new Local("item");
      const keyPath = plus(PATH, str("/"), call(this.scope.runtime("pointerToken"), id(key)));
      const evaluated = this.test.evaluated.test(node.node, "properties", id(key), owner, node.containsEvaluates, hoist);
      if (!isTrue(evaluated)) {
        const inner =
          properties.kind === "never"
            ? [this.report(keyPath, "unevaluatedProperties", UNEXPECTED_PROPERTY, node, "unevaluatedProperties")]
            : [constant(item, index(v, id(key))), ...this.statements(properties, id(item), keyPath, owner)];
        out.push(...ifElse(call(this.scope.runtime("isObject"), v), [...decided, forIn(key, v, [...STOP_WHEN_FULL, ...ifElse(not(evaluated), inner)])]));
      }
    }
    const items = node.items;
    if (items && items.kind !== "unknown" && mayBeArray(node.node, this.model)) {
      const { statements: decided, hoist } = EvaluatedTracker.hoisting();
      const i = new Local("i");
      const item = new Local("item");
      const itemPath = plus(PATH, str("/"), id(i));
      const evaluated = this.test.evaluated.test(node.node, "items", id(i), owner, node.containsEvaluates, hoist);
      if (!isTrue(evaluated)) {
        const inner =
          items.kind === "never"
            ? [this.report(itemPath, "unevaluatedItems", str("unexpected item"), node, "unevaluatedItems")]
            : [constant(item, index(v, id(i))), ...this.statements(items, id(item), itemPath, owner)];
        out.push(...ifElse(call(member(id("Array"), "isArray"), v), [...decided, forRange(i, 0, member(v, "length"), [...STOP_WHEN_FULL, ...ifElse(not(evaluated), inner)])]));
      }
    }
    return out;
  }

  /** The object node (possibly behind references) whose schema says `type: "object"`. */
  private objectTypeOwner(node: Node, seen: ReadonlySet<DefinitionId> = new Set()): Node | undefined {
    if (node.kind === "object" || node.kind === "map") return node;
    if (node.kind === "ref") {
      const next = enterRef(node, this.model.byId, seen);
      return next ? this.objectTypeOwner(next.definition.node, next.seen) : undefined;
    }
    if (node.kind === "intersection") {
      for (const part of node.parts) {
        const owner = this.objectTypeOwner(part, seen);
        if (owner) return owner;
      }
    }
    return undefined;
  }

  private objectGuard(path: Expr, node: Node): Stmt {
    return this.typeError(path, "an object", VALUE, node, "type");
  }

  /** `knownObject`: the value is already known to be an object here (no type test to repeat). */
  private objectStatements(node: ObjectNode, owner: string, knownObject = false): Stmt[] {
    const v = VALUE;
    const path = PATH;
    const blocks: Stmt[][] = [];
    for (const property of node.properties) {
      const x = new Local("value");
      const childPath = plus(path, str("/" + escapeToken(property.name)));
      const inner = this.statements(property.node, id(x), childPath, owner);
      if (!property.required && inner.length === 0) continue; // nothing to check: no need to read it
      const read = constant(x, propertyAccess(v, property.name, this.scope));
      if (property.required) blocks.push([read, ...ifElse(compare(id(x), "===", UNDEFINED), [this.missing(path, property.name, node)], inner)]);
      else blocks.push([read, ...ifElse(compare(id(x), "!==", UNDEFINED), inner)]);
    }
    for (const name of node.requiredOnly) {
      blocks.push(ifElse(compare(propertyAccess(v, name, this.scope), "===", UNDEFINED), [this.missing(path, name, node)]));
    }
    blocks.push(this.keyLoop(node, owner));
    blocks.push(this.conditions(objectSizeConditions(node, v), path, node));
    for (const dependency of node.dependentRequired) {
      const present = compare(propertyAccess(v, dependency.name, this.scope), "!==", UNDEFINED);
      const checks = dependency.requires.flatMap((r) => {
        const message = str(`missing property "${r}", required when "${dependency.name}" is present`);
        return ifElse(compare(propertyAccess(v, r, this.scope), "===", UNDEFINED), [this.report(plus(path, str("/" + escapeToken(r))), "dependentRequired", message, node)]);
      });
      blocks.push(ifElse(present, checks));
    }
    for (const dependency of node.dependentSchemas) {
      const present = compare(propertyAccess(v, dependency.name, this.scope), "!==", UNDEFINED);
      blocks.push(ifElse(present, this.statements(dependency.node, v, path, owner)));
    }
    const body = this.split(blocks.filter((b) => b.length > 0), this.scope.runtimeType("JsonObject"), owner, node);
    return knownObject ? body : ifElse(not(this.scope.isJsonObjectOnErrorPath(v)), [this.objectGuard(path, node)], body);
  }

  /**
   * A private `(value, path, errors)` function with the given body (written for those
   * parameters), returning its name; `loc`: the schema location its `at` stands for.
   */
  private privateCheck(owner: string, code: Stmt[], type: string, loc: SourceLocation): string {
    const name = this.scope.helperName(`$check${owner}Part`);
    const { body, at } = this.withAt(code, loc);
    this.scope.addFunction({
      name,
      params: [
        { name: "value", type },
        { name: "path", type: "string" },
        { name: "errors", type: this.scope.runtimeType("ErrorSink") },
      ],
      returns: "void",
      body,
      at,
    });
    return name;
  }

  /**
   * Statement blocks (each reading only `value`, `path`, `errors`, `at` and its own locals),
   * inline when light enough for one function, else grouped into helper functions.
   */
  private split(blocks: readonly Stmt[][], type: string, owner: string, node: Node): Stmt[] {
    const all = blocks.flat();
    if (weight(all) <= MAX_FUNCTION_WEIGHT) return all;
    return chunkByWeight(blocks, weight).map((group) => exprStmt(call(this.privateCheck(owner, group.flat(), type, node.loc), VALUE, PATH, ERRORS)));
  }

  private keyLoop(node: ObjectNode, owner: string): Stmt[] {
    const v = VALUE;
    const additional = node.additional && node.additional.kind !== "unknown" ? node.additional : undefined;
    const names = node.propertyNames && node.propertyNames.kind !== "unknown" ? node.propertyNames : undefined;
    if (!additional && !names && node.patternProperties.length === 0) return [];
    const key = new Local("key");
    const item = new Local("item");
    const keyPath = plus(PATH, str("/"), call(this.scope.runtime("pointerToken"), id(key)));
    const checks: Stmt[] = [];
    if (names) {
      const message = plus(str("property name "), call(member(id("JSON"), "stringify"), id(key)), str(" is not allowed"));
      checks.push(...ifElse(not(this.test.opaque(names, id(key), owner)), [this.report(keyPath, "propertyNames", message, node, "propertyNames")]));
    }
    const matched = node.patternProperties.length > 0 && additional ? new Local("matched") : undefined;
    if (matched) checks.push(letVar(matched, FALSE));
    for (const pattern of node.patternProperties) {
      const re = this.scope.constant("PATTERN", `new RegExp(${JSON.stringify(pattern.pattern)}, "u")`);
      const inner = [...(matched ? [assign(matched, TRUE)] : []), ...this.statements(pattern.node, id(item), keyPath, owner)];
      checks.push(...ifElse(call(member(re, "test"), id(key)), inner));
    }
    if (additional) {
      const known = knownKeyTest(node, id(key), this.scope);
      const unmatched = and(...(known ? [not(known)] : []), ...(matched ? [not(id(matched))] : []));
      const inner =
        additional.kind === "never"
          ? [this.report(keyPath, "additionalProperties", UNEXPECTED_PROPERTY, node, "additionalProperties")]
          : this.statements(additional, id(item), keyPath, owner);
      checks.push(...ifElse(unmatched, inner));
    }
    if (checks.length === 0) return [];
    const body = mentionsLocal(checks, item) ? [constant(item, index(v, id(key))), ...checks] : checks;
    return [forIn(key, v, [...STOP_WHEN_FULL, ...body])];
  }

  private mapStatements(node: MapNode, owner: string): Stmt[] {
    const v = VALUE;
    const key = new Local("key");
    const item = new Local("item");
    const keyPath = plus(PATH, str("/"), call(this.scope.runtime("pointerToken"), id(key)));
    const loop: Stmt[] = [];
    if (node.keys && node.keys.kind !== "unknown") {
      const message = plus(str("property name "), call(member(id("JSON"), "stringify"), id(key)), str(" is not allowed"));
      loop.push(...ifElse(not(this.test.opaque(node.keys, id(key), owner)), [this.report(keyPath, "propertyNames", message, node, "propertyNames")]));
    }
    const inner = this.statements(node.values, id(item), keyPath, owner);
    if (inner.length) loop.push(...(mentionsLocal(inner, item) ? [constant(item, index(v, id(key)))] : []), ...inner);
    const body = [...(loop.length ? [forIn(key, v, [...STOP_WHEN_FULL, ...loop])] : []), ...this.conditions(objectSizeConditions(node, v), PATH, node)];
    return ifElse(not(this.scope.isJsonObjectOnErrorPath(v)), [this.objectGuard(PATH, node)], body);
  }

  private arrayStatements(node: ArrayNode, owner: string): Stmt[] {
    const v = VALUE;
    const path = PATH;
    const body = this.conditions(arrayConditions(node, v, this.scope), path, node);
    // An item is bound to a name only when its checks read it (`items: false` reports without reading).
    const bind = (x: Local, item: Expr, inner: readonly Stmt[]) => (mentionsLocal(inner, x) ? [constant(x, item), ...inner] : [...inner]);
    node.prefixItems.forEach((item, i) => {
      const x = new Local("item");
      const inner = this.statements(item, id(x), plus(path, str(`/${i}`)), owner);
      if (inner.length) body.push(...ifElse(compare(member(v, "length"), ">", num(i)), bind(x, index(v, num(i)), inner)));
    });
    if (node.items && node.items.kind !== "unknown") {
      const i = new Local("i");
      const x = new Local("item");
      const inner = this.statements(node.items, id(x), plus(path, str("/"), id(i)), owner);
      if (inner.length) body.push(forRange(i, node.prefixItems.length, member(v, "length"), [...STOP_WHEN_FULL, ...bind(x, index(v, id(i)), inner)]));
    }
    if (node.contains) {
      const { min, max } = containsBounds(node);
      if (min > 0 || max !== undefined) {
        const count = new Local("found");
        const item = new Local("item");
        const test = this.test.opaque(node.contains, id(item), owner);
        if (isTrue(test)) body.push(constant(count, member(v, "length")));
        else body.push(letVar(count, num(0)), forOf(item, v, ifElse(test, [increment(count)])));
        if (min > 0) {
          const keyword = min === 1 && node.minContains === undefined ? "contains" : "minContains";
          body.push(...ifElse(compare(id(count), "<", num(min)), [this.report(path, keyword, str(`must contain at least ${min} matching item${min === 1 ? "" : "s"}`), node, "contains")]));
        }
        if (max !== undefined) {
          body.push(...ifElse(compare(id(count), ">", num(max)), [this.report(path, "maxContains", str(`must contain at most ${max} matching item${max === 1 ? "" : "s"}`), node, "maxContains")]));
        }
      }
    }
    return ifElse(not(call(member(id("Array"), "isArray"), v)), [this.typeError(path, "an array", v, node, "type")], body);
  }

  private unionStatements(node: UnionNode, owner: string): Stmt[] {
    const v = VALUE;
    const path = PATH;
    if (node.discriminator) return this.discriminated(node, owner);
    // A variant that takes anything makes an `anyOf` take anything (a placeholder union).
    if (!node.exclusive && node.variants.some((variant) => variant.kind === "unknown")) return [];
    const keyword = node.exclusive ? "oneOf" : "anyOf";
    // A union too heavy for one function is decided by the boolean mode's helpers, which split it.
    const tests = node.variants.map((variant) => this.test.opaque(variant, v, owner));
    const tooHeavy = heavy(tests);
    if (!node.exclusive) {
      const test = tooHeavy ? this.test.opaque(node, v, owner) : or(...tests);
      return ifElse(not(test), this.explainNoMatch(node, owner, keyword));
    }
    const count = new Local("matches");
    const counting = tooHeavy
      ? [constant(count, this.test.matchCount(node, v, owner))]
      : [letVar(count, num(0)), ...tests.flatMap((test) => ifElse(test, [increment(count)]))];
    const explain = this.explainNoMatch(node, owner, keyword);
    const many = this.report(path, "oneOf", plus(str("must match exactly one of the allowed schemas, but matches "), id(count)), node);
    return [...counting, ...ifElse(compare(id(count), "===", num(0)), explain, ifElse(compare(id(count), ">", num(1)), [many]))];
  }

  /**
   * Errors for a value no variant accepts. When the variants take distinct JSON types, the one
   * for the value's type explains best (its own errors); otherwise one error for the union.
   */
  private explainNoMatch(node: UnionNode, owner: string, keyword: string): Stmt[] {
    const v = VALUE;
    const path = PATH;
    const types = node.variants.map((variant) => jsonTypes(variant, this.model.byId));
    const disjoint =
      types.every((t) => t !== undefined && t.size > 0) &&
      types.every((t, i) => types.every((u, j) => i === j || !runtimeTypesOverlap(t!, u!)));
    if (!disjoint) {
      return [this.report(path, keyword, str(`must match ${node.exclusive ? "exactly" : "at least"} one of the ${node.variants.length} allowed schemas`), node)];
    }
    const all = new Set(types.flatMap((t) => [...t!]));
    let code: Stmt[] = [this.typeError(path, describeTypes(all, "prose"), v, node)];
    for (let i = node.variants.length - 1; i >= 0; i--) {
      const body = this.variantUnderItsGuard(node.variants[i]!, owner);
      if (body === undefined) continue;
      const runtime = runtimeTypes(types[i]!);
      const guard = this.test.opaqueGuard(typeGuard(runtime, VALUE, (x) => this.scope.isJsonObject(x)), v, owner, guardName(runtime));
      code = ifElse(guard, body, code);
    }
    return code;
  }

  /**
   * A variant's check where its JSON type is known and every variant has failed its test (the union's
   * test is made of theirs). A plain string, boolean or null variant cannot have failed there, so its
   * branch is left out (undefined); a plain integer or number variant can only have failed its type
   * test (an integer's is not implied by `typeof … === "number"`, nor a number's, which refuses NaN),
   * which is reported as it stands. Any other variant is checked in full: one with constraints keeps
   * its type test, which narrows the value's type for them (the guard is a helper call, which does not).
   */
  private variantUnderItsGuard(variant: Node, owner: string): Stmt[] | undefined {
    if (variant.kind === "primitive" && primitiveConditions(variant, VALUE, this.scope).length === 0) {
      if (GUARD_IMPLIED_TYPES.has(variant.type)) return undefined;
      return [this.typeError(PATH, typeName(variant.type), VALUE, variant, "type")];
    }
    return this.statements(variant, VALUE, PATH, owner);
  }

  private discriminated(node: UnionNode, owner: string): Stmt[] {
    const v = VALUE;
    const path = PATH;
    const discriminator = node.discriminator!;
    const tag = new Local("tag");
    const tagPath = plus(path, str("/" + escapeToken(discriminator.property)));
    const allowed = discriminator.cases.flatMap((c) => c.values.map((value) => JSON.stringify(value))).join(" | ");
    const cases = discriminator.cases.map((c) => ({
      tests: c.values.map(literal),
      body: [...this.statements(node.variants[c.variant]!, v, path, owner), BREAK],
    }));
    const missing = this.missing(path, discriminator.property, node, this.schemaPath(node));
    const unknown = this.unexpected(tagPath, "discriminator", `one of ${allowed}`, id(tag), node);
    const body = [constant(tag, propertyAccess(v, discriminator.property, this.scope)), switchOn(id(tag), cases, ifElse(compare(id(tag), "===", UNDEFINED), [missing], [unknown]))];
    return ifElse(not(this.scope.isJsonObjectOnErrorPath(v)), [this.typeError(path, "an object", v, node)], body);
  }
}

/**
 * A function body whose last statement is `if (test) report; else { rest }` as a guard clause:
 * `if (test) return report; rest`, once more for the rest. The same checks, one level less nested
 * (the usual object check: `if (!isJsonObject(value)) return wrongType(…);` and then its members).
 * Only at a function's top level: in code inlined into another function, a `return` would skip
 * what follows it there.
 */
function guardClauses(body: readonly Stmt[]): Stmt[] {
  const last = body.at(-1);
  if (last?.kind !== "if" || last.otherwise.length === 0 || last.then.length !== 1 || last.then[0]!.kind !== "expr") return [...body];
  return [...body.slice(0, -1), ...ifElse(last.test, [ret(last.then[0].expr)]), ...guardClauses(last.otherwise)];
}

/** How many pointer tokens of a schema location a check function spells out (see locationExpression). */
const LOCATION_CHUNK = 32;

/** Definitions whose check builds a path per member or item (see the `ref` case of `fragment`). */
const WALKED_KINDS = new Set<Node["kind"]>(["map", "array"]);

/** Primitive types whose test is the JSON-type guard of a union's variant itself (see `variantUnderItsGuard`). */
const GUARD_IMPLIED_TYPES = new Set<PrimitiveNode["type"]>(["string", "boolean", "null"]);

/** Node kinds whose code nests the code of other schemas (and may move to a function of its own). */
const NESTING_KINDS = new Set<Node["kind"]>(["object", "map", "array", "union", "intersection", "conditional", "unevaluated"]);

function constantName(e: Expr): string {
  if (e.kind !== "id" || typeof e.name !== "string") throw new Error("internal: a module constant is a name");
  return e.name;
}
