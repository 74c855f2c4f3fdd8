/**
 * The boolean mode: code that answers "is this value valid?" and stops at the first failure,
 * building no error objects. `statements` gives code over the parameter `value` that returns false
 * on failure (for a function body); `expression` gives a boolean expression over any value,
 * moving anything that needs statements into a private helper function.
 */
import type { Model } from "../../analyze/model.js";
import type { NamedDefinition } from "../../analyze/naming.js";
import type { ArrayNode, DefinitionId, MapNode, Node, ObjectNode, Property, RefNode, UnevaluatedNode, UnionNode } from "../../ir/nodes.js";
import { enterRef } from "../../ir/query.js";
import { arrayConditions, containsBounds, literal, literalCondition, num, objectSizeConditions, primitiveConditions, typeTest, UNDEFINED } from "./conditions.js";
import {
  and,
  assign,
  BREAK,
  call,
  compare,
  conditional,
  conditions,
  constant,
  FALSE,
  failIf,
  forIn,
  forOf,
  forRange,
  id,
  ifElse,
  increment,
  index,
  isFalse,
  isTrue,
  letVar,
  Local,
  member,
  mentionsLocal,
  not,
  or,
  plus,
  ret,
  RETURN_FALSE,
  RETURN_TRUE,
  returningTheLastTest,
  substitute,
  switchOn,
  TRUE,
  weight,
  type Expr,
  type Stmt,
} from "./codegen/nodes.js";
import { propertyAccess, type ModuleScope } from "./scope.js";
import { describeCheck } from "./helper-names.js";
import { chunkByWeight, heavy, MAX_FUNCTION_WEIGHT, splitWeight } from "./size.js";
import { EvaluatedTracker, mayBeArray, mayBeObject } from "./evaluated.js";
import { recursiveDefinitions } from "./recursion.js";
import { mergedProperties, neededParts } from "./implied.js";

/** The parameter every generated function takes the value in. */
export const VALUE = id("value");

const NO_PROPERTIES: ReadonlyMap<Property, Property | null> = new Map();

/** How many properties a referenced object may declare to be tested inline in an intersection. */
const SMALL_OBJECT_PART = 8;

/** How many conditions a referenced definition's test may have to be written out at its uses (`inlineReference`). */
const INLINE_REFERENCE_CONDITIONS = 5;

/**
 * Whether a node's test is conditions on the value itself and nothing else: a type with its
 * keywords, a constant or enum, or an `anyOf` of those (no helper function, no member read, no reference).
 */
function isPrimitiveTest(node: Node): boolean {
  if (node.kind === "primitive" || node.kind === "literal") return true;
  return node.kind === "union" && !node.exclusive && !node.discriminator && node.variants.every((v) => v.kind === "primitive" || v.kind === "literal");
}

export class GuardEmitter {
  /** What a schema evaluates, for `unevaluated*` (shared with the error mode). */
  readonly evaluated: EvaluatedTracker;
  /** Definitions on a reference cycle (recursion.ts), never tested inline in an intersection. */
  readonly recursive: ReadonlySet<DefinitionId>;

  constructor(
    private readonly model: Model,
    private readonly scope: ModuleScope,
  ) {
    this.evaluated = new EvaluatedTracker(model, scope, this);
    this.recursive = recursiveDefinitions(model);
  }

  /** Name of the private test of a definition (`$testX`; the exported `isX` guards it, see module.ts). */
  isName(id: string): string {
    const def = this.model.byId.get(id);
    if (!def) throw new Error(`internal: no definition ${id}`);
    return `$test${def.name}`;
  }

  /** A complete function body testing `value`. */
  body(node: Node, owner: string): Stmt[] {
    return returningTheLastTest([...this.statements(node, owner), RETURN_TRUE]);
  }

  /** The body of a definition's `$testX`, made once (a caller asks whether it opens with the object test). */
  definitionBody(def: NamedDefinition): Stmt[] {
    let body = this.bodies.get(def.id);
    if (body === undefined) {
      this.bodies.set(def.id, null);
      this.bodies.set(def.id, (body = this.body(def.node, def.name)));
    }
    // null: asked while it is being made, which only a cycle of references with no object or array in
    // between could do, and the loader refuses those (it has no value); answered as "no object test".
    return body ?? [];
  }

  private readonly bodies = new Map<DefinitionId, Stmt[] | null>();

