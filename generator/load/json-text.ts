/**
 * Parsing JSON text (schema files and the config) with an error a person can act on: the line and
 * column of the first mistake and what was expected there. `JSON.parse` does the parsing; only when
 * it fails does a small strict scanner find where, because V8's message gives a character offset at
 * best, and at worst quotes the whole text back (several lines for a multi-line file).
 */

/** Why a text is not JSON, and where (1-based line and column, in UTF-16 code units). */
export interface JsonSyntaxProblem {
  readonly line: number;
  readonly column: number;
  readonly reason: string;
}

export type JsonParseResult = { readonly ok: true; readonly value: unknown } | ({ readonly ok: false } & JsonSyntaxProblem);

/**
 * Thrown by parseJsonText for text nested deeper than this thread allows (see allowJsonDepth):
 * every later stage recurses along that nesting, so the caller runs the work again on a thread
 * with a larger stack (cli/main.ts).
 */
export class DeeperThanThisStack extends Error {
  constructor(readonly depth: number) {
    super(`JSON nested ${depth} levels deep needs a larger stack`);
  }
}

/** How deep parseJsonText lets text nest on this thread (unlimited unless the CLI sets it). */
let allowedDepth = Number.POSITIVE_INFINITY;

/** Text nested deeper than `levels` makes parseJsonText throw DeeperThanThisStack from now on, on this thread. */
export function allowJsonDepth(levels: number): void {
  allowedDepth = levels;
}

/** Whether this thread limits how deep text may nest (see allowJsonDepth). */
export function jsonDepthLimited(): boolean {
  return allowedDepth !== Number.POSITIVE_INFINITY;
}

/** Parses JSON text; a leading byte order mark is ignored (editors on Windows write one). */
export function parseJsonText(text: string): JsonParseResult {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (jsonDepthLimited()) {
    const depth = nestingDepth(body);
    if (depth > allowedDepth) throw new DeeperThanThisStack(depth);
  }
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (e) {
    const problem = locatedProblem(body) ?? { offset: body.length, reason: v8Reason(e as Error) };
    return { ok: false, ...lineAndColumn(body, problem.offset), reason: problem.reason };
  }
}

/**
 * How many brackets are open at most anywhere in the text (strings skipped), counted without
 * recursion, valid JSON or not.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return deepest;
}

/** The scanner recurses once per nesting level: text nested deeper than the stack allows gets V8's word alone. */
function locatedProblem(text: string): { offset: number; reason: string } | undefined {
  try {
    return findSyntaxProblem(text);
  } catch (e) {
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

/** V8's message without the copy of the text some of its messages carry, on one short line. */
function v8Reason(error: Error): string {
  const reason = error.message.replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, "").replace(/\s+/g, " ");
  return reason.length > 200 ? `${reason.slice(0, 200)}…` : reason;
}

/** `line 3, column 14: expected ...`: how messages show a syntax problem. */
export function describeJsonProblem(problem: JsonSyntaxProblem): string {
  return `not valid JSON at line ${problem.line}, column ${problem.column}: ${problem.reason}`;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class Stop {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {}
}

/** The offset and reason of the first syntax error of RFC 8259 JSON text, or undefined if there is none. */
export function findSyntaxProblem(text: string): { offset: number; reason: string } | undefined {
  let at = 0;
  const found = (): string => (at >= text.length ? "the end of the text" : JSON.stringify(text[at]));
  const fail = (expected: string): never => {
    throw new Stop(at, `expected ${expected}, found ${found()}`);
  };
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at]!)) at++;
  };
  const literal = (word: string) => {
    for (const char of word) {
      if (text[at] !== char) fail(`"${word}"`);
      at++;
    }
  };
  const digits = (what: string) => {
    if (!/[0-9]/.test(text[at] ?? "")) fail(what);
    while (/[0-9]/.test(text[at] ?? "")) at++;
  };
  const number = () => {
    if (text[at] === "-") at++;
    if (text[at] === "0") at++;
    else digits("a digit");
    if (text[at] === ".") {
      at++;
      digits("a digit after the decimal point");
    }
    if (text[at] === "e" || text[at] === "E") {
      at++;
      if (text[at] === "+" || text[at] === "-") at++;
      digits("a digit in the exponent");
    }
  };
  const string = () => {
    at++; // the opening quote
    for (;;) {
      if (at >= text.length) fail('a closing "');
      const code = text.charCodeAt(at);
      if (code === 0x22) {
        at++;
        return;
      }
      if (code < 0x20) throw new Stop(at, "a control character (such as a line break) inside a string; escape it");
      if (code === 0x5c) {
        at++;
        if (text[at] === "u") {
          at++;
          for (let i = 0; i < 4; i++) {
            if (!/[0-9A-Fa-f]/.test(text[at] ?? "")) fail("four hexadecimal digits after \\u");
            at++;
          }
        } else if (at < text.length && '"\\/bfnrt'.includes(text[at]!)) {
          at++;
        } else {
          fail('an escape (\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u) after a backslash');
        }
        continue;
      }
      at++;
    }
  };
  const list = (close: "]" | "}", member: () => void, what: string) => {
    at++; // the opening bracket
    space();
    if (text[at] === close) {
      at++;
      return;
    }
    for (;;) {
      member();
      space();
      if (text[at] === ",") {
        const comma = at++;
        space();
        if (text[at] === close) throw new Stop(comma, `a trailing comma before "${close}" (JSON allows none)`);
        continue;
      }
      if (text[at] === close) {
        at++;
        return;
      }
      fail(`"," or "${close}" after ${what}`);
    }
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === "{") {
      list(
        "}",
        () => {
          if (text[at] !== '"') fail("a property name in double quotes");
          string();
          space();
          if (text[at] !== ":") fail('":" after a property name');
          at++;
          value();
        },
        "a property value",
      );
    } else if (char === "[") {
      list("]", value, "an array element");
    } else if (char === '"') {
      string();
    } else if (char === "-" || /[0-9]/.test(char ?? "")) {
      number();
    } else if (char === "t") {
      literal("true");
    } else if (char === "f") {
      literal("false");
    } else if (char === "n") {
      literal("null");
    } else {
      fail("a JSON value");
    }
  };
  try {
    value();
    space();
    if (at < text.length) fail("the end of the text after the JSON value");
    return undefined;
  } catch (e) {
    if (e instanceof Stop) return { offset: e.offset, reason: e.reason };
    throw e;
  }
}
