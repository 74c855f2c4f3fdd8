/**
 * The boolean mode: code that answers "is this value valid?" and stops at the first failure,
 * building no error objects. `statements` gives code that does `return false` on failure (for a
 * function body); `expression` gives a boolean expression, moving anything that needs statements
 * into a private helper function.
 */
import type { Model } from "../../analyze/model.js";
import type { ArrayNode, DefinitionId, MapNode, Node, ObjectNode, UnionNode } from "../../ir/nodes.js";
import { enterRef } from "../../ir/query.js";
import { arrayConditions, containsBounds, literal, literalCondition, negate, objectSizeConditions, primitiveConditions, typeTest } from "./conditions.js";
import { FunctionScope, indent, mentions, propertyAccess, type ModuleScope } from "./scope.js";
import { describeCheck } from "./helper-names.js";
import { MAX_FUNCTION_WEIGHT, MAX_OPERANDS, chunkByWeight, codeWeight, inlineWeight } from "./size.js";

export class GuardEmitter {
  constructor(
    private readonly model: Model,
    private readonly scope: ModuleScope,
  ) {}

  /** Name of the `is` function of a definition. */
  isName(id: string): string {
    const def = this.model.byId.get(id);
    if (!def) throw new Error(`internal: no definition ${id}`);
    return `is${def.name}`;
  }

  /** A complete function body testing `v` (a parameter of type unknown). */
  body(node: Node, v: string, owner: string): string[] {
    return returningTheLastTest([...this.statements(node, v, new FunctionScope(), owner), "return true;"]);
  }

  /** `if (failed) return false;`, folding a condition that is known in advance. */
  private failIf(condition: string): string[] {
    if (condition === "false") return [];
    if (condition === "true") return ["return false;"];
    return [`if (${condition}) return false;`];
  }

  statements(node: Node, v: string, fn: FunctionScope, owner: string): string[] {
    // Statements are written for the parameter `value` (every caller passes it), so that blocks of
    // them can move into helper functions that take `value` too.
    if (v !== "value") return this.failIf(this.not(this.helper(node, v, owner)));
    switch (node.kind) {
      case "unknown":
        return [];
      case "never":
        return ["return false;"];
      case "object":
        return this.objectStatements(node, v, fn, owner);
      case "map":
        return this.mapStatements(node, v, fn, owner);
      case "array":
        return this.arrayStatements(node, v, fn, owner);
      case "intersection": {
        // The first part may narrow `v` in place; later parts are tested as expressions so one
        // part's narrowing never leaks into another's code.
        const [first, ...rest] = node.parts;
        const tests = rest.map((part) => [`if (!${this.opaque(part, v, owner)}) return false;`]);
        return [...this.statements(first!, v, fn, owner), ...this.split(tests, v, "unknown", owner)];
      }
      case "union":
        if (node.discriminator) return this.discriminatedStatements(node, v, fn, owner);
        if (node.exclusive) {
          if (isHeavy(node)) return [`if (${this.matchCount(node, v, owner)} !== 1) return false;`];
          const count = fn.local("matches");
          return [
            `let ${count} = 0;`,
            ...node.variants.map((variant) => `if (${this.expression(variant, v, owner)}) ${count}++;`),
            `if (${count} !== 1) return false;`,
          ];
        }
        return this.failIf(this.not(this.anyOf(node, v, owner)));
      case "conditional": {
        const test = this.opaque(node.if, v, owner);
        const then = node.then ? this.opaque(node.then, v, owner) : "true";
        const otherwise = node.else ? this.opaque(node.else, v, owner) : "true";
        return [`if (${test} ? ${this.not(then)} : ${this.not(otherwise)}) return false;`];
      }
      case "not":
        return [`if (${this.expression(node.node, v, owner)}) return false;`];
      default:
        return this.failIf(this.not(this.expression(node, v, owner)));
    }
  }

  /** A boolean expression testing `v`. */
  expression(node: Node, v: string, owner: string): string {
    switch (node.kind) {
      case "unknown":
        return "true";
      case "never":
        return "false";
      case "primitive":
        return [typeTest(node.type, v), ...primitiveConditions(node, v, this.scope).map((c) => c.test)].join(" && ");
      case "literal":
        return literalCondition(node, v, this.scope).test;
      case "ref":
        return `${this.isName(node.target)}(${v})`;
      case "not":
        return `${this.not(this.expression(node.node, v, owner))}`;
      case "union":
        if (!node.exclusive && !node.discriminator && !isHeavy(node)) return this.anyOf(node, v, owner);
        return this.helper(node, v, owner);
      default:
        return this.helper(node, v, owner);
    }
  }

