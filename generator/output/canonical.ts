/**
 * Outlines prettier would print as they are written, recognised without running it. Our emitters
 * print the simplest declarations in prettier's form already (one line each, its spacing, double
 * quotes, a `;` after each); for an outline made only of such lines (see outline.ts: its short
 * skeleton, names reduced to `xxx` and strings to `"#"`), what prettier prints with no width limit
 * is the text itself, members of an interface indented one level. Anything else is formatted by
 * prettier. test/generator/output/format.test.ts (every generated file) and format-chunks.test.ts
 * (prettier's own output for each shape recognised here) are the proof.
 */

const NAME = String.raw`[A-Za-z_$][\w$]*`;
/** A name (maybe qualified) or a plain string, maybe an array of it. */
const SIMPLE = String.raw`(?:${NAME}(?:\.${NAME})*|"#")(?:\[\])*`;
const SIMPLE_UNION = String.raw`${SIMPLE}(?: \| ${SIMPLE})*`;
/**
 * A type that is a name (maybe qualified, maybe with type arguments that are unions of simple
 * types), a plain string, a map of unknowns or an object of one simple property; maybe an array of it.
 */
const ATOM = String.raw`(?:${NAME}(?:\.${NAME})*(?:<${SIMPLE_UNION}(?:, ${SIMPLE_UNION})*>)?|"#"|\{ \[${NAME}: string\]: unknown \}|\{ (?:readonly )?${NAME}\??: ${SIMPLE} \})(?:\[\])*`;
/** A union or an intersection of atoms (not both: their grouping would need parentheses). */
const COMBINED = String.raw`${ATOM}(?:(?: \| ${ATOM})*|(?: & ${ATOM})+)`;
/** Parameters of plain names and types. */
const PARAMS = String.raw`(?:${NAME}\??: ${COMBINED}(?:, ${NAME}\??: ${COMBINED})*)?`;
/** A combination of atoms, or a function type returning one (alone: in a union it would need parentheses). */
const TYPE = String.raw`(?:${COMBINED}|\(${PARAMS}\) => ${COMBINED})`;
const SPECIFIERS = String.raw`\{ (?:type )?${NAME}(?: as ${NAME})?(?:, (?:type )?${NAME}(?: as ${NAME})?)* \}`;

/** Whole lines prettier prints as they are, at the top level of a module. */
const STATEMENT_LINES = [
  String.raw`(?:\/\*\* x \*\/|\/\* x \*\/|\/\/ x)`, // a comment (short skeletons keep only its kind)
  String.raw`import (?:type )?${SPECIFIERS} from "#";`,
  String.raw`import \* as ${NAME} from "#";`,
  String.raw`export (?:type )?${SPECIFIERS}(?: from "#")?;`,
  String.raw`(?:export )?type ${NAME} = ${TYPE};`,
].map((line) => new RegExp(`^${line}$`));

/** An interface member's lines (see Part in outline.ts), printed one level deeper. */
const MEMBER_LINES = [
  STATEMENT_LINES[0]!,
  new RegExp(String.raw`^(?:readonly )?(?:${NAME}\??|\[${NAME}: string\]): ${TYPE};$`),
  new RegExp(String.raw`^${NAME}\??\(${PARAMS}\): ${TYPE};$`), // a method
];

const INTERFACE_WRAPPER = "interface X {";

/** What prettier prints for an outline's short skeleton with no width limit, when it can be told without it; else undefined. */
export function printedAsWritten(skeleton: string): string | undefined {
  const lines = skeleton.split("\n");
  if (lines[0] === INTERFACE_WRAPPER && lines[lines.length - 1] === "}") {
    const members = lines.slice(1, -1);
    if (members.length === 0 || !members.every((line) => MEMBER_LINES.some((pattern) => pattern.test(line)))) return undefined;
    return `${[INTERFACE_WRAPPER, ...members.map((line) => `  ${line}`), "}"].join("\n")}\n`;
  }
  const joined = joinSpecifierLists(lines);
  // A blank line between two lines stays (one, as written); none leads, ends or doubles.
  const blanksKept = joined.every((line, k) => line !== "" || (k > 0 && k < joined.length - 1 && joined[k - 1] !== ""));
  if (!blanksKept) return undefined;
  return joined.every((line) => line === "" || STATEMENT_LINES.some((pattern) => pattern.test(line))) ? `${joined.join("\n")}\n` : undefined;
}

/**
 * Imports and exports the emitter lists one name a line (`import {`, `  A,`, `} from "./x.js";`),
 * on one line as prettier joins them with no width limit; other lines as they are.
 */
function joinSpecifierLists(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^((?:import|export)(?: type)? )\{$/.exec(lines[i]!);
    let end = i + 1;
    while (open && end < lines.length && SPECIFIER_LINE.test(lines[end]!)) end++;
    const close = open && end > i + 1 && end < lines.length ? /^\}((?: from "#")?;)$/.exec(lines[end]!) : null;
    if (!close) {
      out.push(lines[i]!);
      continue;
    }
    const names = lines.slice(i + 1, end).map((line) => line.trim().slice(0, -1));
    out.push(`${open![1]}{ ${names.join(", ")} }${close[1]}`);
    i = end;
  }
  return out;
}

const SPECIFIER_LINE = new RegExp(String.raw`^  (?:type )?${NAME}(?: as ${NAME})?,$`);
