/**
 * Formatting a large module without formatting all of it. prettier prints each top-level statement
 * of a module on its own (what surrounds it changes nothing but the blank lines between
 * statements, at most one, kept where the source has one), so a module can be split into its
 * top-level statements, each formatted alone, and joined again: the result is what prettier prints
 * for the whole module (test/generator/output/format.test.ts proves it on every generated file, and on the
 * bench:scale schema's; test/generator/output/format-chunks.test.ts on code made to trip it).
 *
 * That allows two savings on generated code, which repeats itself:
 * - statements are formatted in batches spread over threads (see format.ts), never as one huge
 *   syntax tree (most of the memory and garbage collection of a large generation);
 * - code that differs only in its names and plain strings is formatted once. prettier's
 *   choices depend on the width of such tokens and, for identifiers, on their case (a capitalised
 *   name is a "factory" in a member chain), never on their letters otherwise. So what goes to
 *   prettier (a statement's outline, or a part of it formatted whole: see outline.ts) is reduced
 *   to a skeleton in which every identifier, plain string and comment is replaced by a
 *   placeholder of the same length and case pattern (`isRecord12A` → `xxXxxxxx00X`; an outline's
 *   short skeleton keeps less, see skeletonOf); the skeleton is formatted once per distinct
 *   skeleton, and each gets its own tokens back in order.
 * Anything the skeleton cannot stand for exactly (template literals, regular expression literals,
 * a `/` operator, non-ASCII text, multi-line comments, single-quoted strings, escapes other than
 * `\"`, property keys prettier does not unquote) keeps the statement, or the token, verbatim in it: such a statement only
 * shares formatting with identical ones.
 */

/** A top-level statement (with its leading comments) and whether a blank line precedes it. */
export interface Chunk {
  readonly code: string;
  readonly blankBefore: boolean;
}

/**
 * Splits a module into top-level statements, or returns undefined when it cannot tell where they
 * begin (then the module is formatted whole). A statement begins on a line at column 0, outside
 * any bracket, with a word or a comment, after a line that ends a statement (`;` or `}`, not in a
 * comment). A split inside a statement leaves a part prettier cannot parse alone (`| B;`, `else`,
 * `as const;`): then the module is formatted whole (see formatAll).
 */
export function splitStatements(code: string): Chunk[] | undefined {
  const lines = code.split("\n");
  const depths = bracketDepths(lines);
  if (!depths) return undefined;
  const chunks: Chunk[] = [];
  let current: string[] = [];
  let blankBefore = false;
  let previous = ""; // the last non-blank line
  let blank = false;
  lines.forEach((line, i) => {
    if (line.trim() === "") {
      blank = true;
      if (current.length > 0) current.push(line);
      return;
    }
    // A comment line belongs to the statement after it (its JSDoc, a `prettier-ignore`).
    const startsStatement =
      depths[i] === 0 &&
      /^[A-Za-z_$@/#]/.test(line) && // `#`: a class's private member
      !/^else\b/.test(line) && // continues an `if` (whose statement ended with `;` or `}`)
      /[;}]$/.test(previous) &&
      !/^\s*(\/\/|\/\*|\*)/.test(previous);
    if (current.length > 0 && startsStatement) {
      chunks.push({ code: trimTrailingBlankLines(current), blankBefore });
      current = [];
      blankBefore = blank;
    } else if (current.length === 0) {
      blankBefore = chunks.length > 0 && blank;
    }
    current.push(line);
    previous = line.trimEnd();
    blank = false;
  });
  if (current.length > 0) chunks.push({ code: trimTrailingBlankLines(current), blankBefore });
  return chunks;
}

/**
 * How many brackets are open at the start of each line, skipping strings and comments; undefined
 * for code this simple scan cannot follow (a template literal across lines or with one inside, a
 * `/` that is not a comment, a string across lines, unbalanced brackets).
 */
