/**
 * Validator code as a small syntax tree (after ajv's lib/compile/codegen): expressions (conditions,
 * negation, `&&`/`||`, calls, comparisons) and statements (`if`, `return`, loops, `const`, blocks).
 * The emitters build nodes; rewriting (negation, De Morgan, folding known conditions), measuring
 * (weight, see `weight`), renaming (`substitute`) and finding what a piece of code reads (`namesOf`)
 * work on nodes, and print.ts turns them into text once. Nothing is parsed back from text.
 *
 * Names: a `string` is a fixed identifier (a parameter such as `value`, `path`, `errors`, `at`, or a
 * module-level name: `$isX`, `$rt.isObject`, `isTask`); a `Local` is a local variable whose
 * number is given when its function is printed (`value1`, `key2`), so that code built for one
 * function can be inlined into another without clashes. Code for a schema is built for the
 * parameters `value` and `path`, and placed elsewhere by substituting them (`substitute`).
 *
 * Annotation tracking (unevaluatedProperties/Items) can be added as statements over locals of its
 * own (a `let` of evaluated keys and `assign`s), which every pass here already handles.
 */
import type { SourceLocation } from "../../../diagnostics.js";

/** A local variable; its name is `hint` + a number given at print time, in order of declaration. */
export class Local {
  constructor(readonly hint: string) {}
}

export type Name = string | Local;

export type Expr =
  | { readonly kind: "bool"; readonly value: boolean }
  /** An identifier: a fixed name or a local. */
  | { readonly kind: "id"; readonly name: Name }
  /** A literal as written (a JSON string, a number). */
  | { readonly kind: "literal"; readonly text: string }
  /** Code taken as it is, as an operand that needs no parentheses (a module constant's `new Set(…)`). */
  | { readonly kind: "raw"; readonly text: string; readonly names: readonly string[] }
  /** A schema location, written relative to the function's own `at` when it lies under it. */
  | { readonly kind: "location"; readonly at: string }
  /** `object.property`, or `object?.property` when `optional`. */
  | { readonly kind: "member"; readonly object: Expr; readonly property: string; readonly optional?: boolean }
  /** `operand as type`: TypeScript only, gone in JavaScript. */
  | { readonly kind: "as"; readonly operand: Expr; readonly type: string }
  | { readonly kind: "index"; readonly object: Expr; readonly index: Expr }
  | { readonly kind: "call"; readonly callee: Expr; readonly args: readonly Expr[] }
  | { readonly kind: "typeof"; readonly operand: Expr }
  | { readonly kind: "compare"; readonly op: CompareOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: "plus"; readonly operands: readonly Expr[] }
  | { readonly kind: "not"; readonly operand: Expr }
  | { readonly kind: "logic"; readonly op: "&&" | "||"; readonly operands: readonly Expr[] }
  | { readonly kind: "conditional"; readonly test: Expr; readonly then: Expr; readonly otherwise: Expr }
  | { readonly kind: "arrow"; readonly param: string; readonly body: Expr };

export type CompareOp = "===" | "!==" | "<" | "<=" | ">" | ">=";

export type Stmt =
  | { readonly kind: "expr"; readonly expr: Expr }
  | { readonly kind: "return"; readonly expr: Expr }
  | { readonly kind: "const" | "let"; readonly name: Name; readonly init: Expr }
  | { readonly kind: "assign"; readonly name: Name; readonly value: Expr }
  | { readonly kind: "increment"; readonly name: Name }
  | { readonly kind: "if"; readonly test: Expr; readonly then: readonly Stmt[]; readonly otherwise: readonly Stmt[] }
  | { readonly kind: "forIn"; readonly key: Name; readonly object: Expr; readonly body: readonly Stmt[] }
  | { readonly kind: "forOf"; readonly item: Name; readonly iterable: Expr; readonly body: readonly Stmt[] }
  | { readonly kind: "forRange"; readonly index: Name; readonly from: number; readonly to: Expr; readonly body: readonly Stmt[] }
  | { readonly kind: "switch"; readonly on: Expr; readonly cases: readonly SwitchCase[]; readonly otherwise: readonly Stmt[] }
  /** `try { body } catch { handler }` (the exported entries only: what a hostile value throws stops there). */
  | { readonly kind: "try"; readonly body: readonly Stmt[]; readonly handler: readonly Stmt[] }
  | { readonly kind: "break" };