  /**
   * The call of a definition's test on `v`; with `known` when the caller has found `v` to be a JSON
   * object and the test begins by asking that again (`ModuleScope.callOnObject`).
   */
  private callTest(target: DefinitionId, v: Expr, onObject: boolean): Expr {
    const def = this.model.byId.get(target);
    if (onObject && def && this.scope.opensWithObjectTest(this.definitionBody(def))) return this.scope.callOnObject(this.isName(target), v);
    return call(this.isName(target), v);
  }

  /**
   * Whether a value that passes a node's test is sure to be a JSON object (then what is tested on it
   * next may skip asking, see `callTest`).
   */
  private ensuresObject(node: Node, seen: ReadonlySet<DefinitionId> = new Set()): boolean {
    switch (node.kind) {
      case "object":
      case "map":
        return true;
      case "union":
        return node.discriminator !== undefined || (node.variants.length > 0 && node.variants.every((v) => this.ensuresObject(v, seen)));
      case "intersection":
        return node.parts.some((p) => this.ensuresObject(p, seen));
      case "unevaluated":
        return this.ensuresObject(node.node, seen);
      case "ref": {
        const next = enterRef(node, this.model.byId, seen);
        return next ? this.ensuresObject(next.definition.node, next.seen) : false;
      }
      default:
        return false;
    }
  }

  /** Statements testing the parameter `value`, each returning false on failure. */
  statements(node: Node, owner: string): Stmt[] {
    const v = VALUE;
    switch (node.kind) {
      case "unknown":
        return [];
      case "never":
        return [RETURN_FALSE];
      case "object":
        return this.objectStatements(node, owner);
      case "map":
        return this.mapStatements(node, owner);
      case "array":
        return this.arrayStatements(node, owner);
      case "intersection": {
        // Parts that are all small objects are tested as one object, each part's properties inline:
        // one object test, and no call into a shared `$testY` whose property reads see every shape
        // that shares it (measured: such a call site is what made small definitions lose to TypeBox).
        const objects = this.smallObjectParts(node.parts);
        if (objects) {
          // A property two parts test, once loosely (`method: string`) and once exactly, is tested once, exactly.
          const merged = mergedProperties(objects, this.model.byId);
          return this.objectTest(objects.flatMap((o) => this.objectBlocks(o, owner, merged)), owner);
        }
        // The first part may narrow `value` in place; later parts are tested as opaque calls so one
        // part's narrowing never leaks into another's code. A part another implies is left out.
        const [first, ...rest] = neededParts(node.parts, this.model.byId);
        // Once a part that only objects pass has passed, the parts after it need not ask again.
        let onObject = this.ensuresObject(first!);
        const tests = rest.map((part) => {
          const test = failIf(not(this.opaque(part, v, owner, onObject)));
          onObject ||= this.ensuresObject(part);
          return test;
        });
        return [...this.statements(first!, owner), ...this.split(tests, "unknown", owner)];
      }
      case "union": {
        if (node.discriminator) return this.discriminatedStatements(node, owner);
        if (!node.exclusive) return failIf(not(this.anyOf(node, v, owner)));
        const tests = node.variants.map((variant) => this.expression(variant, v, owner));
        if (heavy(tests)) return failIf(compare(this.matchCount(node, v, owner), "!==", num(1)));
        const count = new Local("matches");
        return [letVar(count, num(0)), ...tests.flatMap((test) => ifElse(test, [increment(count)])), ...failIf(compare(id(count), "!==", num(1)))];
      }
      case "conditional": {
        const test = this.opaque(node.if, v, owner);
        const then = node.then ? this.opaque(node.then, v, owner) : TRUE;
        const otherwise = node.else ? this.opaque(node.else, v, owner) : TRUE;
        return failIf(conditional(test, not(then), not(otherwise)));
      }
      case "not":
        return failIf(this.expression(node.node, v, owner));
      case "unevaluated": {
        // The other keywords first (they may narrow `value`); what they leave unevaluated is
        // checked by a helper that takes the value as it comes.
        const rest = this.unevaluatedStatements(node, owner);
        const check = rest.length ? failIf(not(call(this.privateTest(owner, [...rest, RETURN_TRUE], "unknown", "boolean", describeCheck(node, this.model)), v))) : [];
        return [...this.statements(node.node, owner), ...check];
      }
      default:
        return failIf(not(this.expression(node, v, owner)));
    }
  }

