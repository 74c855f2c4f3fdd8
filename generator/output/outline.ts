/**
 * Formatting a statement without prettier printing all of it at its width. Generated code is
 * mostly statements that fit on their lines; for those, prettier breaks nothing, and its output is
 * what it prints with no width limit. So a statement is taken apart into its outline (its own
 * lines, each block body it opens replaced by one `debugger;` line) and those bodies, statement by
 * statement, each taken apart in turn (see partOf). Each outline is formatted with no width limit,
 * from its short skeleton (see skeletonOf in chunks.ts): thousands of outlines that differ only in
 * names and strings are one prettier call. Where every line of an outline, with its own tokens put
 * back, fits the width at its indentation, that is prettier's output for it (every group prettier
 * measures lies within one of those lines, so it fits and stays flat; breaks prettier forces are
 * forced without a limit too). A line that does not fit is broken as prettier breaks it for a few
 * shapes whose breaking does not depend on names (see fitted); any other outline is formatted at
 * its indentation (see exactText), its block bodies still their own. Block bodies never change how
 * the outline's own lines print: a block is always its own lines, one level deeper (checked when
 * they are put back, see render). test/generator/output/format-chunks.test.ts compares the result with
 * prettier's on code made to trip it, test/generator/output/format.test.ts on every generated file.
 */
import { bracketDepths, COMMENT_LINE, skeletonOf, splitStatements, type Chunk, type Skeleton } from "./chunks.js";

/** The line that stands for a block body in an outline: a statement generated code never holds. */
export const BLOCK_MARK = "debugger;";

/** A statement (or statements) taken apart: its outline's short skeleton, and the bodies of the blocks it opens. */
export interface Part {
  readonly code: string;
  /**
   * For a class or interface member: the line that opens a declaration of that kind (`class X {`),
   * around it wherever it is formatted (a member does not parse alone); undefined for statements.
   */
  readonly wrapper: string | undefined;
  /** The outline: the part's own lines, each block body one BLOCK_MARK line. */
  readonly outlineCode: string;
  /** The short skeleton of the outline; undefined when the part must be formatted whole (see partOf). */
  readonly outline: Skeleton | undefined;
  readonly blocks: readonly Block[];
}

/** A block body: its statements or members (blank lines before them kept), each taken apart. */
export interface Block {
  readonly chunks: readonly Chunk[];
  readonly parts: readonly Part[];
}

/**
 * `code` (at column 0) taken apart. A block body is taken out only where it is unambiguous: the
 * lines after a line that opens a statement block (`if (…) {`, `} else {`, `for (…) {`,
 * `function …(…) … {`, `try {`, …) at the statement's indentation, indented deeper, up to a line
 * at that indentation starting with `}`. Anything else (object literals, interface bodies, `case`
 * clauses, a statement continued on the next line) stays in the outline. A part whose outline holds
 * what a short skeleton cannot stand for (a template literal, a regular expression, non-ASCII text,
 * a comment over several lines) has no outline: it is formatted whole.
 */
export function partOf(code: string, wrapper?: string, known: PartsKnown = new Map()): Part {
  // Generated code repeats its blocks: each is taken apart once (a Part is never changed after).
  let byCode = known.get(wrapper);
  if (byCode === undefined) known.set(wrapper, (byCode = new Map()));
  const found = byCode.get(code);
  if (found !== undefined) return found;
  const part = takenApart(code, wrapper, known);
  byCode.set(code, part);
  return part;
}

/** The parts taken apart so far, by wrapper and code: partOf gives the same Part for the same code. */
export type PartsKnown = Map<string | undefined, Map<string, Part>>;

