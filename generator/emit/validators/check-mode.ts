/**
 * The error mode: code that finds every error of an invalid value, each with its JSON-pointer
 * path, keyword, message and schema location. Decisions (which union variant, whether `if`
 * holds) reuse the boolean mode, so both modes agree on what is valid.
 */
import type { Model } from "../../analyze/model.js";
import { formatLocation, type SourceLocation } from "../../diagnostics.js";
import type { ArrayNode, DefinitionId, MapNode, Node, ObjectNode, UnionNode } from "../../ir/nodes.js";
import { describeTypes, enterRef, jsonTypes, runtimeTypes, runtimeTypesOverlap } from "../../ir/query.js";
import { appendPointer, escapePointerToken as escapeToken } from "../../load/json-pointer.js";
import {
  arrayConditions,
  containsBounds,
  literal,
  literalCondition,
  negate,
  objectSizeConditions,
  primitiveConditions,
  str,
  typeName,
  typeTest,
  type Condition,
} from "./conditions.js";
import { guardName, typeGuard } from "./json-types.js";
import { FunctionScope, indent, mentions, propertyAccess, type ModuleScope } from "./scope.js";
import { MAX_FUNCTION_WEIGHT, MAX_OPERANDS, chunkByWeight, codeWeight } from "./size.js";
import { isHeavy, knownKeyTest, type GuardEmitter } from "./guard-mode.js";

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

  /** Schema locations under this prefix are written `at + "/rest"`, to keep the code short. */
  private base = "";
  private baseUsed = false;

  /** Body of `checkX(value, path, errors)` for a definition found at `loc`. */
  body(node: Node, owner: string, loc: SourceLocation): string[] {
    this.base = formatLocation(loc);
    this.baseUsed = false;
    const statements = this.statements(node, "value", "path", new FunctionScope(), owner);
    // Checks that used `at` may have moved into helpers (which declare it themselves).
    return this.baseUsed && mentions(statements, "at") ? [`const at = ${this.locationExpression(loc)};`, ...statements] : statements;
  }

  /**
   * A schema location as an expression. Deep locations build on a module constant for their first
   * tokens (itself built on the one before), so that each function spells out at most
   * LOCATION_CHUNK tokens and deep schemas give output linear in their depth, not quadratic.
   */
  private locationExpression(loc: SourceLocation): string {
    const tokens = loc.pointer.split("/").slice(1); // escaped tokens: splitting on "/" is exact
    if (tokens.length <= LOCATION_CHUNK) return str(formatLocation(loc));
    const cut = Math.floor((tokens.length - 1) / LOCATION_CHUNK) * LOCATION_CHUNK;
    return `${this.locationConstant(loc.file, tokens.slice(0, cut))} + ${str("/" + tokens.slice(cut).join("/"))}`;
  }

  /** The module constant holding `file#/tokens…` (a multiple of LOCATION_CHUNK tokens). */
  private locationConstant(file: string, tokens: readonly string[]): string {
    const head = tokens.length - LOCATION_CHUNK;
    const initializer =
      head === 0
        ? str(formatLocation({ file, pointer: "/" + tokens.join("/") }))
        : `${this.locationConstant(file, tokens.slice(0, head))} + ${str("/" + tokens.slice(head).join("/"))}`;
    return this.scope.constant("SCHEMA_AT", initializer);
  }

  /** The schema location of a node's keyword, as an expression. */
  private schemaPath(node: Node, keyword?: string): string {
    const located = node.kind === "literal" && node.origin && keyword === node.keyword ? node.origin : undefined;
    const at = formatLocation(
      located ?? (keyword === undefined ? node.loc : { ...node.loc, pointer: appendPointer(node.loc.pointer, keyword) }),
    );
    if (at === this.base) {
      this.baseUsed = true;
      return "at";
    }
    if (at.startsWith(`${this.base}/`)) {
      this.baseUsed = true;
      return `at + ${str(at.slice(this.base.length))}`;
    }
    return str(at);
  }

  private report(path: string, keyword: string, message: string, node: Node, schemaKeyword?: string): string {
    return `${this.scope.runtime("report")}(errors, ${path}, ${str(keyword)}, ${message}, ${this.schemaPath(node, schemaKeyword)});`;
  }

  private typeError(path: string, expected: string, v: string, node: Node, schemaKeyword?: string): string {
    return this.unexpected(path, "type", expected, v, node, schemaKeyword);
  }

  private unexpected(path: string, keyword: string, expected: string, v: string, node: Node, schemaKeyword?: string): string {
    const at = this.schemaPath(node, schemaKeyword);
    return `${this.scope.runtime("unexpected")}(errors, ${path}, ${str(keyword)}, ${str(expected)}, ${v}, ${at});`;
  }

  private missing(path: string, name: string, node: Node): string {
    return `${this.scope.runtime("missing")}(errors, ${path}, ${str(name)}, ${this.schemaPath(node, "required")});`;
  }

  private conditions(conditions: readonly Condition[], path: string, node: Node): string[] {
    return conditions.map((c) => `if (${negate(c.test)}) ${this.report(path, c.keyword, c.message, node, c.keyword)}`);
  }

  /** How many schemas deep the code being built is nested inside its function. */
  private depth = 0;

  statements(node: Node, v: string, path: string, fn: FunctionScope, owner: string): string[] {
    if (this.depth >= MAX_INLINE_DEPTH && NESTING_KINDS.has(node.kind)) return [`${this.nestedCheck(node, owner)}(${v}, ${path}, errors);`];
    this.depth++;
    try {
      return this.inlineStatements(node, v, path, fn, owner);
    } finally {
      this.depth--;
    }
  }

  /**
   * A private `check…Part` function for a schema nested too deep to inline: it starts afresh
   * (its own `path` and `at`), so deep schemas give many small functions instead of code whose
   * indentation, path expressions and schema locations grow with depth (quadratic output, and
   * deep enough to overflow prettier's and TypeScript's stacks).
   */
  private nestedCheck(node: Node, owner: string): string {
    const name = this.scope.helperName(`$check${owner}Part`);
    const [base, baseUsed, depth] = [this.base, this.baseUsed, this.depth];
    this.depth = 0;
    const body = this.body(node, owner, node.loc);
    [this.base, this.baseUsed, this.depth] = [base, baseUsed, depth];
    const param = (p: string) => (mentions(body, p) ? p : `_${p}`);
    this.scope.helperFunctions.push(
      [`function ${name}(${param("value")}: unknown, ${param("path")}: string, ${param("errors")}: ${this.scope.runtime("ValidationError")}[]): void {`, ...indent(body), "}"].join("\n"),
    );
    return name;
  }

  private inlineStatements(node: Node, v: string, path: string, fn: FunctionScope, owner: string): string[] {
    switch (node.kind) {
      case "unknown":
        return [];
      case "never":
        return [this.report(path, "false", str("no value is allowed here"), node)];
      case "primitive": {
        const typeError = this.typeError(path, typeName(node.type), v, node, "type");
        const constraints = this.conditions(primitiveConditions(node, v, this.scope), path, node);
        return ifElse(negate(typeTest(node.type, v)), [typeError], constraints);
      }
      case "literal": {
        const c = literalCondition(node, v, this.scope);
        return [`if (${negate(c.test)}) ${this.unexpected(path, c.keyword, c.expected!, v, node, c.keyword)}`];
      }
      case "ref":
        return [`${this.checkName(node.target)}(${v}, ${path}, errors);`];
      case "object":
        return this.objectStatements(node, v, path, fn, owner);
      case "map":
        return this.mapStatements(node, v, path, fn, owner);
      case "array":
        return this.arrayStatements(node, v, path, fn, owner);
      case "union":
        return this.unionStatements(node, v, path, fn, owner);
      case "intersection": {
        if ((v !== "value" || path !== "path") && isHeavy(node)) return [this.ownFunction(node, v, path, owner)];
        // Each part checks the value on its own (no part relies on another's narrowing), so a long
        // `allOf` can be split into helpers that take the value as `unknown`.
        // When every part takes only objects, one type error says it all (and costs one check),
        // and a part written here as an object need not test again that the value is one.
        const objectsOnly = node.parts.every((part) => {
          const types = jsonTypes(part, this.model.byId);
          return types !== undefined && types.size === 1 && types.has("object");
        });
        const blocks = node.parts
          .map((part) => (objectsOnly && part.kind === "object" ? this.objectStatements(part, v, path, fn, owner, true) : this.statements(part, v, path, fn, owner)))
          .filter((b) => b.length > 0);
        const parts = this.split(blocks, v, path, objectsOnly ? this.scope.runtime("JsonObject") : "unknown", owner);
        // The type error points at the `type: "object"` of the first part that has one.
        const typed = node.parts.map((part) => this.objectTypeOwner(part)).find((owner) => owner !== undefined);
        const guard = typed ? this.objectGuard(v, path, typed) : this.typeError(path, "an object", v, node);
        return objectsOnly ? ifElse(`!${this.scope.runtime("isObject")}(${v})`, [guard], parts) : parts;
      }
      case "not":
        return [`if (${this.test.opaque(node.node, v, owner)}) ${this.report(path, "not", str("must not match the schema it is forbidden to match"), node)}`];
      case "conditional": {
        const then = node.then ? this.statements(node.then, v, path, fn, owner) : [];
        const otherwise = node.else ? this.statements(node.else, v, path, fn, owner) : [];
        return ifElse(this.test.opaque(node.if, v, owner), then, otherwise);
      }
    }
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

  private objectGuard(v: string, path: string, node: Node): string {
    return this.typeError(path, "an object", v, node, "type");
  }

  /** `knownObject`: the value is already known to be an object here (no type test to repeat). */
  private objectStatements(node: ObjectNode, v: string, path: string, fn: FunctionScope, owner: string, knownObject = false): string[] {
    // A big object nested in another's code gets a function of its own, where its checks are
    // written for `value` and `path` and can be split further (see `split`).
    if ((v !== "value" || path !== "path") && isHeavy(node)) return [this.ownFunction(node, v, path, owner)];
    const blocks: string[][] = [];
    for (const property of node.properties) {
      const x = fn.local("value");
      const childPath = `${path} + ${str("/" + escapeToken(property.name))}`;
      const inner = this.statements(property.node, x, childPath, fn, owner);
      if (!property.required && inner.length === 0) continue; // nothing to check: no need to read it
      const block = [`const ${x} = ${propertyAccess(v, property.name, this.scope)};`];
      if (property.required) {
        block.push(...ifElse(`${x} === undefined`, [this.missing(path, property.name, node)], inner));
      } else if (inner.length) {
        block.push(...ifElse(`${x} !== undefined`, inner, []));
      }
      blocks.push(block);
    }
    for (const name of node.requiredOnly) {
      blocks.push([`if (${propertyAccess(v, name, this.scope)} === undefined) ${this.missing(path, name, node)}`]);
    }
    blocks.push(this.keyLoop(node, v, path, fn, owner));
    blocks.push(this.conditions(objectSizeConditions(node, v), path, node));
    for (const dependency of node.dependentRequired) {
      const present = `${propertyAccess(v, dependency.name, this.scope)} !== undefined`;
      const checks = dependency.requires.map((r) => {
        const message = str(`missing property "${r}", required when "${dependency.name}" is present`);
        return `if (${propertyAccess(v, r, this.scope)} === undefined) ${this.report(`${path} + ${str("/" + escapeToken(r))}`, "dependentRequired", message, node)}`;
      });
      if (checks.length) blocks.push(ifElse(present, checks, []));
    }
    for (const dependency of node.dependentSchemas) {
      const present = `${propertyAccess(v, dependency.name, this.scope)} !== undefined`;
      blocks.push(ifElse(present, this.statements(dependency.node, v, path, fn, owner), []));
    }
    const body = this.split(blocks.filter((b) => b.length > 0), v, path, this.scope.runtime("JsonObject"), owner);
    return knownObject ? body : ifElse(`!${this.scope.runtime("isObject")}(${v})`, [this.objectGuard(v, path, node)], body);
  }

  /** A call to a private function checking `node` (its body written for `value` and `path`). */
  private ownFunction(node: Node, v: string, path: string, owner: string): string {
    const name = this.privateCheck(owner, this.statements(node, "value", "path", new FunctionScope(), owner), "unknown");
    return `${name}(${v}, ${path}, errors);`;
  }

  /**
   * A private `(value, path, errors)` function with the given body, returning its name. The body
   * may use the definition's schema location `at`: the function then declares it too.
   */
  private privateCheck(owner: string, body: readonly string[], type: string): string {
    const name = this.scope.helperName(`$check${owner}Part`);
    const param = (p: string) => (mentions(body, p) ? p : `_${p}`);
    const at = mentions(body, "at") ? [`const at = ${str(this.base)};`] : [];
    this.scope.helperFunctions.push(
      [
        `function ${name}(${param("value")}: ${type}, ${param("path")}: string, ${param("errors")}: ${this.scope.runtime("ValidationError")}[]): void {`,
        ...indent([...at, ...body]),
        "}",
      ].join("\n"),
    );
    return name;
  }

  /**
   * Statement blocks (each reading only `v`, `path`, `errors`, `at` and its own locals), inline
   * when they are small enough for one function, else grouped into helper functions. Blocks can
   * move only when written for the parameters themselves (`ownFunction` sees to that for big ones).
   */
  private split(blocks: readonly (readonly string[])[], v: string, path: string, type: string, owner: string): string[] {
    const all = blocks.flat();
    if (codeWeight(all) <= MAX_FUNCTION_WEIGHT || v !== "value" || path !== "path") return all;
    return chunkByWeight(blocks, codeWeight).map((group) => `${this.privateCheck(owner, group.flat(), type)}(value, path, errors);`);
  }

  private keyLoop(node: ObjectNode, v: string, path: string, fn: FunctionScope, owner: string): string[] {
    const additional = node.additional && node.additional.kind !== "unknown" ? node.additional : undefined;
    const names = node.propertyNames && node.propertyNames.kind !== "unknown" ? node.propertyNames : undefined;
    if (!additional && !names && node.patternProperties.length === 0) return [];
    const key = fn.local("key");
    const item = fn.local("item");
    const keyPath = `${path} + "/" + ${this.scope.runtime("pointerToken")}(${key})`;
    const body: string[] = [`const ${item} = ${v}[${key}];`];
    if (names) {
      const message = `${str("property name ")} + JSON.stringify(${key}) + ${str(" is not allowed")}`;
      body.push(`if (!${this.test.opaque(names, key, owner)}) ${this.report(keyPath, "propertyNames", message, node, "propertyNames")}`);
    }
    const matched = node.patternProperties.length > 0 && additional ? fn.local("matched") : undefined;
    if (matched) body.push(`let ${matched} = false;`);
    for (const pattern of node.patternProperties) {
      const re = this.scope.constant("PATTERN", `new RegExp(${JSON.stringify(pattern.pattern)}, "u")`);
      const inner = [...(matched ? [`${matched} = true;`] : []), ...this.statements(pattern.node, item, keyPath, fn, owner)];
      if (inner.length) body.push(...ifElse(`${re}.test(${key})`, inner, []));
    }
    if (additional) {
      const known = knownKeyTest(node, key, this.scope);
      const unmatched = [...(known ? [`!${known}`] : []), ...(matched ? [`!${matched}`] : [])];
      const inner =
        additional.kind === "never"
          ? [this.report(keyPath, "additionalProperties", `${str("unexpected property ")} + JSON.stringify(${key})`, node, "additionalProperties")]
          : this.statements(additional, item, keyPath, fn, owner);
      body.push(...(unmatched.length ? ifElse(unmatched.join(" && "), inner, []) : inner));
    }
    const checks = mentions(body.slice(1), item) ? body : body.slice(1);
    if (checks.length === 0) return [];
    return [`for (const ${key} in ${v}) {`, ...indent(checks), "}"];
  }

  private mapStatements(node: MapNode, v: string, path: string, fn: FunctionScope, owner: string): string[] {
    const key = fn.local("key");
    const item = fn.local("item");
    const keyPath = `${path} + "/" + ${this.scope.runtime("pointerToken")}(${key})`;
    const loop: string[] = [];
    if (node.keys && node.keys.kind !== "unknown") {
      const message = `${str("property name ")} + JSON.stringify(${key}) + ${str(" is not allowed")}`;
      loop.push(`if (!${this.test.opaque(node.keys, key, owner)}) ${this.report(keyPath, "propertyNames", message, node, "propertyNames")}`);
    }
    const inner = this.statements(node.values, item, keyPath, fn, owner);
    const readsItem = mentions(inner, item);
    if (inner.length) loop.push(...(readsItem ? [`const ${item} = ${v}[${key}];`] : []), ...inner);
    const body = [
      ...(loop.length ? [`for (const ${key} in ${v}) {`, ...indent(loop), "}"] : []),
      ...this.conditions(objectSizeConditions(node, v), path, node),
    ];
    return ifElse(`!${this.scope.runtime("isObject")}(${v})`, [this.objectGuard(v, path, node)], body);
  }

  private arrayStatements(node: ArrayNode, v: string, path: string, fn: FunctionScope, owner: string): string[] {
    const body = this.conditions(arrayConditions(node, v, this.scope), path, node);
    // An item is bound to a name only when its checks read it (`items: false` reports without reading).
    const bind = (x: string, item: string, inner: readonly string[]) => (mentions(inner, x) ? [`const ${x} = ${item};`, ...inner] : inner);
    node.prefixItems.forEach((item, i) => {
      const x = fn.local("item");
      const inner = this.statements(item, x, `${path} + "/${i}"`, fn, owner);
      if (inner.length) body.push(...ifElse(`${v}.length > ${i}`, bind(x, `${v}[${i}]`, inner), []));
    });
    if (node.items && node.items.kind !== "unknown") {
      const i = fn.local("i");
      const x = fn.local("item");
      const inner = this.statements(node.items, x, `${path} + "/" + ${i}`, fn, owner);
      if (inner.length) body.push(`for (let ${i} = ${node.prefixItems.length}; ${i} < ${v}.length; ${i}++) {`, ...indent(bind(x, `${v}[${i}]`, inner)), "}");
    }
    if (node.contains) {
      const { min, max } = containsBounds(node);
      if (min > 0 || max !== undefined) {
        const count = fn.local("found");
        const item = fn.local("item");
        const test = this.test.opaque(node.contains, item, owner);
        if (test === "true") body.push(`const ${count} = ${v}.length;`);
        else body.push(`let ${count} = 0;`, `for (const ${item} of ${v}) if (${test}) ${count}++;`);
        if (min > 0) body.push(`if (${count} < ${min}) ${this.report(path, min === 1 && node.minContains === undefined ? "contains" : "minContains", str(`must contain at least ${min} matching item${min === 1 ? "" : "s"}`), node, "contains")}`);
        if (max !== undefined) body.push(`if (${count} > ${max}) ${this.report(path, "maxContains", str(`must contain at most ${max} matching item${max === 1 ? "" : "s"}`), node, "maxContains")}`);
      }
    }
    return ifElse(`!Array.isArray(${v})`, [this.typeError(path, "an array", v, node, "type")], body);
  }

  private unionStatements(node: UnionNode, v: string, path: string, fn: FunctionScope, owner: string): string[] {
    if (node.discriminator) return this.discriminated(node, v, path, fn, owner);
    // A variant that takes anything makes an `anyOf` take anything (a placeholder union).
    if (!node.exclusive && node.variants.some((variant) => variant.kind === "unknown")) return [];
    const keyword = node.exclusive ? "oneOf" : "anyOf";
    // A union too big for one function is decided by the boolean mode's helpers, which split it.
    const heavy = node.variants.length > MAX_OPERANDS || isHeavy(node);
    if (!node.exclusive) {
      const test = heavy ? this.test.opaque(node, v, owner) : `(${node.variants.map((variant) => this.test.opaque(variant, v, owner)).join(" || ")})`;
      return ifElse(`!${test}`, this.explainNoMatch(node, v, path, fn, owner, keyword), []);
    }
    const count = fn.local("matches");
    const counting = heavy
      ? [`const ${count} = ${this.test.matchCount(node, v, owner)};`]
      : [`let ${count} = 0;`, ...node.variants.map((variant) => `if (${this.test.opaque(variant, v, owner)}) ${count}++;`)];
    const explain = this.explainNoMatch(node, v, path, fn, owner, keyword);
    const many = this.report(path, "oneOf", `${str("must match exactly one of the allowed schemas, but matches ")} + ${count}`, node);
    return [...counting, ...ifElse(`${count} === 0`, explain, [`if (${count} > 1) ${many}`])];
  }

  /**
   * Errors for a value no variant accepts. When the variants take distinct JSON types, the one
   * for the value's type explains best (its own errors); otherwise one error for the union.
   */
  private explainNoMatch(node: UnionNode, v: string, path: string, fn: FunctionScope, owner: string, keyword: string): string[] {
    const types = node.variants.map((variant) => jsonTypes(variant, this.model.byId));
    const disjoint =
      types.every((t) => t !== undefined && t.size > 0) &&
      types.every((t, i) => types.every((u, j) => i === j || !runtimeTypesOverlap(t!, u!)));
    if (!disjoint) {
      return [this.report(path, keyword, str(`must match ${node.exclusive ? "exactly" : "at least"} one of the ${node.variants.length} allowed schemas`), node)];
    }
    const isObject = this.scope.runtime("isObject");
    const all = new Set(types.flatMap((t) => [...t!]));
    let code = [this.typeError(path, describeTypes(all, "prose"), v, node)];
    for (let i = node.variants.length - 1; i >= 0; i--) {
      const runtime = runtimeTypes(types[i]!);
      code = ifElse(`${this.test.opaqueGuard(typeGuard(runtime, "value", isObject), v, owner, guardName(runtime))}`, this.statements(node.variants[i]!, v, path, fn, owner), code);
    }
    return code;
  }

  private discriminated(node: UnionNode, v: string, path: string, fn: FunctionScope, owner: string): string[] {
    const discriminator = node.discriminator!;
    const tag = fn.local("tag");
    const tagPath = `${path} + ${str("/" + escapeToken(discriminator.property))}`;
    const allowed = discriminator.cases.flatMap((c) => c.values.map((value) => JSON.stringify(value))).join(" | ");
    const body = [`const ${tag} = ${propertyAccess(v, discriminator.property, this.scope)};`, `switch (${tag}) {`];
    for (const c of discriminator.cases) {
      for (const value of c.values) body.push(`  case ${literal(value)}:`);
      body.push(...indent(indent(this.statements(node.variants[c.variant]!, v, path, fn, owner))), "    break;");
    }
    const missing = `${this.scope.runtime("missing")}(errors, ${path}, ${str(discriminator.property)}, ${this.schemaPath(node)});`;
    const unknown = this.unexpected(tagPath, "discriminator", `one of ${allowed}`, tag, node);
    body.push("  default:", ...indent(indent(ifElse(`${tag} === undefined`, [missing], [unknown]))), "}");
    return ifElse(`!${this.scope.runtime("isObject")}(${v})`, [this.typeError(path, "an object", v, node)], body);
  }
}