  /**
   * Statements over the parameter `value` (any type) returning false when a property or item
   * that the schema's other keywords leave unevaluated fails `unevaluatedProperties`/`Items`.
   */
  private unevaluatedStatements(node: UnevaluatedNode, owner: string): Stmt[] {
    const v = VALUE;
    const out: Stmt[] = [];
    const properties = node.properties;
    if (properties && properties.kind !== "unknown" && mayBeObject(node.node, this.model)) {
      const { statements: decided, hoist } = EvaluatedTracker.hoisting();
      const key = new Local("key");
      const item = new Local("item");
      const evaluated = this.evaluated.test(node.node, "properties", id(key), owner, node.containsEvaluates, hoist);
      if (!isTrue(evaluated)) {
        const test = this.expression(properties, id(item), owner);
        const checks = isFalse(test) ? [RETURN_FALSE] : [constant(item, index(v, id(key))), ...failIf(not(test))];
        const body = ifElse(not(evaluated), checks);
        // Nothing evaluated and nothing allowed: any key fails, and the loop would not read it.
        const loop = mentionsLocal(body, key) ? [forIn(key, v, body)] : ifElse(compare(keyCount(v), "!==", num(0)), body);
        out.push(...ifElse(call(this.scope.runtime("isObject"), v), [...decided, ...loop]));
      }
    }
    const items = node.items;
    if (items && items.kind !== "unknown" && mayBeArray(node.node, this.model)) {
      const { statements: decided, hoist } = EvaluatedTracker.hoisting();
      const i = new Local("i");
      const item = new Local("item");
      const evaluated = this.evaluated.test(node.node, "items", id(i), owner, node.containsEvaluates, hoist);
      if (!isTrue(evaluated)) {
        const test = this.expression(items, id(item), owner);
        const checks = isFalse(test) ? [RETURN_FALSE] : [constant(item, index(v, id(i))), ...failIf(not(test))];
        out.push(...ifElse(call(member(id("Array"), "isArray"), v), [...decided, forRange(i, 0, member(v, "length"), ifElse(not(evaluated), checks))]));
      }
    }
    return out;
  }

  /** A boolean expression testing `v` (`onObject`: the caller has found `v` to be a JSON object). */
  expression(node: Node, v: Expr, owner: string, onObject = false): Expr {
    switch (node.kind) {
      case "unknown":
        return TRUE;
      case "never":
        return FALSE;
      case "primitive":
        return and(typeTest(node.type, v), ...primitiveConditions(node, v, this.scope).map((c) => c.test));
      case "literal":
        return literalCondition(node, v, this.scope).test;
      case "ref":
        return this.inlineReference(node, v, owner) ?? this.callTest(node.target, v, onObject);
      case "not":
        return not(this.expression(node.node, v, owner));
      case "union":
        if (!node.exclusive && !node.discriminator) return this.anyOf(node, v, owner);
        return this.helper(node, v, owner, onObject);
      default:
        return this.helper(node, v, owner, onObject);
    }
  }

  /**
   * The test of a referenced definition written out where it is used, when the definition is one
   * short condition over a primitive (`RequestId`: a string or an integer; `TaskStatus`: one of five
   * strings), as typia writes every test: a call costs more than such a test, inlined or not
   * (`npm run bench`). Anything bigger, or that reads members, stays a call to its `$testX`.
   */
  private inlineReference(node: RefNode, v: Expr, owner: string): Expr | undefined {
    const target = this.model.byId.get(node.target)?.node;
    if (!target || !isPrimitiveTest(target)) return undefined;
    const test = this.expression(target, v, owner);
    return conditions(test) <= INLINE_REFERENCE_CONDITIONS ? test : undefined;
  }

  /**
   * A test that narrows nothing at its call site (a function call), for conditions whose
   * outcome decides which code runs next: TypeScript must not carry a narrowing from the
   * condition into code written for another shape.
   */
  opaque(node: Node, v: Expr, owner: string, onObject = false): Expr {
    if (node.kind === "ref") return this.callTest(node.target, v, onObject);
    if (node.kind === "unknown") return TRUE;
    if (node.kind === "never") return FALSE;
    return this.helper(node, v, owner, onObject);
  }

  /** A test over `value` made opaque (see `opaque`), shared by identical uses. */
  opaqueGuard(test: Expr, v: Expr, owner: string, what?: string): Expr {
    return call(this.privateTest(owner, [ret(test)], "unknown", "boolean", what), v);
  }

  private helper(node: Node, v: Expr, owner: string, onObject = false): Expr {
    const body = returningTheLastTest([...this.statements(node, owner), RETURN_TRUE]);
    const name = this.privateTest(owner, body, "unknown", "boolean", describeCheck(node, this.model));
    return onObject && this.scope.opensWithObjectTest(body) ? this.scope.callOnObject(name, v) : call(name, v);
  }