function takenApart(code: string, wrapper: string | undefined, known: PartsKnown): Part {
  const whole = { code, wrapper, outlineCode: code, outline: undefined, blocks: [] };
  if (code.includes("debugger")) return whole;
  const lines = code.split("\n");
  const depths = bracketDepths(lines);
  const outline: string[] = [];
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    outline.push(line);
    const body = bodyOpenedBy(line, wrapper);
    if (!body) continue;
    const end = depths ? closingLine(lines, depths, i) : indentedBodyEnd(lines, i);
    if (end === undefined || end === i + 1 || end >= lines.length || !lines[end]!.startsWith("}")) continue;
    if (wrapper !== undefined && lines[end] !== "}") continue; // a method's body ends so, a type's `};` does not
    if (!movable(lines.slice(i + 1, end))) continue;
    const text = dedent(lines.slice(i + 1, end));
    const chunks = splitStatements(text) ?? [{ code: text, blankBefore: false }];
    blocks.push({ chunks, parts: chunks.map((chunk) => partOf(chunk.code, body.members, known)) });
    outline.push(`  ${BLOCK_MARK}`); // in a class or interface body, a member named `debugger`
    i = end - 1; // the closing line is the outline's next line (it may open a block too: `} else {`)
  }
  const outlineCode = outline.join("\n");
  const skeleton = skeletonOf(wrapped(outlineCode, wrapper), true);
  return skeleton.verbatim ? whole : { code, wrapper, outlineCode, outline: skeleton, blocks };
}

/**
 * The line closing the block opened at the end of line `open`: the first after it that starts
 * with `}` one bracket deeper than `open` (generated code does not always indent a body: an
 * interface's members stand at column 0).
 */
function closingLine(lines: readonly string[], depths: readonly number[], open: number): number | undefined {
  // The opener's brackets balance before its `{`, but for a `}` first (`} else {`).
  const inside = depths[open]! - (lines[open]!.startsWith("}") ? 1 : 0) + 1;
  for (let j = open + 1; j < lines.length; j++) {
    if (depths[j] === -1) continue; // a line inside a block comment
    if (depths[j]! < inside) return undefined;
    if (depths[j] === inside && lines[j]!.startsWith("}")) return j;
  }
  return undefined;
}

/** Where an indented body after line `open` ends, for code whose brackets bracketDepths cannot follow. */
function indentedBodyEnd(lines: readonly string[], open: number): number {
  let end = open + 1;
  while (end < lines.length && (lines[end]!.trim() === "" || indentOf(lines[end]!) > 0)) end++;
  return end;
}

/** Code inside its wrapper (see Part), or as it is. */
export function wrapped(code: string, wrapper: string | undefined): string {
  return wrapper === undefined ? code : `${wrapper}\n${code}\n}`;
}