export function bracketDepths(lines: readonly string[]): number[] | undefined {
  const depths: number[] = new Array<number>(lines.length);
  let depth = 0;
  let inComment = false;
  for (let l = 0; l < lines.length; l++) {
    const line = lines[l]!;
    depths[l] = inComment ? -1 : depth;
    const n = line.length;
    let i = 0;
    while (i < n) {
      if (inComment) {
        const end = line.indexOf("*/", i);
        if (end < 0) break;
        inComment = false;
        i = end + 2;
        continue;
      }
      const c = line.charCodeAt(i);
      if (c === 47) {
        // `/`: a comment, or something this scan cannot follow (a regular expression, a division)
        const next = line.charCodeAt(i + 1);
        if (next === 47) break;
        if (next !== 42) return undefined;
        inComment = true;
        i += 2;
      } else if (c === 34 || c === 39) {
        let j = i + 1;
        while (j < n && line.charCodeAt(j) !== c) j += line.charCodeAt(j) === 92 ? 2 : 1;
        if (j >= n) return undefined;
        i = j + 1;
      } else if (c === 96) {
        const end = templateEnd(line, i);
        if (end === undefined) return undefined;
        i = end;
      } else {
        if (c === 40 || c === 91 || c === 123) depth++;
        else if ((c === 41 || c === 93 || c === 125) && --depth < 0) return undefined;
        i++;
      }
    }
  }
  return depth === 0 && !inComment ? depths : undefined;
}

/**
 * Where a template literal that starts at `start` ends (the index after its closing backtick),
 * when it ends on the same line and its `${…}` hold no template literal, comment or `/`; else
 * undefined.
 */
function templateEnd(line: string, start: number): number | undefined {
  let i = start + 1;
  while (i < line.length) {
    const ch = line[i]!;
    if (ch === "\\") {
      i += 2;
    } else if (ch === "`") {
      return i + 1;
    } else if (ch === "$" && line[i + 1] === "{") {
      let depth = 1;
      i += 2;
      while (depth > 0) {
        if (i >= line.length) return undefined;
        const c = line[i]!;
        if (c === '"' || c === "'") {
          let j = i + 1;
          while (j < line.length && line[j] !== c) j += line[j] === "\\" ? 2 : 1;
          if (j >= line.length) return undefined;
          i = j + 1;
          continue;
        }
        if (c === "`" || c === "/") return undefined;
        if (c === "{") depth++;
        else if (c === "}") depth--;
        i++;
      }
    } else {
      i++;
    }
  }
  return undefined;
}

function trimTrailingBlankLines(lines: string[]): string {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === "") end--;
  return lines.slice(0, end).join("\n");
}

/** Joins formatted statements (each ending with a newline) as prettier would print the module. */
export function joinStatements(chunks: readonly Chunk[], formatted: readonly string[]): string {
  return formatted.map((text, i) => (i > 0 && chunks[i]!.blankBefore ? `\n${text}` : text)).join("");
}

/** A statement reduced to its skeleton, with the tokens its placeholders stand for, in order. */
export interface Skeleton {
  readonly text: string;
  readonly originals: readonly string[];
  /** The statement itself: it holds something no placeholder stands for (see skeletonOf). */
  readonly verbatim: boolean;
}

/**
 * The skeleton of a statement (see the module comment). Returns the statement itself, with no
 * tokens, when it holds something a placeholder cannot stand for.
 *
 * `short` placeholders keep only what prettier reads of a token when nothing has to break (see
 * outline.ts): identifiers keep their first character's case and whether they are at most two
 * characters long (a member chain's "short" or "factory" head), strings their escaped quotes,
 * comments their kind; their widths go. Formatted with no width limit, the skeletons of many
 * statements that differ only in such tokens are one.
 */