export interface SwitchCase {
  readonly tests: readonly Expr[];
  readonly body: readonly Stmt[];
}

/** A module-level function. Parameters the body never reads are written `_name` (`noUnusedParameters`). */
export interface FunctionDecl {
  readonly name: string;
  readonly doc?: string;
  readonly exported?: boolean;
  /** `optional`: the caller may leave it out (`name?: type`). */
  readonly params: readonly { readonly name: string; readonly type: string; readonly optional?: boolean }[];
  readonly returns: string;
  readonly body: readonly Stmt[];
  /** The schema location `at` stands for in this function (see the `location` expression). */
  readonly at?: string | undefined;
}

// ---- expressions ----

export const TRUE: Expr = { kind: "bool", value: true };
export const FALSE: Expr = { kind: "bool", value: false };

export const id = (name: Name): Expr => ({ kind: "id", name });
export const literal = (text: string): Expr => ({ kind: "literal", text });
export const str = (text: string): Expr => literal(JSON.stringify(text));
export const raw = (text: string, names: readonly string[] = []): Expr => ({ kind: "raw", text, names });
export const location = (at: string): Expr => ({ kind: "location", at });
export const member = (object: Expr, property: string): Expr => ({ kind: "member", object, property });
export const optionalMember = (object: Expr, property: string): Expr => ({ kind: "member", object, property, optional: true });
export const as = (operand: Expr, type: string): Expr => ({ kind: "as", operand, type });
export const index = (object: Expr, i: Expr): Expr => ({ kind: "index", object, index: i });
export const call = (callee: Expr | string, ...args: Expr[]): Expr => ({ kind: "call", callee: typeof callee === "string" ? id(callee) : callee, args });
export const typeOf = (operand: Expr): Expr => ({ kind: "typeof", operand });
export const compare = (left: Expr, op: CompareOp, right: Expr): Expr => ({ kind: "compare", op, left, right });
export const arrow = (param: string, body: Expr): Expr => ({ kind: "arrow", param, body });
export const conditional = (test: Expr, then: Expr, otherwise: Expr): Expr => ({ kind: "conditional", test, then, otherwise });
export const isTrue = (e: Expr): boolean => e.kind === "bool" && e.value;
export const isFalse = (e: Expr): boolean => e.kind === "bool" && !e.value;

/**
 * `a + b + …` (string concatenation or a sum), flattened, with adjacent string literals joined
 * (`path + "/a" + "/b"` → `path + "/a/b"`: once one operand is a string, so is every partial sum).
 */
export function plus(...operands: Expr[]): Expr {
  const flat: Expr[] = [];
  for (const o of operands.flatMap((o) => (o.kind === "plus" ? o.operands : [o]))) {
    const last = flat[flat.length - 1];
    if (last && isStringLiteral(last) && isStringLiteral(o)) {
      flat[flat.length - 1] = literal(JSON.stringify((JSON.parse(last.text) as string) + (JSON.parse(o.text) as string)));
    } else flat.push(o);
  }
  return flat.length === 1 ? flat[0]! : { kind: "plus", operands: flat };
}

function isStringLiteral(e: Expr): e is Extract<Expr, { kind: "literal" }> {
  return e.kind === "literal" && e.text.startsWith('"');
}

/** `a && b && …`, folding known operands and flattening nested `&&`. */
export function and(...operands: Expr[]): Expr {
  return logic("&&", operands);
}

/** `a || b || …`, folding known operands and flattening nested `||`. */
export function or(...operands: Expr[]): Expr {
  return logic("||", operands);
}

function logic(op: "&&" | "||", operands: readonly Expr[]): Expr {
  const absorbing = op === "||"; // `true || …` is true, `false && …` is false
  const out: Expr[] = [];
  for (const operand of operands) {
    if (operand.kind === "bool") {
      if (operand.value === absorbing) return operand;
      continue;
    }
    if (operand.kind === "logic" && operand.op === op) out.push(...operand.operands);
    else out.push(operand);
  }
  if (out.length === 0) return { kind: "bool", value: !absorbing };
  return out.length === 1 ? out[0]! : { kind: "logic", op, operands: out };
}

/**
 * The negation of a condition as a person writes it: known values flipped, `!x` → `x`,
 * `a === b` → `a !== b`; anything else `!(…)` (a call or name without parentheses).
 */
