/**
 * Printing the syntax tree of nodes.ts as TypeScript, the way the emitters used to write it by
 * hand: parentheses only where precedence needs them (and around `&&` inside `||`, as prettier
 * writes it), a branch of one simple statement without braces, `else if` chains, loops always in
 * braces. Locals get their numbers here, in order of declaration within each function. prettier
 * formats the result (generator/output); this decides only what prettier keeps as written.
 */
import { Local, namesOf, type Expr, type FunctionDecl, type Name, type Stmt } from "./nodes.js";

/** A function as text (its JSDoc, if any, above it). */
export function printFunction(fn: FunctionDecl): string {
  const used = namesOf(fn.body);
  const params = fn.params.map((p) => `${paramName(p.name, used)}${p.optional ? "?" : ""}: ${p.type}`).join(", ");
  const printer = new Printer(fn.at);
  const lines = printer.statements(fn.body, 1);
  return [
    ...(fn.doc ? [`/** ${fn.doc} */`] : []),
    `${fn.exported ? "export " : ""}function ${fn.name}(${params}): ${fn.returns} {`,
    ...lines,
    "}",
  ].join("\n");
}

/** A parameter's name as declared: `_name` when the body never reads it (`noUnusedParameters`). */
export function paramName(name: string, used: ReadonlySet<string>): string {
  return used.has(name) ? name : `_${name}`;
}

/** An expression as text, outside any function (a module constant's initializer). */
export function printExpression(e: Expr): string {
  return new Printer(undefined).expression(e, 0);
}

/** Statements as lines at indentation level 0, for tests (locals numbered from 1). */
export function printStatements(body: readonly Stmt[]): string[] {
  return new Printer(undefined).statements(body, 0);
}

const PRIMARY = 20;
const UNARY = 15;
const ADDITIVE = 12;
const RELATIONAL = 10;
const EQUALITY = 9;
const AND = 5;
const OR = 4;
const CONDITIONAL = 3;
const ARROW = 2;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

class Printer {
  private readonly locals = new Map<Local, string>();
  private count = 0;

  /** `at`: the schema location the function's `at` constant holds. */
  constructor(private readonly at: string | undefined) {}

  private declare(name: Name): string {
    if (typeof name === "string") return name;
    const text = `${name.hint}${++this.count}`;
    this.locals.set(name, text);
    return text;
  }

  private name(name: Name): string {
    if (typeof name === "string") return name;
    const text = this.locals.get(name);
    if (text === undefined) throw new Error(`internal: local ${name.hint} used before its declaration`);
    return text;
  }

  statements(body: readonly Stmt[], depth: number): string[] {
    return body.flatMap((s) => this.statement(s, depth));
  }

  private statement(s: Stmt, depth: number): string[] {
    const pad = "  ".repeat(depth);
    switch (s.kind) {
      case "expr":
        return [`${pad}${this.expression(s.expr, 0)};`];
      case "return":
        return [`${pad}return ${this.expression(s.expr, 0)};`];
      case "const":
      case "let": {
        const init = this.expression(s.init, ARROW);
        return [`${pad}${s.kind} ${this.declare(s.name)} = ${init};`];
      }
      case "assign":
        return [`${pad}${this.name(s.name)} = ${this.expression(s.value, ARROW)};`];
      case "increment":
        return [`${pad}${this.name(s.name)}++;`];
      case "break":
        return [`${pad}break;`];
      case "if":
        return this.ifStatement(s, depth);
      case "forIn": {
        const object = this.expression(s.object, 0);
        return [`${pad}for (const ${this.declare(s.key)} in ${object}) {`, ...this.statements(s.body, depth + 1), `${pad}}`];
      }
      case "forOf": {
        const iterable = this.expression(s.iterable, 0);
        return [`${pad}for (const ${this.declare(s.item)} of ${iterable}) {`, ...this.statements(s.body, depth + 1), `${pad}}`];
      }
      case "forRange": {
        const i = this.declare(s.index);
        return [`${pad}for (let ${i} = ${s.from}; ${i} < ${this.expression(s.to, RELATIONAL + 1)}; ${i}++) {`, ...this.statements(s.body, depth + 1), `${pad}}`];
      }
      case "switch": {
        const out = [`${pad}switch (${this.expression(s.on, 0)}) {`];
        for (const c of s.cases) {
          for (const test of c.tests) out.push(`${pad}  case ${this.expression(test, 0)}:`);
          out.push(...this.statements(c.body, depth + 2));
        }
        out.push(`${pad}  default:`, ...this.statements(s.otherwise, depth + 2), `${pad}}`);
        return out;
      }
      case "try": {
        const handler = s.handler.length ? [`${pad}} catch {`, ...this.statements(s.handler, depth + 1), `${pad}}`] : [`${pad}} catch {}`];
        return [`${pad}try {`, ...this.statements(s.body, depth + 1), ...handler];
      }
    }
  }