export function skeletonOf(code: string, short = false): Skeleton {
  const verbatim = { text: code, originals: [], verbatim: true };
  const identifier = short ? shortIdentifier : casePattern;
  const string = short ? shortStringPlaceholder : stringPlaceholder;
  const commentShape = short ? shortComment : commentPattern;
  const originals: string[] = [];
  const parts: string[] = [];
  let copied = 0; // code before this index is in `parts`
  const replace = (from: number, to: number, placeholder: string, original: string) => {
    parts.push(code.slice(copied, from), placeholder);
    originals.push(original);
    copied = to;
  };
  let i = 0;
  const n = code.length;
  while (i < n) {
    const c = code.charCodeAt(i);
    if (c > 0x7e) return verbatim; // non-ASCII: widths and identifiers get complicated
    if (isIdentifierStart(c)) {
      let j = i + 1;
      while (j < n && isIdentifierPart(code.charCodeAt(j))) j++;
      const word = code.slice(i, j);
      if (!KEEP.has(word)) replace(i, j, identifier(word), word);
      i = j;
    } else if (c >= 48 && c <= 57) {
      // A number, with its letters (`1e3`, `0x1F`, `10n`) and decimal point: kept as written.
      let j = i + 1;
      while (j < n && (isIdentifierPart(code.charCodeAt(j)) || code.charCodeAt(j) === 46)) j++;
      i = j;
    } else if (c === 34 || c === 39) {
      let j = i + 1;
      while (j < n && code.charCodeAt(j) !== c && code.charCodeAt(j) !== 10) j += code.charCodeAt(j) === 92 ? 2 : 1;
      if (code.charCodeAt(j) !== c) return verbatim;
      j++;
      const literal = code.slice(i, j);
      // A property key stays as it is (prettier may unquote it); a `case` label is no key.
      const key = colonFollows(code, j) && !caseLabel(code, i);
      if (key) {
        const name = unquotableKey(literal);
        if (name !== undefined) replace(i, j, `"${identifier(name)}"`, name);
      } else {
        const printed = printedString(literal);
        if (printed !== undefined) replace(i, j, string(literal), printed);
      }
      i = j;
    } else if (c === 47 && code.charCodeAt(i + 1) === 47) {
      const j = code.indexOf("\n", i) < 0 ? n : code.indexOf("\n", i);
      const comment = code.slice(i, j).trimEnd(); // as prettier prints it
      if (/prettier/i.test(comment)) return verbatim;
      replace(i, j, commentShape(comment), comment);
      i = j;
    } else if (c === 47 && code.charCodeAt(i + 1) === 42) {
      const j = code.indexOf("*/", i + 2);
      if (j < 0) return verbatim;
      const comment = code.slice(i, j + 2);
      if (/prettier/i.test(comment)) return verbatim;
      if (comment.includes("\n")) {
        // prettier re-indents those: only a short skeleton stands for a doc comment on lines of its own
        const printed = short && ownLine(code, i, j + 2) ? printedDocComment(comment) : undefined;
        if (printed === undefined) return verbatim;
        replace(i, j + 2, commentShape(comment), printed);
      } else {
        replace(i, j + 2, commentShape(comment), comment);
      }
      i = j + 2;
    } else if (c === 35 && i > 0 && isIdentifierStart(code.charCodeAt(i + 1))) {
      i++; // a private name (`#store`): the `#` stays, the name is an identifier like any other
    } else if (c === 47 || c === 96 || c === 35 || c === 64) {
      return verbatim; // `/` (a regular expression or a division), a template literal, `#!`, `@decorator`
    } else {
      i++;
    }
  }
  parts.push(code.slice(copied));
  return { text: parts.join(""), originals, verbatim: false };
}

/**
 * Where the placeholders are in a formatted skeleton, in order: every identifier but the kept
 * words, every string of `#`, every comment (see skeletonOf). Undefined if it cannot tell.
 */
export function placeholderSpans(formatted: string): number[] | undefined {
  const spans: number[] = []; // start, end, start, end, ...
  let i = 0;
  const n = formatted.length;
  while (i < n) {
    const c = formatted.charCodeAt(i);
    if (isIdentifierStart(c)) {
      let j = i + 1;
      while (j < n && isIdentifierPart(formatted.charCodeAt(j))) j++;
      if (!KEEP.has(formatted.slice(i, j))) spans.push(i, j);
      i = j;
    } else if (c >= 48 && c <= 57) {
      let j = i + 1;
      while (j < n && (isIdentifierPart(formatted.charCodeAt(j)) || formatted.charCodeAt(j) === 46)) j++;
      i = j;
    } else if (c === 34 || c === 39) {
      let j = i + 1;
      while (j < n && formatted.charCodeAt(j) !== c && formatted.charCodeAt(j) !== 10) j += formatted.charCodeAt(j) === 92 ? 2 : 1;
      if (j >= n) return undefined;
      j++;
      if (/^(?:"#+"|'["#]*#["#]*')$/.test(formatted.slice(i, j))) spans.push(i, j);
      i = j;
    } else if (c === 47 && formatted.charCodeAt(i + 1) === 47) {
      const j = formatted.indexOf("\n", i) < 0 ? n : formatted.indexOf("\n", i);
      spans.push(i, j);
      i = j;
    } else if (c === 47 && formatted.charCodeAt(i + 1) === 42) {
      const j = formatted.indexOf("*/", i + 2);
      if (j < 0) return undefined;
      spans.push(i, j + 2);
      i = j + 2;
    } else {
      i++;
    }
  }
  return spans;
}