export function not(e: Expr): Expr {
  return plainNegation(e) ?? { kind: "not", operand: e };
}

/** The negation of a condition that has one obvious form, or undefined. */
function plainNegation(e: Expr): Expr | undefined {
  if (e.kind === "bool") return { kind: "bool", value: !e.value };
  if (e.kind === "not") return e.operand;
  if (e.kind === "compare" && (e.op === "===" || e.op === "!==")) return { ...e, op: e.op === "===" ? "!==" : "===" };
  return undefined;
}

/**
 * The condition that holds when `failed` does not, written plainly: a plain negation when there is
 * one, else De Morgan's rule over `&&`/`||` when every operand has a plain negation
 * (`v !== undefined && !isY(v)` → `v === undefined || isY(v)`), else `!(failed)`.
 */
export function passes(failed: Expr): Expr {
  const simple = plainNegation(failed);
  if (simple) return simple;
  if (failed.kind === "logic") {
    const negated = failed.operands.map((o) => plainNegation(o) ?? (o.kind === "call" || o.kind === "id" ? not(o) : undefined));
    if (negated.every((n) => n !== undefined)) return logic(failed.op === "&&" ? "||" : "&&", negated);
  }
  return not(failed);
}

// ---- statements ----

export const exprStmt = (expr: Expr): Stmt => ({ kind: "expr", expr });
export const ret = (expr: Expr): Stmt => ({ kind: "return", expr });
export const constant = (name: Name, init: Expr): Stmt => ({ kind: "const", name, init });
export const letVar = (name: Name, init: Expr): Stmt => ({ kind: "let", name, init });
export const assign = (name: Name, value: Expr): Stmt => ({ kind: "assign", name, value });
export const increment = (name: Name): Stmt => ({ kind: "increment", name });
export const forIn = (key: Name, object: Expr, body: readonly Stmt[]): Stmt => ({ kind: "forIn", key, object, body });
export const forOf = (item: Name, iterable: Expr, body: readonly Stmt[]): Stmt => ({ kind: "forOf", item, iterable, body });
export const forRange = (i: Name, from: number, to: Expr, body: readonly Stmt[]): Stmt => ({ kind: "forRange", index: i, from, to, body });
export const switchOn = (on: Expr, cases: readonly SwitchCase[], otherwise: readonly Stmt[]): Stmt => ({ kind: "switch", on, cases, otherwise });
export const tryCatch = (body: readonly Stmt[], handler: readonly Stmt[]): Stmt => ({ kind: "try", body, handler });
export const BREAK: Stmt = { kind: "break" };
export const RETURN_FALSE: Stmt = ret(FALSE);
export const RETURN_TRUE: Stmt = ret(TRUE);

/**
 * `if (test) then else otherwise`, without empty branches: a known test keeps its branch only, an
 * empty `then` turns the test around.
 */
export function ifElse(test: Expr, then: readonly Stmt[], otherwise: readonly Stmt[] = []): Stmt[] {
  if (isTrue(test)) return [...then];
  if (isFalse(test)) return [...otherwise];
  if (then.length === 0 && otherwise.length === 0) return [];
  if (then.length === 0) return ifElse(not(test), otherwise, []);
  return [{ kind: "if", test, then, otherwise }];
}

/** `if (failed) return false;`, folding a condition known in advance. */
export function failIf(failed: Expr): Stmt[] {
  return ifElse(failed, [RETURN_FALSE]);
}

/**
 * A boolean function's body as a person writes it: `if (failed) return false; return true;` ends
 * in `return !failed;` (turned around plainly, see `passes`).
 */
export function returningTheLastTest(body: readonly Stmt[]): Stmt[] {
  const last = body[body.length - 1];
  const test = body[body.length - 2];
  // After a return that always happens (a schema that is `false`: `return false;`), the closing
  // `return true;` is unreachable code, an error under `allowUnreachableCode: false`.
  if (last && isReturnOf(last, true) && test?.kind === "return") return body.slice(0, -1);
  if (!last || !isReturnOf(last, true) || !test || test.kind !== "if" || test.otherwise.length > 0) return [...body];
  if (test.then.length !== 1 || !isReturnOf(test.then[0]!, false)) return [...body];
  return [...body.slice(0, -2), ret(passes(test.test))];
}

function isReturnOf(s: Stmt, value: boolean): boolean {
  return s.kind === "return" && s.expr.kind === "bool" && s.expr.value === value;
}