  /**
   * A private boolean function of `value` with the given body, returning its name; one function
   * per distinct body, named by what it checks (`what`: `$isNullOrString`), or else by its owner
   * and a part number (`$isTaskPart1`, a piece of a big definition). Private names start with `$`,
   * which no definition name does, so `isXPart1` of a definition `XPart1` and the helpers of a
   * definition `X` never meet.
   */
  private privateTest(owner: string, body: readonly Stmt[], type = "unknown", result = "boolean", what?: string): string {
    const names = what === undefined ? [] : [`$is${what}`, `$is${what}In${owner}`];
    return this.scope.sharedHelper(names, `$is${owner}Part`, (name) => ({
      name,
      params: [{ name: "value", type }],
      returns: result,
      body: returningTheLastTest(body),
    }));
  }

  /**
   * `a || b || …` over the variants of an `anyOf`, as one expression when light enough; past the
   * weight a function can hold, runs of variants go into helpers (`$isXPart1(v) || $isXPart2(v)`),
   * in a tree when there are many of those.
   */
  private anyOf(node: UnionNode, v: Expr, owner: string): Expr {
    if (node.variants.some((variant) => variant.kind === "unknown")) return TRUE;
    const tests = node.variants.map((variant) => this.expression(variant, VALUE, owner));
    const calls = this.callTree(tests, (group) => [ret(or(...group))], or, "boolean", owner);
    return substitute(or(...calls), new Map([["value", v]]));
  }

  /** How many variants of a union a value matches, as an expression (helpers for big unions). */
  matchCount(node: UnionNode, v: Expr, owner: string): Expr {
    const tests = node.variants.map((variant) => this.expression(variant, VALUE, owner));
    const counter = (group: readonly Expr[]): Stmt[] => {
      const count = new Local("matches");
      return [letVar(count, num(0)), ...group.flatMap((t) => ifElse(t, [increment(count)])), ret(id(count))];
    };
    const calls = this.callTree(tests, counter, plus, "number", owner, true);
    return substitute(plus(...calls), new Map([["value", v]]));
  }

  /**
   * Tests over `value`, joined (by `join`) when light enough for one function; else runs of them
   * moved into helpers whose bodies `body` writes, and runs of those calls again, until the calls
   * left are light enough (the one splitting rule, see size.ts). `always`: helpers even when light.
   */
  private callTree(
    tests: readonly Expr[],
    body: (group: readonly Expr[]) => Stmt[],
    join: (...operands: Expr[]) => Expr,
    result: string,
    owner: string,
    always = false,
  ): Expr[] {
    if (!always && !heavy(tests)) return [...tests];
    let calls = chunkByWeight(tests, splitWeight).map((group) => call(this.privateTest(owner, body(group), "unknown", result), VALUE));
    while (heavy(calls)) {
      calls = chunkByWeight(calls, splitWeight).map((group) => call(this.privateTest(owner, [ret(join(...group))], "unknown", result), VALUE));
    }
    return calls;
  }

  /**
   * Statement blocks (each returning false on failure, each reading only `value` and its own
   * locals), inline when light enough for one function, else grouped into helpers that take
   * `value` as `type` (what it is narrowed to at this point).
   */
  private split(blocks: readonly (readonly Stmt[])[], type: string, owner: string): Stmt[] {
    const all = blocks.flat();
    if (weight(all) <= MAX_FUNCTION_WEIGHT) return all;
    return chunkByWeight(blocks, weight).flatMap((group) => failIf(not(call(this.privateTest(owner, [...group.flat(), RETURN_TRUE], type), VALUE))));
  }

  /** Whether a node rejects `undefined` (so a separate "is it present" test is not needed). */
  private rejectsUndefined(node: Node, seen: ReadonlySet<DefinitionId> = new Set()): boolean {
    switch (node.kind) {
      case "primitive":
      case "literal":
      case "object":
      case "map":
      case "array":
      case "never":
        return true;
      case "union":
        return node.variants.every((v) => this.rejectsUndefined(v, seen));
      case "intersection":
        return node.parts.some((p) => this.rejectsUndefined(p, seen));
      case "ref": {
        const next = enterRef(node, this.model.byId, seen);
        return next ? this.rejectsUndefined(next.definition.node, next.seen) : false;
      }
      default:
        return false;
    }
  }

  private objectStatements(node: ObjectNode, owner: string): Stmt[] {
    return this.objectTest(this.objectBlocks(node, owner), owner);
  }