/**
 * A formatted skeleton with a statement's own tokens put back (`spans` from placeholderSpans).
 * Undefined when the placeholders did not all come back (then the statement is formatted itself).
 */
export function fillSkeleton(formatted: string, spans: readonly number[] | undefined, skeleton: Skeleton): string | undefined {
  if (skeleton.originals.length === 0) return formatted;
  if (!spans || spans.length !== 2 * skeleton.originals.length) return undefined;
  const parts: string[] = [];
  let last = 0;
  skeleton.originals.forEach((original, k) => {
    parts.push(formatted.slice(last, spans[2 * k]), original);
    last = spans[2 * k + 1]!;
  });
  parts.push(formatted.slice(last));
  return parts.join("");
}

/**
 * The placeholder of a string literal printedString can tell the printing of: its escaped double
 * quotes kept, everything else `#`. So it has the literal's width as written (which some of
 * prettier's choices read) and as printed (`"\"a\""` → `"\"#\""`, printed `'"#"'`, like `'"a"'`).
 */
function stringPlaceholder(literal: string): string {
  const end = literal.length - 1;
  if (!literal.includes("\\")) return `"${"#".repeat(end - 1)}"`;
  let placeholder = '"';
  for (let k = 1; k < end; k++) {
    if (literal.charCodeAt(k) === 92 && literal.charCodeAt(k + 1) === 34 && k + 1 < end) {
      placeholder += '\\"';
      k++;
    } else {
      placeholder += "#";
    }
  }
  return `${placeholder}"`;
}

/** A short skeleton's string placeholder: stringPlaceholder's with each run of `#` one `#`. */
function shortStringPlaceholder(literal: string): string {
  return literal.includes("\\") ? stringPlaceholder(literal).replace(/#+/g, "#") : literal.length > 2 ? '"#"' : '""';
}

/** Whether a `:` follows index `at` within 8 characters, after whitespace only (a property key's string ends there). */
function colonFollows(code: string, at: number): boolean {
  const end = Math.min(code.length, at + 8);
  for (let k = at; k < end; k++) {
    const c = code.charCodeAt(k);
    if (c === 58) return true;
    if (!isWhitespace(c)) return false;
  }
  return false;
}

/** Whether the 8 characters before index `at` end with the word `case` and whitespace (a `case` label's string starts there). */
function caseLabel(code: string, at: number): boolean {
  const start = Math.max(0, at - 8);
  let k = at;
  while (k > start && isWhitespace(code.charCodeAt(k - 1))) k--;
  if (k - 4 < start || !code.startsWith("case", k - 4)) return false;
  // `\bcase`: no word character right before it (within the 8 characters looked at).
  return k - 4 === start || !isWordCharacter(code.charCodeAt(k - 5));
}

function isWhitespace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || c === 11 || c === 12 || c === 0xa0 || c === 0xfeff;
}

/** `\w`: A-Z, a-z, 0-9, `_`. */
function isWordCharacter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
}

/**
 * How prettier prints a string literal (double quotes unless the text has more double quotes
 * than single ones, then single quotes and no escapes for the double ones), for the two cases
 * generated code has: no backslash at all, or escaped double quotes only and no single quote.
 * Undefined for anything else, which stays verbatim in the skeleton.
 */