// ---- measuring ----

/**
 * How heavy code is for TypeScript's control-flow analysis and for prettier: one per statement, one
 * per condition (each operand of `&&`/`||`, each `case`), and more for long concatenations (see
 * `longConcatenations`). The one splitting rule: no function body weighs more than
 * MAX_FUNCTION_WEIGHT (see size.ts). Deep code is heavy too (every level is a few statements, and
 * its error paths grow), so the same rule bounds nesting within one function.
 */
export function weight(code: Stmt | readonly Stmt[]): number {
  if (isStmtList(code)) {
    let sum = 0;
    for (const s of code) sum += weight(s);
    return sum;
  }
  const s = code;
  switch (s.kind) {
    case "expr":
    case "return":
      return 1 + conditions(s.expr) + longConcatenations(s.expr);
    case "const":
    case "let":
    case "assign":
      return 1 + conditions(s.kind === "assign" ? s.value : s.init);
    case "increment":
    case "break":
      return 1;
    case "if":
      return 1 + Math.max(1, conditions(s.test)) + weight(s.then) + weight(s.otherwise);
    case "forIn":
    case "forOf":
    case "forRange":
      return 1 + weight(s.body);
    case "switch":
      return 1 + s.cases.reduce((sum, c) => sum + c.tests.length + weight(c.body), 0) + weight(s.otherwise);
    case "try":
      return 1 + weight(s.body) + weight(s.handler);
  }
}

function isStmtList(code: Stmt | readonly Stmt[]): code is readonly Stmt[] {
  return Array.isArray(code);
}

/**
 * Two for each piece of a concatenation past CONCATENATION_PIECES (an error path nested in loops,
 * `path + "/" + i1 + "/" + i3 + …`): code nested deep in one function writes ever longer paths, so
 * its weight grows with the square of its depth and the one splitting rule bounds depth as well as size.
 */
function longConcatenations(e: Expr): number {
  let sum = 0;
  const visit = (node: Expr | Stmt): void => {
    if (node.kind === "plus") sum += 2 * Math.max(0, node.operands.length - CONCATENATION_PIECES);
    forEachChild(node, visit, () => {});
  };
  visit(e);
  return sum;
}

const CONCATENATION_PIECES = 3;

/** How many conditions an expression joins (`a && (b || c)`: 3). */
export function conditions(e: Expr): number {
  switch (e.kind) {
    case "logic":
      return e.operands.reduce((sum, o) => sum + Math.max(1, conditions(o)), 0);
    case "not":
      return conditions(e.operand);
    case "conditional":
      return Math.max(1, conditions(e.test)) + conditions(e.then) + conditions(e.otherwise);
    default:
      return 0;
  }
}

// ---- names ----

/** The fixed names code reads (parameters, module-level names; not locals), each once. */
export function namesOf(code: Expr | Stmt | readonly (Expr | Stmt)[]): Set<string> {
  const names = new Set<string>();
  const visit = (node: Expr | Stmt): void => {
    forEachChild(node, visit, (name) => {
      if (typeof name === "string") names.add(name);
    });
  };
  if (Array.isArray(code)) code.forEach(visit);
  else visit(code as Expr | Stmt);
  return names;
}

/** Whether code reads or declares a local. */
export function mentionsLocal(code: Expr | Stmt | readonly (Expr | Stmt)[], local: Local): boolean {
  let found = false;
  const visit = (node: Expr | Stmt): void => {
    if (!found) forEachChild(node, visit, (name) => (found ||= name === local));
  };
  if (Array.isArray(code)) code.forEach(visit);
  else visit(code as Expr | Stmt);
  return found;
}

/** Every schema location code writes (to know whether its function needs `at`). */
export function locationsOf(code: readonly Stmt[]): string[] {
  const out: string[] = [];
  const visit = (node: Expr | Stmt): void => {
    if (node.kind === "location") out.push(node.at);
    forEachChild(node, visit, () => {});
  };
  code.forEach(visit);
  return out;
}

