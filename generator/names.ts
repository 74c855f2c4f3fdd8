/**
 * Names as TypeScript reads them, and the names users choose: the rules every stage shares (config
 * checks a chosen name, bind and lower derive one, analyze/naming.ts decides them all). A leaf: it
 * imports only diagnostics.ts, so any stage may import it without closing an import circle.
 */
import type { SourceLocation } from "./diagnostics.js";

const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "as implements interface let package private protected public static yield any boolean number string symbol " +
    "unknown never object undefined bigint type " +
    // Not names of a type either: `await` at a module's top level, and the type operators.
    "await keyof readonly infer unique"
  ).split(" "),
);

export function isIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && !RESERVED.has(name);
}

/** `io.modelcontextprotocol/related-task` → `IoModelcontextprotocolRelatedTask`. */
export function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const joined = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
  if (joined === "") return "Value";
  return /^[0-9]/.test(joined) ? `N${joined}` : joined;
}

/**
 * A name in PascalCase that keeps what punctuation means in a name written as a type expression
 * (ts-json-schema-generator writes `ConditionalValueDef<(number[]|ExprRef)>`): `[]` is `Array`,
 * `|` is `Or`, `&` and `,` are `And`, `<` is `Of`; other punctuation separates words as in pascalCase.
 * `ConditionalValueDef<(number[]|ExprRef)>` → `ConditionalValueDefOfNumberArrayOrExprRef`.
 * Names without these characters come out as pascalCase gives them.
 */
export function spokenName(text: string): string {
  const spoken: Record<string, string> = { "[]": "Array", "|": "Or", "&": "And", ",": "And", "<": "Of" };
  return pascalCase(text.replace(/\[\]|[|&,<]/g, (p) => ` ${spoken[p]} `));
}

/**
 * A name the user chose for the schema at a JSON pointer (`names` in the config, `--name` on the
 * command line). It replaces the name the schema would give, and must not clash itself.
 */
export interface ChosenName {
  /** The schema file, as an absolute path. */
  readonly file: string;
  /** A JSON pointer into it (RFC 6901, not percent-encoded); "" is the whole document. */
  readonly pointer: string;
  readonly name: string;
  /** Where the choice was made: the config entry, or (for `--name`) the flag as given. */
  readonly origin: SourceLocation | { readonly flag: string };
}