/** Statements that open a block of statements (not an object, a type, a class or `switch` cases). */
const BLOCK_OPENER = /^(?:\}\s*)?(?:(?:export\s+)?(?:async\s+)?function\b|if\s*\(|else\b|for\s*\(|while\s*\(|do\b|try\b|catch\b|finally\b)/;

/** Declarations whose body is members (group 1: what the wrapper of those members repeats). */
const MEMBERS_OPENER = /^(?:export\s+)?(?:default\s+)?((?:declare\s+)?(?:abstract\s+)?(?:class|interface))\s/;

/** A class member that opens a block of statements: a method, a constructor, an accessor. */
const METHOD_OPENER =
  /^(?:(?:public|private|protected|static|override|async|get|set)\s+)*(?:#?[A-Za-z_$][\w$]*)\??(?:<[^=]*>)?\(/;

/**
 * The body a line at column 0 opens: statements (`if (…) {`, a function; among a class's members,
 * `method(…) {`), or members (`class X {`, `interface X {`, whose wrapper the members get);
 * undefined when it opens none (or its brackets do not balance before that `{`).
 */
function bodyOpenedBy(line: string, wrapper: string | undefined): { members?: string } | undefined {
  if (!line.endsWith(" {") || !balanced(line)) return undefined;
  // An interface's members open no blocks (`m(): {` begins a type).
  if (wrapper !== undefined) return wrapper.endsWith(" extends Y {") && METHOD_OPENER.test(line) ? {} : undefined;
  if (BLOCK_OPENER.test(line)) return {};
  // A class wrapper extends a class, so that `override` and `super(…)` parse in its members.
  const members = MEMBERS_OPENER.exec(line);
  return members ? { members: members[1]!.endsWith("class") ? `${members[1]} X extends Y {` : `${members[1]} X {` } : undefined;
}

/** Whether a line's brackets balance before its last `{`, with no template, comment or regular expression. */
function balanced(line: string): boolean {
  let depth = 0;
  const head = line.replace(/^\}\s*/, "").slice(0, -1);
  for (let i = 0; i < head.length; i++) {
    const c = head[i]!;
    if (c === '"' || c === "'") {
      const close = head.indexOf(c, i + 1);
      if (close < 0 || head.slice(i, close).includes("\\")) return false;
      i = close;
    } else if (c === "`" || c === "/") {
      return false;
    } else if ("([{".includes(c)) {
      depth++;
    } else if (")]}".includes(c) && --depth < 0) {
      return false;
    }
  }
  return depth === 0;
}

/**
 * Whether lines can move left without changing what they say: no template literal and no block
 * comment prettier keeps as written (not a doc comment, whose lines prettier re-indents) goes
 * from one line to the next.
 */
function movable(lines: readonly string[]): boolean {
  if (lines.some((line) => (line.replace(/\\`/g, "").match(/`/g)?.length ?? 0) % 2 !== 0)) return false;
  const text = lines.join("\n");
  for (const [comment] of text.matchAll(/\/\*[^]*?\*\//g)) {
    if (comment.includes("\n") && !`*${comment.slice(2, -2)}*`.split("\n").every((line) => line.trimStart().startsWith("*"))) return false;
  }
  return true;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Lines moved left by their least indentation (blank lines emptied). */
function dedent(lines: readonly string[]): string {
  const margin = Math.min(...lines.filter((l) => l.trim() !== "").map(indentOf));
  return lines.map((l) => (l.trim() === "" ? "" : l.slice(margin))).join("\n");
}

/**
 * A part placed at `indent` (columns): its outline's lines, or what stands for its outline
 * formatted at that indentation (`whole`), and the bodies of its blocks, each one level deeper.
 */
export interface Placed<Whole> {
  readonly outline: readonly string[] | Whole;
  readonly blocks: readonly { readonly chunks: readonly Chunk[]; readonly parts: readonly Placed<Whole>[] }[];
  readonly indent: number;
}

/**
 * Places a part at `indent`: its outline as formatted with no width limit (`flat`, tokens put
 * back; undefined if that failed) where every line of it fits `width` there, else
 * `whole(outlineCode, indent)`, standing for the outline formatted at its indentation. A block's
 * place in an outline does not change how the outline's own lines are printed (it is always its own
 * lines, one level deeper), so block bodies are placed on their own.
 */
export function place<Whole>(
  part: Part,
  indent: number,
  width: number,
  flat: (part: Part) => string | undefined,
  whole: (code: string, indent: number, wrapper: string | undefined) => Whole,
  known: Map<Part, Map<number, Placed<Whole>>> = new Map(),
): Placed<Whole> {
  // A part repeated (see partOf) is placed once at each indentation.
  let byIndent = known.get(part);
  if (byIndent === undefined) known.set(part, (byIndent = new Map()));
  let placed = byIndent.get(indent);
  if (placed === undefined) byIndent.set(indent, (placed = placedPart(part, indent, width, flat, whole, known)));
  return placed;
}

function placedPart<Whole>(
  part: Part,
  indent: number,
  width: number,
  flat: (part: Part) => string | undefined,
  whole: (code: string, indent: number, wrapper: string | undefined) => Whole,
  known: Map<Part, Map<number, Placed<Whole>>>,
): Placed<Whole> {
  const blocks = part.blocks.map((block) => ({
    chunks: block.chunks,
    parts: block.parts.map((p) => place(p, indent + 2, width, flat, whole, known)),
  }));
  const text = flat(part);
  const printed = text === undefined ? undefined : (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
  const lines = printed && part.wrapper !== undefined ? unwrapped(printed, part.wrapper) : printed;
  const placed: string[] = [];
  let lineIndent = 0; // of the last line: a doc comment's further lines go there (see COMMENT_LINE)
  for (const line of lines ?? []) {
    if (line.startsWith(COMMENT_LINE)) {
      placed.push(" ".repeat(indent + lineIndent) + line.slice(COMMENT_LINE.length));
      continue;
    }
    lineIndent = indentOf(line);
    // A member's own lines are taken as they are only where they fit, or are a comment (never broken): the
    // breaks of fitted are statements'.
    const own =
      line === "" ? [""] : line.trim() === BLOCK_MARK ? [line] : part.wrapper === undefined ? fitted(line, indent, width) : indent + line.length <= width || commentAlone(line) ? [line] : undefined;
    if (!own) return { outline: whole(part.outlineCode, indent, part.wrapper), blocks, indent };
    placed.push(...own.map((l) => (l === "" ? "" : " ".repeat(indent) + l)));
  }
  if (!lines) return { outline: whole(part.outlineCode, indent, part.wrapper), blocks, indent };
  return { outline: placed, blocks, indent };
}

/** A member's formatted lines without its wrapper's (see Part) and the indentation it gave them; undefined if they are not there. */
function unwrapped(lines: readonly string[], wrapper: string): string[] | undefined {
  if (lines.length < 3 || lines[0] !== wrapper || lines[lines.length - 1] !== "}") return undefined;
  const inner = lines.slice(1, -1);
  if (!inner.every((l) => l === "" || l.startsWith(COMMENT_LINE) || l.startsWith("  "))) return undefined;
  return inner.map((l) => (l.startsWith("  ") ? l.slice(2) : l));
}

/**
 * A line of a flat outline (at `indent`) as prettier prints it at `width`, for the breaks
 * generated code needs most, each printed by prettier the same way whatever the names: the line
 * itself when it fits, or when it is only a comment; `if (…) statement;` (or `else if (…)`, `else`) with the statement on the
 * next line, one level deeper, when the head fits or is a negated chain of `||` or `&&` (see negatedChainHead); a call statement of plain arguments (names,
 * literals, `+` and the like, no brackets) with one argument a line; likewise a function's plain
 * parameters, the names an import or export lists, and `return (…)` around a chain of `||` or `&&`. Undefined for anything else
 * that does not fit: the outline is formatted at its width then.
 */
function fitted(line: string, indent: number, width: number): string[] | undefined {
  if (indent + line.length <= width) return [line];
  if (commentAlone(line)) return [line];
  const clause = clauseSplit(line);
  if (clause) {
    const head = indent + clause.head.length <= width ? [clause.head] : negatedChainHead(clause.head, indent, width);
    const body = head && fitted(clause.body, indent + 2, width);
    return body && [...head!, ...body.map((l) => `  ${l}`)];
  }
  const specifiers = moduleSpecifiers(line);
  if (specifiers) return oneALine(`${specifiers.head}{`, specifiers.names, `}${specifiers.tail}`, indent, width);
  const header = functionHeader(line);
  if (header) return oneALine(`${header.head}(`, header.params, `)${header.rest}`, indent, width);
  const chain = /^return (.+);$/.exec(line) && operatorChain(line.slice("return ".length, -1));
  if (chain) {
    // The chain is a group of its own inside the parentheses: on one line where it fits there.
    const argument = line.slice("return ".length, -1);
    if (indent + 2 + argument.length <= width) return ["return (", `  ${argument}`, ");"];
    const operands = chain.operands.map((operand, k) => (k < chain.operands.length - 1 ? `  ${operand} ${chain.operator}` : `  ${operand}`));
    if (operands.some((l) => indent + l.length > width)) return undefined;
    return ["return (", ...operands, ");"];
  }
  const call = /^((?:return )?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\((.+)\);$/.exec(line);
  const args = call && plainArguments(call[2]!);
  return args ? oneALine(`${call![1]}(`, args, ");", indent, width) : declaration(line, indent, width);
}

/**
 * Whether a line is a comment on a line of its own (or the first line of one over several): prettier
 * never breaks it, and it changes nothing around it.
 */
function commentAlone(line: string): boolean {
  return /^(?:\/\/.*|\/\*(?:(?!\*\/).)*(?:\*\/)?)$/.test(line.trim());
}

/**
 * A declaration that does not fit, as prettier breaks it for three shapes (a plain name declared,
 * no type annotation): a string constant goes to the next line (`const at =` / `"…";`); a type
 * alias of a union of plain names too, where it fits there; a constant set to a call of plain
 * arguments, not a lone short one (which prettier would move to the next line whole), keeps
 * `= f(` and takes its arguments one a line. Undefined for anything else.
 */
function declaration(line: string, indent: number, width: number): string[] | undefined {
  const constant = /^((?:export )?const [A-Za-z_$][\w$]* =) (.+);$/.exec(line);
  if (constant && /^"(?:[^"\\]|\\.)*"$/.test(constant[2]!)) return [constant[1]!, `  ${constant[2]};`];
  const alias = /^((?:export )?type [A-Za-z_$][\w$]* =) ([\w$.]+(?: \| [\w$.]+)+);$/.exec(line);
  if (alias) return indent + 2 + alias[2]!.length + 1 <= width ? [alias[1]!, `  ${alias[2]};`] : undefined;
  const call = constant && /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\((.+)\)$/.exec(constant[2]!);
  const args = call && plainArguments(call[2]!);
  // One argument of a name or a literal is "short": prettier breaks after `=` then.
  if (!args || (args.length === 1 && !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(args[0]!))) return undefined;
  return oneALine(`${constant![1]} ${call![1]}(`, args, ");", indent, width);
}

/**
 * An `if (!(a || b || c))` head (or `else if`, or a chain of `&&`) that does not fit, as prettier
 * prints it: `if (!(`, the chain one level deeper (one operand a line, or a chain of two plain
 * operands on one line), `))`; undefined for another head,
 * or when a line of it still does not fit (an operand would break further).
 */
function negatedChainHead(head: string, indent: number, width: number): string[] | undefined {
  const match = /^((?:else )?if \()!\((.+)\)\)$/.exec(head);
  if (!match || matchingParen(head, match[1]!.length + 1) !== head.length - 2) return undefined;
  const chain = operatorChain(match[2]!);
  if (!chain) return undefined;
  // prettier groups the operator of a chain of two plain operands on its own, so that chain stays
  // on one line where it fits there; any other chain's operators break with the parentheses.
  const grouped = chain.operands.length === 2 && !chain.operands.some(isLogical);
  if (grouped && indent + 2 + match[2]!.length > width) return undefined;
  const operands = grouped
    ? [`  ${match[2]}`]
    : chain.operands.map((operand, k) => (k < chain.operands.length - 1 ? `  ${operand} ${chain.operator}` : `  ${operand}`));
  const lines = [`${match[1]}!(`, ...operands, "))"];
  return lines.every((l) => indent + l.length <= width) ? lines : undefined;
}

/** Whether an operand is itself a chain of `&&` or `||` (in parentheses, since operatorChain took it as one operand). */
function isLogical(operand: string): boolean {
  if (!operand.startsWith("(") || matchingParen(operand, 0) !== operand.length - 1) return false;
  const inner = operand.slice(1, -1);
  return [" && ", " || "].some((operator) => (splitTopLevel(inner, operator)?.length ?? 1) > 1);
}

/** `open`, then each item on a line of its own with a comma, then `close`, when all of them fit. */
function oneALine(open: string, items: readonly string[], close: string, indent: number, width: number): string[] | undefined {
  const lines = [open, ...items.map((item) => `  ${item},`), close];
  return lines.every((l) => indent + l.length <= width) ? lines : undefined;
}

/**
 * An import or export of two or more plain names (`import type { A, B as C } from "./x.js";`,
 * `export { A, B };`): prettier breaks them one a line (a single name it never breaks).
 */
function moduleSpecifiers(line: string): { head: string; names: string[]; tail: string } | undefined {
  const match = /^((?:import|export)(?: type)? )\{ ([^{}]+) \}((?: from "[^"\\]*")?;)$/.exec(line);
  const names = match?.[2]!.split(", ");
  const plain = /^(?:type )?[A-Za-z_$][\w$]*(?: as [A-Za-z_$][\w$]*)?$/;
  return names && names.length > 1 && names.every((n) => plain.test(n)) ? { head: match![1]!, names, tail: match![3]! } : undefined;
}

/**
 * A function declaration's first line (`function name(a: A, b: B): R {`) whose parameters are
 * plain (a name, maybe `?`, and a type without brackets other than `[]` and `<…>`) and whose
 * return type holds no brackets either: prettier breaks such parameters one a line.
 */
function functionHeader(line: string): { head: string; params: string[]; rest: string } | undefined {
  const match = /^((?:export )?(?:async )?function [A-Za-z_$][\w$]*)\(([^()]*)\)((?:: [^(){}]+)? \{)$/.exec(line);
  if (!match || match[2] === "") return undefined;
  const params = splitTopLevel(match[2]!, ",", true);
  const plain = /^[A-Za-z_$][\w$]*\??: [\w$.]+(?:<[\w$., ]+>)?(?:\[\])*(?: \| [\w$.]+(?:\[\])*)*$/;
  return params?.every((p) => plain.test(p)) ? { head: match[1]!, params, rest: match[3]! } : undefined;
}

/**
 * An expression that is a chain of one logical operator (`a || b || c`, or `&&`) at its top
 * level, with no conditional, arrow, comma, template, comment or object literal there: what
 * prettier prints one operand a line inside `return (…)`.
 */
function operatorChain(text: string): { operator: string; operands: string[] } | undefined {
  if (/[`/]/.test(text.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""'))) return undefined;
  for (const operator of ["||", "&&"]) {
    const operands = splitTopLevel(text, ` ${operator} `);
    if (!operands || operands.length < 2) continue;
    const other = [operator === "||" ? " && " : " || ", "?", "=>", ",", " ?? "];
    const plain = operands.every((o) => !/^[{[]/.test(o) && other.every((t) => splitTopLevel(o, t)?.length === 1));
    return plain ? { operator, operands } : undefined;
  }
  return undefined;
}

/** `text` split at `separator` where it stands outside brackets and strings; undefined when they do not balance. */
function splitTopLevel(text: string, separator: string, angles = false): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      i++;
      while (i < text.length && text[i] !== c) i += text[i] === "\\" ? 2 : 1;
      if (i >= text.length) return undefined;
    } else if ("([{".includes(c) || (angles && c === "<")) {
      depth++;
    } else if (")]}".includes(c) || (angles && c === ">")) {
      if (--depth < 0) return undefined;
    } else if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(text.slice(start, i).trim());
      start = i + separator.length;
      i += separator.length - 1;
    }
  }
  if (depth !== 0) return undefined;
  parts.push(text.slice(start).trim());
  return parts;
}

/** `if (test) body;` as its head (`if (test)`, `else if (test)`, `else`) and body; undefined for other lines, or a body that is a block. */
function clauseSplit(line: string): { head: string; body: string } | undefined {
  if (/[`/]/.test(line.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""'))) return undefined; // comments, templates, regular expressions
  let head: string;
  if (line.startsWith("else ") && !line.startsWith("else if (")) {
    head = "else";
  } else {
    const open = line.startsWith("if (") ? 3 : line.startsWith("else if (") ? 8 : -1;
    if (open < 0) return undefined;
    const close = matchingParen(line, open);
    if (close === undefined) return undefined;
    head = line.slice(0, close + 1);
  }
  const body = line.slice(head.length + 1);
  if (line[head.length] !== " " || body.startsWith("{") || !body.endsWith(";") || /^(?:if|else|for|while|do|switch|try)\b/.test(body)) return undefined;
  return { head, body };
}

/** The index of the `)` closing the `(` at `open`, skipping strings. */
function matchingParen(line: string, open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"' || c === "'") {
      i++;
      while (i < line.length && line[i] !== c) i += line[i] === "\\" ? 2 : 1;
    } else if (c === "(") {
      depth++;
    } else if (c === ")" && --depth === 0) {
      return i;
    }
  }
  return undefined;
}

/**
 * A call's arguments split at their commas, when each is plain: names, literals, operators and
 * calls of such, nothing prettier would hug or expand (no object, array, function, template,
 * comment, regular expression, spread); else undefined.
 */
function plainArguments(text: string): string[] | undefined {
  if (/[[\]{}`/]|=>/.test(text.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""'))) return undefined;
  const args = splitTopLevel(text, ",");
  return args?.every((arg) => arg !== "" && !arg.startsWith("...")) ? args : undefined;
}

/**
 * A placed part's lines, its blocks' lines put in where the outline marks them (`resolve` gives
 * the lines of an outline formatted whole); undefined when something did not come back as
 * expected (a whole that failed, a block mark not one level deeper than the part).
 */
export function render<Whole>(
  placed: Placed<Whole>,
  resolve: (whole: Whole) => readonly string[] | undefined,
  known: Map<Placed<Whole>, readonly string[] | undefined> = new Map(),
): readonly string[] | undefined {
  // A part placed once for all its repetitions (see place) is rendered once too.
  if (known.has(placed)) return known.get(placed);
  const lines = rendered(placed, resolve, known);
  known.set(placed, lines);
  return lines;
}

function rendered<Whole>(
  placed: Placed<Whole>,
  resolve: (whole: Whole) => readonly string[] | undefined,
  known: Map<Placed<Whole>, readonly string[] | undefined>,
): readonly string[] | undefined {
  const outline = Array.isArray(placed.outline) ? (placed.outline as readonly string[]) : resolve(placed.outline as Whole);
  if (!outline) return undefined;
  const out: string[] = [];
  let next = 0;
  for (const line of outline) {
    if (line.trim() !== BLOCK_MARK) {
      out.push(line);
      continue;
    }
    const block = placed.blocks[next++];
    if (!block || indentOf(line) !== placed.indent + 2) return undefined;
    for (const [k, part] of block.parts.entries()) {
      const lines = render(part, resolve, known);
      if (!lines) return undefined;
      if (k > 0 && block.chunks[k]!.blankBefore) out.push("");
      out.push(...lines);
    }
  }
  return next === placed.blocks.length ? out : undefined;
}

/**
 * The text to format a part whole at `indent` columns: inside as many blocks as it is indented
 * (a member's wrapper the innermost), so prettier measures its lines from where they stand.
 * exactLines takes them off again.
 */
export function exactText(code: string, indent: number, wrapper?: string): string | undefined {
  if (indent % 2 !== 0 || (wrapper !== undefined && indent === 0)) return undefined;
  const depth = indent / 2;
  return `${openers(depth, wrapper).map((line) => `${line}\n`).join("")}${code}${"\n}".repeat(depth)}`;
}

/** The lines exactText opens, innermost last: blocks, and a member's wrapper (see Part). */
function openers(depth: number, wrapper: string | undefined): string[] {
  return Array.from({ length: depth }, (_, k) => (k === depth - 1 && wrapper !== undefined ? wrapper : "{"));
}

/** The part's lines in prettier's output for exactText, or undefined when the blocks did not come back as written. */
export function exactLines(formatted: string, indent: number, wrapper?: string): string[] | undefined {
  const depth = indent / 2;
  const lines = (formatted.endsWith("\n") ? formatted.slice(0, -1) : formatted).split("\n");
  if (lines.length < 2 * depth) return undefined;
  const opened = openers(depth, wrapper);
  for (let k = 0; k < depth; k++) {
    if (lines[k] !== `${" ".repeat(2 * k)}${opened[k]}` || lines[lines.length - 1 - k] !== `${" ".repeat(2 * k)}}`) return undefined;
  }
  return lines.slice(depth, lines.length - depth);
}