function printedString(literal: string): string | undefined {
  if (literal.length <= 2) return undefined; // "" stays as it is
  if (literal[0] !== '"') return undefined;
  const content = literal.slice(1, -1);
  if (!content.includes("\\")) return content.includes('"') ? undefined : literal;
  if (content.includes("'") || content.replace(/\\"/g, "").includes("\\")) return undefined;
  return `'${content.replace(/\\"/g, '"')}'`;
}

/**
 * The name a quoted property key holds when prettier prints it unquoted (`{ "ttl": 1 }` →
 * `{ ttl: 1 }`): a plain ASCII name, not a kept word (printed as itself, it is no placeholder) nor
 * `__proto__` (quoted or not means different things). Its placeholder is a quoted identifier
 * placeholder, unquoted alike; where prettier keeps the quotes (a class property), the placeholder
 * goes missing from the formatted skeleton and the statement is formatted itself (see fillSkeleton).
 */
function unquotableKey(literal: string): string | undefined {
  const name = literal.slice(1, -1);
  return literal[0] === '"' && /^[A-Za-z_$][\w$]*$/.test(name) && !KEEP.has(name) && name !== "__proto__" ? name : undefined;
}

/**
 * Words kept as they are: keywords (JavaScript's and TypeScript's, contextual ones included) and
 * names prettier treats specially (test calls, `require`, Angular and React helpers).
 */
const KEEP = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "as implements interface let package private protected public static yield any boolean number string symbol " +
    "unknown never object undefined bigint type is keyof readonly declare namespace module abstract async await of " +
    "get set from infer unique satisfies asserts override accessor global out constructor arguments eval " +
    "it test describe xit xtest xdescribe fit fdescribe ftest skip only each beforeEach afterEach beforeAll " +
    "afterAll require define inject fakeAsync waitForAsync useEffect useMemo useCallback useLayoutEffect " +
    "useImperativeHandle React"
  ).split(" "),
);

/** A-Z, a-z, `_`, `$` (by character code). */
function isIdentifierStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}

function isIdentifierPart(c: number): boolean {
  return isIdentifierStart(c) || (c >= 48 && c <= 57);
}

/** Same length and case pattern: `isRecord12A` → `xxXxxxxx00X`. A keyword never comes out of it. */
function casePattern(word: string): string {
  let pattern = patterns.get(word);
  if (pattern === undefined) {
    if (patterns.size >= 100_000) patterns.clear(); // a long-lived process formats many sets
    pattern = word.replace(/[a-z]/g, "x").replace(/[A-Z]/g, "X").replace(/[0-9]/g, "0");
    patterns.set(word, pattern);
  }
  return pattern;
}

/**
 * The short placeholder of an identifier: what prettier's member chains read of it, its length up
 * to their "short" limit (tabWidth, 2) and whether it reads as a factory (capitalised, or only `$`
 * and `_`); `isRecord12A` → `xxx`, `Ajv` → `Xxx`, `$runtime` → `$xx`, `z` → `x`.
 */
function shortIdentifier(word: string): string {
  if (word.length <= 2 || /^[$_]+$/.test(word)) return casePattern(word);
  return `${casePattern(word[0]!)}xx`;
}

/**
 * Marks the start of each further line of a doc comment as printedDocComment gives it: the
 * comment's own indentation goes there once its place is known (see outline.ts).
 */
export const COMMENT_LINE = "\u0001";

/** Whether code[from, to) stands alone on its lines (only whitespace before it and after it there). */
function ownLine(code: string, from: number, to: number): boolean {
  const before = code.lastIndexOf("\n", from - 1);
  const after = code.indexOf("\n", to);
  return /^[ \t]*$/.test(code.slice(before + 1, from)) && /^[ \t]*$/.test(code.slice(to, after < 0 ? code.length : after));
}

/**
 * How prettier prints a block comment over several lines whose every further line starts with
 * `*` (a doc comment): each further line trimmed, after the comment's indentation and one space
 * (COMMENT_LINE stands for the indentation). Undefined for any other comment.
 */
function printedDocComment(comment: string): string | undefined {
  const value = comment.slice(2, -2);
  if (value.includes(COMMENT_LINE) || !`*${value}*`.split("\n").every((line) => line.trimStart().startsWith("*"))) return undefined;
  if (/[ \t]\n/.test(value)) return undefined; // trailing spaces: kept as they are, not worked out here
  const lines = value.split("\n");
  const rest = lines.slice(1).map((line, k) => `\n${COMMENT_LINE} ${k < lines.length - 2 ? line.trim() : line.trimStart()}`);
  return `/*${lines[0]!.trimEnd()}${rest.join("")}*/`;
}

/** The short placeholder of a one-line comment: only its kind, which is all prettier reads of it when nothing breaks. */
function shortComment(comment: string): string {
  return comment.startsWith("//") ? "// x" : comment.startsWith("/**") ? "/** x */" : "/* x */";
}

/** Generated code repeats its identifiers: each pattern is worked out once. */
const patterns = new Map<string, string>();

/** A comment of the same length and shape: letters and digits become x, the rest stays. */
function commentPattern(comment: string): string {
  return comment.replace(/[A-Za-z0-9]/g, "x");
}