  /** The object test, then the blocks of its checks (split by weight). */
  private objectTest(blocks: readonly (readonly Stmt[])[], owner: string): Stmt[] {
    return [...failIf(not(this.scope.isJsonObject(VALUE))), ...this.split(blocks.filter((b) => b.length > 0), this.scope.runtimeType("JsonObject"), owner)];
  }

  /**
   * The object nodes of an intersection whose every part is an object node or a reference to a
   * definition that is one, is not recursive and is small (SMALL_OBJECT_PART); else undefined.
   */
  private smallObjectParts(parts: readonly Node[]): ObjectNode[] | undefined {
    const objects: ObjectNode[] = [];
    for (const part of parts) {
      let node = part;
      if (node.kind === "ref") {
        const def = this.model.byId.get(node.target);
        if (!def || this.recursive.has(node.target)) return undefined;
        node = def.node;
        if (node.kind === "object" && node.properties.length > SMALL_OBJECT_PART) return undefined;
      }
      if (node.kind !== "object") return undefined;
      objects.push(node);
    }
    return objects;
  }

  /** The checks of an object's keywords, in blocks, for a value known to be a JSON object. */
  private objectBlocks(node: ObjectNode, owner: string, merged: ReadonlyMap<Property, Property | null> = NO_PROPERTIES): Stmt[][] {
    const v = VALUE;
    const blocks: Stmt[][] = [];
    for (const declared of node.properties) {
      // In an intersection, what all its parts ask of this property (mergedProperties), or nothing here.
      const property = merged.has(declared) ? merged.get(declared) : declared;
      if (!property) continue;
      const x = new Local("value");
      const test = this.expression(property.node, id(x), owner);
      if (!property.required && isTrue(test)) continue; // any value will do: nothing to read
      const read = constant(x, propertyAccess(v, property.name, this.scope));
      if (property.required) {
        const absent = this.rejectsUndefined(property.node) ? [] : [compare(id(x), "===", UNDEFINED)];
        const checks = failIf(or(...absent, not(test)));
        if (checks.length === 0) continue; // nothing can fail: no need to read it
        blocks.push([read, ...checks]);
      } else blocks.push([read, ...failIf(and(compare(id(x), "!==", UNDEFINED), not(test)))]);
    }
    for (const name of node.requiredOnly) blocks.push(failIf(compare(propertyAccess(v, name, this.scope), "===", UNDEFINED)));
    blocks.push(this.keyLoop(node, owner));
    for (const condition of objectSizeConditions(node, v)) blocks.push(failIf(not(condition.test)));
    for (const dependency of node.dependentRequired) {
      const present = compare(propertyAccess(v, dependency.name, this.scope), "!==", UNDEFINED);
      const missing = dependency.requires.map((r) => compare(propertyAccess(v, r, this.scope), "===", UNDEFINED));
      if (missing.length) blocks.push(failIf(and(present, or(...missing))));
    }
    for (const dependency of node.dependentSchemas) {
      const present = compare(propertyAccess(v, dependency.name, this.scope), "!==", UNDEFINED);
      blocks.push(failIf(and(present, not(this.expression(dependency.node, v, owner, true)))));
    }
    return blocks;
  }

  /** The loop over an object's keys for `additionalProperties`, `patternProperties` and `propertyNames`. */
  private keyLoop(node: ObjectNode, owner: string): Stmt[] {
    const v = VALUE;
    const additional = node.additional && node.additional.kind !== "unknown" ? node.additional : undefined;
    const names = node.propertyNames && node.propertyNames.kind !== "unknown" ? node.propertyNames : undefined;
    if (!additional && !names && node.patternProperties.length === 0) return [];
    const key = new Local("key");
    const item = new Local("item");
    const checks: Stmt[] = [];
    if (names) checks.push(...failIf(not(this.expression(names, id(key), owner))));
    const matched = node.patternProperties.length > 0 && additional ? new Local("matched") : undefined;
    if (matched) checks.push(letVar(matched, FALSE));
    for (const pattern of node.patternProperties) {
      const re = this.scope.constant("PATTERN", `new RegExp(${JSON.stringify(pattern.pattern)}, "u")`);
      const test = this.expression(pattern.node, id(item), owner);
      const then = [...(matched ? [assign(matched, TRUE)] : []), ...failIf(not(test))];
      checks.push(...ifElse(call(member(re, "test"), id(key)), then));
    }
    if (additional) {
      const known = knownKeyTest(node, id(key), this.scope);
      const unmatched = [...(known ? [not(known)] : []), ...(matched ? [not(id(matched))] : [])];
      const test = additional.kind === "never" ? FALSE : this.expression(additional, id(item), owner);
      checks.push(...failIf(and(...unmatched, not(test))));
    }
    // Bind the property's value only when some check reads it.
    const body = mentionsLocal(checks, item) ? [constant(item, index(v, id(key))), ...checks] : checks;
    // Checks that read neither the key nor its value fail for any key: no loop variable then (it
    // would be unused), just whether there is a key at all.
    if (!mentionsLocal(body, key)) return ifElse(compare(keyCount(v), "!==", num(0)), body);
    return [forIn(key, v, body)];
  }