  /**
   * `if (t) x;` for one simple statement, else a block; an `else` that is one `if` continues the
   * chain (`else if`); an `else` beside a block is a block too.
   */
  private ifStatement(s: Extract<Stmt, { kind: "if" }>, depth: number): string[] {
    const pad = "  ".repeat(depth);
    const head = `if (${this.expression(s.test, 0)})`;
    const simpleThen = isSimple(s.then);
    const out = simpleThen
      ? [`${pad}${head} ${this.statement(s.then[0]!, 0)[0]}`]
      : [`${pad}${head} {`, ...this.statements(s.then, depth + 1), `${pad}}`];
    if (s.otherwise.length === 0) return out;
    const chained = s.otherwise.length === 1 && s.otherwise[0]!.kind === "if";
    if (chained) {
      const [first, ...rest] = this.statement(s.otherwise[0]!, depth);
      const tail = first!.slice(pad.length);
      return simpleThen ? [...out, `${pad}else ${tail}`, ...rest] : [...out.slice(0, -1), `${pad}} else ${tail}`, ...rest];
    }
    if (isSimple(s.otherwise) && simpleThen) return [...out, `${pad}else ${this.statement(s.otherwise[0]!, 0)[0]}`];
    const block = [...this.statements(s.otherwise, depth + 1), `${pad}}`];
    return simpleThen ? [...out, `${pad}else {`, ...block] : [...out.slice(0, -1), `${pad}} else {`, ...block];
  }

  /** An expression that binds at least as tightly as `min` (else in parentheses). */
  expression(e: Expr, min: number): string {
    const [text, precedence] = this.print(e);
    return precedence >= min ? text : `(${text})`;
  }

  private print(e: Expr): [string, number] {
    switch (e.kind) {
      case "bool":
        return [String(e.value), PRIMARY];
      case "id":
        return [this.name(e.name), PRIMARY];
      case "literal":
      case "raw":
        return [e.text, PRIMARY];
      case "location": {
        if (this.at !== undefined && e.at === this.at) return ["at", PRIMARY];
        if (this.at !== undefined && e.at.startsWith(`${this.at}/`)) return [`at + ${JSON.stringify(e.at.slice(this.at.length))}`, ADDITIVE];
        return [JSON.stringify(e.at), PRIMARY];
      }
      case "member": {
        const object = this.expression(e.object, PRIMARY);
        const optional = e.optional ? "?." : "";
        return [IDENTIFIER.test(e.property) ? `${object}${optional || "."}${e.property}` : `${object}${optional}[${JSON.stringify(e.property)}]`, PRIMARY];
      }
      case "as":
        return [`${this.expression(e.operand, RELATIONAL)} as ${e.type}`, RELATIONAL];
      case "index":
        return [`${this.expression(e.object, PRIMARY)}[${this.expression(e.index, 0)}]`, PRIMARY];
      case "call":
        return [`${this.expression(e.callee, PRIMARY)}(${e.args.map((a) => this.expression(a, ARROW)).join(", ")})`, PRIMARY];
      case "typeof":
        return [`typeof ${this.expression(e.operand, UNARY)}`, UNARY];
      case "not":
        return [`!${this.expression(e.operand, UNARY)}`, UNARY];
      case "compare": {
        const precedence = e.op === "===" || e.op === "!==" ? EQUALITY : RELATIONAL;
        return [`${this.expression(e.left, precedence)} ${e.op} ${this.expression(e.right, precedence + 1)}`, precedence];
      }
      case "plus":
        return [e.operands.map((o, i) => this.expression(o, i === 0 ? ADDITIVE : ADDITIVE + 1)).join(" + "), ADDITIVE];
      case "logic": {
        // Operands bind tighter than `&&`: `||` inside `&&` needs parentheses, and `&&` inside `||`
        // gets them too, as prettier writes it (it reads better).
        return [e.operands.map((o) => this.expression(o, AND + 1)).join(` ${e.op} `), e.op === "&&" ? AND : OR];
      }
      case "conditional":
        return [`${this.expression(e.test, CONDITIONAL + 1)} ? ${this.expression(e.then, CONDITIONAL)} : ${this.expression(e.otherwise, CONDITIONAL)}`, CONDITIONAL];
      case "arrow":
        return [`(${e.param}) => ${this.expression(e.body, CONDITIONAL)}`, ARROW];
    }
  }
}

/** One statement that can stand as a branch without braces (not an `if`, a loop or a declaration). */
function isSimple(body: readonly Stmt[]): boolean {
  if (body.length !== 1) return false;
  const kind = body[0]!.kind;
  return kind === "expr" || kind === "return" || kind === "assign" || kind === "increment" || kind === "break";
}