/** How many pointer tokens of a schema location a check function spells out (see locationExpression). */
const LOCATION_CHUNK = 32;

/** Schemas nested deeper than this inside one check function move to a function of their own. */
const MAX_INLINE_DEPTH = 8;

/** Node kinds whose code nests the code of other schemas. */
const NESTING_KINDS = new Set<Node["kind"]>(["object", "map", "array", "union", "intersection", "conditional"]);

/**
 * `if (test) { then } else { otherwise }`, without empty branches, and without braces around a
 * branch that is one simple statement (an `else` chain reads better than nested blocks).
 */
function ifElse(test: string, then: readonly string[], otherwise: readonly string[]): string[] {
  if (then.length === 0 && otherwise.length === 0) return [];
  if (then.length === 0) return ifElse(negate(test), otherwise, []);
  const simpleThen = isSimple(then);
  if (otherwise.length === 0) return simpleThen ? [`if (${test}) ${then[0]}`] : [`if (${test}) {`, ...indent(then), "}"];
  const head = simpleThen ? [`if (${test}) ${then[0]}`] : [`if (${test}) {`, ...indent(then), "}"];
  const chained = otherwise[0]!.startsWith("if (") && isChain(otherwise);
  if (chained) return simpleThen ? [...head, `else ${otherwise[0]}`, ...otherwise.slice(1)] : [...head.slice(0, -1), `} else ${otherwise[0]}`, ...otherwise.slice(1)];
  if (isSimple(otherwise)) return simpleThen ? [...head, `else ${otherwise[0]}`] : [...head.slice(0, -1), "} else {", ...indent(otherwise), "}"];
  return simpleThen ? [...head, "else {", ...indent(otherwise), "}"] : [...head.slice(0, -1), "} else {", ...indent(otherwise), "}"];
}

/**
 * One statement that can stand as a branch without braces: not an `if` (it would capture a
 * following `else`), not a loop, not a declaration (not allowed there).
 */
function isSimple(lines: readonly string[]): boolean {
  return lines.length === 1 && !/^(if|for|const|let|var|function|class)\b/.test(lines[0]!) && lines[0]!.endsWith(";");
}

/** A complete if/else-if chain produced by ifElse (so it can follow an `else`). */
function isChain(lines: readonly string[]): boolean {
  let depth = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const atTop = depth === 0;
    if (atTop && i > 0 && !/^(else\b|\} else\b)/.test(line)) return false;
    for (const c of line) {
      if (c === "{") depth++;
      else if (c === "}") depth--;
    }
  }
  return depth === 0;
}