  /**
   * A test that narrows nothing at its call site (a function call), for conditions whose
   * outcome decides which code runs next: TypeScript must not carry a narrowing from the
   * condition into code written for another shape.
   */
  opaque(node: Node, v: string, owner: string): string {
    if (node.kind === "ref") return this.expression(node, v, owner);
    if (node.kind === "unknown") return "true";
    if (node.kind === "never") return "false";
    return this.helper(node, v, owner);
  }

  /** An expression over `value` made opaque (see `opaque`), shared by identical uses. */
  opaqueGuard(expression: string, v: string, owner: string, what?: string): string {
    return `${this.privateTest(owner, [`return ${expression};`], "unknown", "boolean", what)}(${v})`;
  }

  private helper(node: Node, v: string, owner: string): string {
    const body = this.statements(node, "value", new FunctionScope(), owner);
    return `${this.privateTest(owner, [...body, "return true;"], "unknown", "boolean", describeCheck(node, this.model))}(${v})`;
  }

  /**
   * A private boolean function of `value` with the given body, returning its name; one function
   * per distinct body, named by what it checks (`what`: `$isNullOrString`), or else by its owner
   * and a part number (`$isTaskPart1`, a piece of a big definition). Private names start with `$`,
   * which no definition name does, so `isXPart1` of a definition `XPart1` and the helpers of a
   * definition `X` never meet.
   */
  private privateTest(owner: string, body: readonly string[], type = "unknown", result = "boolean", what?: string): string {
    const lines = returningTheLastTest(body);
    const value = mentions(lines, "value") ? "value" : "_value";
    const names = what === undefined ? [] : [`$is${what}`, `$is${what}In${owner}`];
    return this.scope.sharedHelper(names, `$is${owner}Part`, (name) => [`function ${name}(${value}: ${type}): ${result} {`, ...indent(lines), "}"].join("\n"));
  }

  /**
   * `a || b || …` over the variants of an `anyOf`, as one expression when small; past the size a
   * function can hold, the variants go into helpers (`$isXPart1(v) || $isXPart2(v)`), in a tree
   * when there are many of those.
   */
  private anyOf(node: UnionNode, v: string, owner: string): string {
    if (node.variants.some((variant) => variant.kind === "unknown")) return "true";
    const join = (tests: readonly string[]) => (tests.length === 1 ? tests[0]! : `(${tests.map((t) => this.wrap(t)).join(" || ")})`);
    if (!isHeavy(node)) return join(node.variants.map((variant) => this.expression(variant, v, owner)));
    let calls = chunkByWeight(node.variants, (n) => 1 + inlineWeight(n)).map((group) =>
      this.privateTest(owner, [`return ${join(group.map((variant) => this.expression(variant, "value", owner)))};`]),
    );
    while (calls.length > MAX_OPERANDS) {
      calls = chunk(calls, MAX_OPERANDS).map((group) => this.privateTest(owner, [`return ${join(group.map((name) => `${name}(value)`))};`]));
    }
    return join(calls.map((name) => `${name}(${v})`));
  }

  /** How many variants of a union a value matches, as an expression (helpers for big unions). */
  matchCount(node: UnionNode, v: string, owner: string): string {
    const counter = (tests: readonly string[]) => ["let matches = 0;", ...tests.map((t) => `if (${t}) matches++;`), "return matches;"];
    let calls = chunkByWeight(node.variants, (n) => 1 + inlineWeight(n)).map((group) =>
      this.privateTest(owner, counter(group.map((variant) => this.expression(variant, "value", owner))), "unknown", "number"),
    );
    while (calls.length > MAX_OPERANDS) {
      calls = chunk(calls, MAX_OPERANDS).map((group) =>
        this.privateTest(owner, [`return ${group.map((name) => `${name}(value)`).join(" + ")};`], "unknown", "number"),
      );
    }
    return calls.length === 1 ? `${calls[0]}(${v})` : `(${calls.map((name) => `${name}(${v})`).join(" + ")})`;
  }

  /**
   * Statement blocks (each `return false` on failure, each reading only `value` and its own
   * locals), inline when they are small enough for one function, else grouped into helpers that
   * take `value` as `type` (what it is narrowed to at this point).
   */
  private split(blocks: readonly (readonly string[])[], v: string, type: string, owner: string): string[] {
    const all = blocks.flat();
    if (codeWeight(all) <= MAX_FUNCTION_WEIGHT) return all;
    return chunkByWeight(blocks, codeWeight).map((group) => `if (!${this.privateTest(owner, [...group.flat(), "return true;"], type)}(${v})) return false;`);
  }