function forEachChild(node: Expr | Stmt, visit: (n: Expr | Stmt) => void, name: (n: Name) => void): void {
  switch (node.kind) {
    case "id":
      name(node.name);
      return;
    case "raw":
      node.names.forEach(name);
      return;
    case "bool":
    case "literal":
    case "location":
    case "break":
      return;
    case "member":
      visit(node.object);
      return;
    case "index":
      visit(node.object);
      visit(node.index);
      return;
    case "call":
      visit(node.callee);
      node.args.forEach(visit);
      return;
    case "typeof":
    case "not":
    case "as":
      visit(node.operand);
      return;
    case "compare":
      visit(node.left);
      visit(node.right);
      return;
    case "plus":
    case "logic":
      node.operands.forEach(visit);
      return;
    case "conditional":
      visit(node.test);
      visit(node.then);
      visit(node.otherwise);
      return;
    case "arrow":
      visit(node.body); // its parameter shadows nothing the caller asks about (names are `v`)
      return;
    case "expr":
    case "return":
      visit(node.expr);
      return;
    case "const":
    case "let":
      name(node.name);
      visit(node.init);
      return;
    case "assign":
      name(node.name);
      visit(node.value);
      return;
    case "increment":
      name(node.name);
      return;
    case "if":
      visit(node.test);
      node.then.forEach(visit);
      node.otherwise.forEach(visit);
      return;
    case "forIn":
      name(node.key);
      visit(node.object);
      node.body.forEach(visit);
      return;
    case "forOf":
      name(node.item);
      visit(node.iterable);
      node.body.forEach(visit);
      return;
    case "forRange":
      name(node.index);
      visit(node.to);
      node.body.forEach(visit);
      return;
    case "switch":
      visit(node.on);
      for (const c of node.cases) {
        c.tests.forEach(visit);
        c.body.forEach(visit);
      }
      node.otherwise.forEach(visit);
      return;
    case "try":
      node.body.forEach(visit);
      node.handler.forEach(visit);
      return;
  }
}

// ---- renaming ----

/** Code with fixed names replaced by expressions (`value` → `value1`, `path` → `path + "/a"`). */
export function substitute<T extends Expr | Stmt>(node: T, by: ReadonlyMap<string, Expr>): T {
  return rewrite(node, by) as T;
}

export function substituteAll(code: readonly Stmt[], by: ReadonlyMap<string, Expr>): Stmt[] {
  return code.map((s) => rewrite(s, by) as Stmt);
}

function rewrite(node: Expr | Stmt, by: ReadonlyMap<string, Expr>): Expr | Stmt {
  const e = (x: Expr) => rewrite(x, by) as Expr;
  const ss = (xs: readonly Stmt[]) => xs.map((x) => rewrite(x, by) as Stmt);
  switch (node.kind) {
    case "id":
      return typeof node.name === "string" ? (by.get(node.name) ?? node) : node;
    case "bool":
    case "literal":
    case "raw":
    case "location":
    case "break":
    case "increment":
      return node;
    case "member":
      return { ...node, object: e(node.object) };
    case "index":
      return { ...node, object: e(node.object), index: e(node.index) };
    case "call":
      return { ...node, callee: e(node.callee), args: node.args.map(e) };
    case "typeof":
    case "not":
    case "as":
      return { ...node, operand: e(node.operand) };
    case "compare":
      return { ...node, left: e(node.left), right: e(node.right) };
    case "plus":
      return plus(...node.operands.map(e));
    case "logic":
      return { ...node, operands: node.operands.map(e) };
    case "conditional":
      return { ...node, test: e(node.test), then: e(node.then), otherwise: e(node.otherwise) };
    case "arrow":
      return { ...node, body: e(node.body) };
    case "expr":
    case "return":
      return { ...node, expr: e(node.expr) };
    case "const":
    case "let":
      return { ...node, init: e(node.init) };
    case "assign":
      return { ...node, value: e(node.value) };
    case "if":
      return { ...node, test: e(node.test), then: ss(node.then), otherwise: ss(node.otherwise) };
    case "forIn":
      return { ...node, object: e(node.object), body: ss(node.body) };
    case "forOf":
      return { ...node, iterable: e(node.iterable), body: ss(node.body) };
    case "forRange":
      return { ...node, to: e(node.to), body: ss(node.body) };
    case "switch":
      return { ...node, on: e(node.on), cases: node.cases.map((c) => ({ tests: c.tests.map(e), body: ss(c.body) })), otherwise: ss(node.otherwise) };
    case "try":
      return { ...node, body: ss(node.body), handler: ss(node.handler) };
  }
}

/** The schema location as `file#/pointer` (see diagnostics.ts formatLocation), for `location`. */
export type { SourceLocation };