  private mapStatements(node: MapNode, owner: string): Stmt[] {
    const v = VALUE;
    const out = failIf(not(this.scope.isJsonObject(v)));
    const keys = node.keys && node.keys.kind !== "unknown" ? node.keys : undefined;
    const key = new Local("key");
    const item = new Local("item");
    const valueTest = this.expression(node.values, id(item), owner);
    const body = [
      ...(!isTrue(valueTest) && !isFalse(valueTest) ? [constant(item, index(v, id(key)))] : []),
      ...(keys ? failIf(not(this.expression(keys, id(key), owner))) : []),
      ...failIf(not(valueTest)),
    ];
    if (isFalse(valueTest) && !keys) out.push(...failIf(compare(keyCount(v), "!==", num(0)))); // no property allowed
    else if (body.length) out.push(forIn(key, v, body));
    for (const condition of objectSizeConditions(node, v)) out.push(...failIf(not(condition.test)));
    return out;
  }

  private arrayStatements(node: ArrayNode, owner: string): Stmt[] {
    const v = VALUE;
    const out = failIf(not(call(member(id("Array"), "isArray"), v)));
    for (const condition of arrayConditions(node, v, this.scope)) out.push(...failIf(not(condition.test)));
    node.prefixItems.forEach((item, i) => {
      const test = this.expression(item, index(v, num(i)), owner);
      out.push(...failIf(and(compare(member(v, "length"), ">", num(i)), not(test))));
    });
    if (node.items && node.items.kind !== "unknown") {
      const i = new Local("i");
      const test = this.expression(node.items, index(v, id(i)), owner);
      out.push(forRange(i, node.prefixItems.length, member(v, "length"), failIf(not(test))));
    }
    if (node.contains) {
      const { min, max } = containsBounds(node);
      if (min > 0 || max !== undefined) {
        const count = new Local("found");
        const item = new Local("item");
        const test = this.expression(node.contains, id(item), owner);
        // A `contains` that every item matches counts them all (and needs no loop variable).
        if (isTrue(test)) out.push(constant(count, member(v, "length")));
        else if (isFalse(test)) out.push(constant(count, num(0)));
        else out.push(letVar(count, num(0)), forOf(item, v, ifElse(test, [increment(count)])));
        out.push(...failIf(or(...(min > 0 ? [compare(id(count), "<", num(min))] : []), ...(max !== undefined ? [compare(id(count), ">", num(max))] : []))));
      }
    }
    return out;
  }

  private discriminatedStatements(node: UnionNode, owner: string): Stmt[] {
    const v = VALUE;
    const discriminator = node.discriminator!;
    const tag = new Local("tag");
    const cases = discriminator.cases.map((c) => ({
      tests: c.values.map(literal),
      body: [...failIf(not(this.expression(node.variants[c.variant]!, v, owner, true))), BREAK],
    }));
    return [
      ...failIf(not(this.scope.isJsonObject(v))),
      constant(tag, propertyAccess(v, discriminator.property, this.scope)),
      switchOn(id(tag), cases, [RETURN_FALSE]),
    ];
  }
}

/** `Object.keys(o).length`. */
export function keyCount(o: Expr): Expr {
  return member(call(member(id("Object"), "keys"), o), "length");
}

/**
 * The test "the key is one of the declared properties", or undefined when there are none. Past a
 * few names, a set: a long `key === "a" || …` chain overflows the compiler's binder.
 */
export function knownKeyTest(node: ObjectNode, key: Expr, scope: ModuleScope): Expr | undefined {
  if (node.properties.length === 0) return undefined;
  if (node.properties.length <= 8) return or(...node.properties.map((p) => compare(key, "===", literal(p.name))));
  const names = scope.constant("keys", `new Set<string>(${JSON.stringify(node.properties.map((p) => p.name))})`);
  return call(member(names, "has"), key);
}