  /** The negation of a test, as a person would write it (`a !== b`, `!isX(v)`, `!(a || b)`). */
  private not(expression: string): string {
    if (expression === "true") return "false";
    if (expression === "false") return "true";
    if (/^\(.*\)$/.test(expression) && balancedInside(expression)) return `!${expression}`;
    return negate(expression);
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

  private wrap(expression: string): string {
    return /^[\w$.]+(\([^()]*\))?$/.test(expression) || /^\(.*\)$/.test(expression) ? expression : `(${expression})`;
  }

  private objectStatements(node: ObjectNode, v: string, fn: FunctionScope, owner: string): string[] {
    const isObject = this.scope.runtime("isObject");
    const blocks: string[][] = [];
    for (const property of node.properties) {
      const x = fn.local("value");
      const test = this.expression(property.node, x, owner);
      if (!property.required && test === "true") continue; // any value will do: nothing to read
      const block = [`const ${x} = ${propertyAccess(v, property.name, this.scope)};`];
      if (property.required) {
        const absent = this.rejectsUndefined(property.node) ? [] : [`${x} === undefined`];
        const fails = this.not(test);
        const checks = this.failIf([...absent, ...(fails === "false" ? [] : [fails])].join(" || ") || "false");
        if (checks.length === 0) continue; // nothing can fail: no need to read it
        block.push(...checks);
      } else block.push(`if (${x} !== undefined && ${this.not(test)}) return false;`);
      blocks.push(block);
    }
    for (const name of node.requiredOnly) {
      blocks.push([`if (${propertyAccess(v, name, this.scope)} === undefined) return false;`]);
    }
    blocks.push(this.keyLoop(node, v, fn, owner));
    for (const condition of objectSizeConditions(node, v)) blocks.push([`if (!(${condition.test})) return false;`]);
    for (const dependency of node.dependentRequired) {
      const present = `${propertyAccess(v, dependency.name, this.scope)} !== undefined`;
      const missing = dependency.requires.map((r) => `${propertyAccess(v, r, this.scope)} === undefined`);
      if (missing.length) blocks.push([`if (${present} && (${missing.join(" || ")})) return false;`]);
    }
    for (const dependency of node.dependentSchemas) {
      const present = `${propertyAccess(v, dependency.name, this.scope)} !== undefined`;
      blocks.push([`if (${present} && ${this.not(this.expression(dependency.node, v, owner))}) return false;`]);
    }
    return [`if (!${isObject}(${v})) return false;`, ...this.split(blocks.filter((b) => b.length > 0), v, this.scope.runtime("JsonObject"), owner)];
  }

  /** The loop over an object's keys for `additionalProperties`, `patternProperties` and `propertyNames`. */
  private keyLoop(node: ObjectNode, v: string, fn: FunctionScope, owner: string): string[] {
    const additional = node.additional && node.additional.kind !== "unknown" ? node.additional : undefined;
    const names = node.propertyNames && node.propertyNames.kind !== "unknown" ? node.propertyNames : undefined;
    if (!additional && !names && node.patternProperties.length === 0) return [];
    const key = fn.local("key");
    const item = fn.local("item");
    const body: string[] = [`const ${item} = ${v}[${key}];`];
    if (names) body.push(`if (${this.not(this.expression(names, key, owner))}) return false;`);
    const matched = node.patternProperties.length > 0 && additional ? fn.local("matched") : undefined;
    if (matched) body.push(`let ${matched} = false;`);
    for (const pattern of node.patternProperties) {
      const re = this.scope.constant("PATTERN", `new RegExp(${JSON.stringify(pattern.pattern)}, "u")`);
      const test = this.expression(pattern.node, item, owner);
      const then = [...(matched ? [`${matched} = true;`] : []), ...(test !== "true" ? [`if (${this.not(test)}) return false;`] : [])];
      if (then.length) body.push(`if (${re}.test(${key})) {`, ...indent(then), "}");
    }
    if (additional) {
      const known = knownKeyTest(node, key, this.scope);
      const unmatched = [...(known ? [`!${known}`] : []), ...(matched ? [`!${matched}`] : [])];
      const test = additional.kind === "never" ? "false" : this.expression(additional, item, owner);
      const parts = [...unmatched, ...(test === "false" ? [] : [`${this.not(test)}`])];
      body.push(...this.failIf(parts.length ? parts.join(" && ") : "true"));
    }
    // Bind the property's value only when some check reads it.
    const checks = mentions(body.slice(1), item) ? body : body.slice(1);
    // Checks that read neither the key nor its value fail for any key: no loop variable then (it
    // would be unused), just whether there is a key at all.
    if (!mentions(checks, key)) return [`if (Object.keys(${v}).length !== 0) {`, ...indent(checks), "}"];
    return [`for (const ${key} in ${v}) {`, ...indent(checks), "}"];
  }

  private mapStatements(node: MapNode, v: string, fn: FunctionScope, owner: string): string[] {
    const out = [`if (!${this.scope.runtime("isObject")}(${v})) return false;`];
    const keys = node.keys && node.keys.kind !== "unknown" ? node.keys : undefined;
    const key = fn.local("key");
    const item = fn.local("item");
    const valueTest = this.expression(node.values, item, owner);
    const body = [
      ...(valueTest !== "true" && valueTest !== "false" ? [`const ${item} = ${v}[${key}];`] : []),
      ...(keys ? [`if (${this.not(this.expression(keys, key, owner))}) return false;`] : []),
      ...(valueTest !== "true" ? this.failIf(this.not(valueTest)) : []),
    ];
    if (valueTest === "false" && !keys) out.push(`if (Object.keys(${v}).length !== 0) return false;`); // no property allowed
    else if (body.length) out.push(`for (const ${key} in ${v}) {`, ...indent(body), "}");
    for (const condition of objectSizeConditions(node, v)) out.push(`if (!(${condition.test})) return false;`);
    return out;
  }

  private arrayStatements(node: ArrayNode, v: string, fn: FunctionScope, owner: string): string[] {
    const out = [`if (!Array.isArray(${v})) return false;`];
    for (const condition of arrayConditions(node, v, this.scope)) out.push(`if (!(${condition.test})) return false;`);
    node.prefixItems.forEach((item, i) => {
      const test = this.expression(item, `${v}[${i}]`, owner);
      if (test !== "true") out.push(`if (${v}.length > ${i} && ${this.not(test)}) return false;`);
    });
    if (node.items && node.items.kind !== "unknown") {
      const i = fn.local("i");
      const test = this.expression(node.items, `${v}[${i}]`, owner);
      out.push(`for (let ${i} = ${node.prefixItems.length}; ${i} < ${v}.length; ${i}++) {`, `  if (${this.not(test)}) return false;`, "}");
    }
    if (node.contains) {
      const { min, max } = containsBounds(node);
      if (min > 0 || max !== undefined) {
        const count = fn.local("found");
        const item = fn.local("item");
        const test = this.expression(node.contains, item, owner);
        // A `contains` that every item matches counts them all (and needs no loop variable).
        if (test === "true") out.push(`const ${count} = ${v}.length;`);
        else out.push(`let ${count} = 0;`, `for (const ${item} of ${v}) if (${test}) ${count}++;`);
        const bounds = [...(min > 0 ? [`${count} < ${min}`] : []), ...(max !== undefined ? [`${count} > ${max}`] : [])];
        out.push(`if (${bounds.join(" || ")}) return false;`);
      }
    }
    return out;
  }

  private discriminatedStatements(node: UnionNode, v: string, fn: FunctionScope, owner: string): string[] {
    const discriminator = node.discriminator!;
    const tag = fn.local("tag");
    const out = [
      `if (!${this.scope.runtime("isObject")}(${v})) return false;`,
      `const ${tag} = ${propertyAccess(v, discriminator.property, this.scope)};`,
      `switch (${tag}) {`,
    ];
    for (const c of discriminator.cases) {
      for (const value of c.values) out.push(`  case ${literal(value)}:`);
      out.push(`    if (${this.not(this.expression(node.variants[c.variant]!, v, owner))}) return false;`, "    break;");
    }
    out.push("  default:", "    return false;", "}");
    return out;
  }
}

/** Whether the inline code of a node is more than one function should hold. */
export function isHeavy(node: Node): boolean {
  return inlineWeight(node) > MAX_FUNCTION_WEIGHT;
}

/**
 * The test "the key is one of the declared properties", or undefined when there are none. Past a
 * few names, a set: a long `key === "a" || …` chain overflows the compiler's binder.
 */
export function knownKeyTest(node: ObjectNode, key: string, scope: ModuleScope): string | undefined {
  if (node.properties.length === 0) return undefined;
  if (node.properties.length <= 8) return `(${node.properties.map((p) => `${key} === ${literal(p.name)}`).join(" || ")})`;
  const names = scope.constant("keys", `new Set<string>(${JSON.stringify(node.properties.map((p) => p.name))})`);
  return `${names}.has(${key})`;
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * `if (failed) return false; return true;` as a person writes it: `return !failed;` (the test
 * turned around, `if (!(a && b)) return false;` → `return a && b;`). Only a last test at the
 * top level of the body qualifies (an indented line belongs to a block).
 */
export function returningTheLastTest(body: readonly string[]): string[] {
  const last = body[body.length - 2];
  if (body[body.length - 1] !== "return true;" || last === undefined) return [...body];
  const match = /^if \((.*)\) return false;$/.exec(last);
  if (!match || !balancedInside(`(${match[1]})`)) return [...body];
  return [...body.slice(0, -2), `return ${passes(match[1]!)};`];
}

/**
 * The test that passes when `failed` does not, written plainly: `!(x)` → `x`, `!f(v)` → `f(v)`,
 * `a !== b` → `a === b`, and over `&&` or `||` (one of them, at the top) by De Morgan's rule:
 * `v !== undefined && !isY(v)` → `v === undefined || isY(v)`. Anything else: `!(failed)`.
 */
function passes(failed: string): string {
  const simple = plainNegation(failed);
  if (simple !== undefined) return simple;
  for (const [op, dual] of [["&&", "||"], ["||", "&&"]] as const) {
    const parts = topLevelParts(failed, op);
    if (parts === undefined || parts.length < 2) continue;
    const negated = parts.map(plainNegation);
    if (negated.some((n) => n === undefined)) break;
    // An operand with an operator of its own at the top keeps parentheses around it.
    const compound = (n: string) => (topLevelParts(n, "&&")?.length ?? 2) > 1 || (topLevelParts(n, "||")?.length ?? 2) > 1;
    return negated.map((n) => (compound(n!) ? `(${n})` : n)).join(` ${dual} `);
  }
  return negate(failed);
}

/** The negation of a test that has one obvious form (see passes), or undefined. */
function plainNegation(test: string): string | undefined {
  if (/^!\(.*\)$/.test(test) && balancedInside(test.slice(1))) return test.slice(2, -1);
  if (/^![\w$.]+\([^()]*\)$/.test(test)) return test.slice(1);
  if (/^[\w$.]+\([^()]*\)$/.test(test)) return `!${test}`;
  const comparison = /^([^&|!=<>?:"]+?) (!==|===) ([^&|!=<>?:]+)$/.exec(test);
  if (comparison && [comparison[1]!, comparison[3]!].every(balanced)) return `${comparison[1]} ${comparison[2] === "!==" ? "===" : "!=="} ${comparison[3]}`;
  return undefined;
}

/** Whether every parenthesis of an operand closes inside it (`Object.keys(v).length`, not `a(b`); strings aside. */
function balanced(operand: string): boolean {
  let depth = 0;
  for (let i = 0; i < operand.length; i++) {
    const c = operand[i];
    if (c === '"') {
      for (i++; i < operand.length && operand[i] !== '"'; i++) if (operand[i] === "\\") i++;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * The operands of `op` at the top level of an expression (outside parentheses and strings), or
 * undefined when the other logical operator or a `?:` is at the top level too (precedence would matter).
 */
function topLevelParts(expression: string, op: "&&" | "||"): string[] | undefined {
  const other = op === "&&" ? "||" : "&&";
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i];
    if (c === '"') {
      for (i++; i < expression.length && expression[i] !== '"'; i++) if (expression[i] === "\\") i++;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (depth === 0 && (c === "?" || expression.startsWith(` ${other} `, i - 1))) return undefined;
    else if (depth === 0 && expression.startsWith(` ${op} `, i - 1)) {
      parts.push(expression.slice(start, i - 1));
      start = i + op.length + 1;
      i += op.length;
    }
  }
  parts.push(expression.slice(start));
  return parts;
}

/**
 * Whether the parentheses around an expression enclose all of it (`(a) || (b)` is not enclosed).
 * Parentheses inside string literals (`"("`, as JSON writes them) do not count.
 */
function balancedInside(expression: string): boolean {
  let depth = 0;
  for (let i = 0; i < expression.length; i++) {
    const c = expression[i];
    if (c === '"') {
      for (i++; i < expression.length && expression[i] !== '"'; i++) if (expression[i] === "\\") i++;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0 && i < expression.length - 1) return false;
  }
  return depth === 0;
}
