/** JSDoc comments from schema annotations. */
import type { Docs } from "../ir/nodes.js";

/**
 * The comment for a declaration or property. Schema text is written as text: it can neither end
 * the comment (`*\/`) nor add tags (`@deprecated` in a description), and every line break JSON
 * can hold (U+2028 and U+2029 too) starts a comment line. The schema's `format`, `default` and
 * `examples` follow as `@format`, `@default` and `@example` tags, their values as JSON text (escaped
 * like a description, so a value cannot close the comment or start a tag of its own). Lines in `extra` are the generator's own
 * (tags included) and are written as given.
 */
export function jsDoc(docs: Docs | undefined, extra: readonly string[] = []): string {
  const lines: string[] = [];
  if (docs?.description) lines.push(...asCommentText(docs.description));
  else if (docs?.title) lines.push(...asCommentText(docs.title));
  if (docs?.format !== undefined) lines.push(...tagged("@format", docs.format));
  if (docs && "default" in docs) lines.push(...tagged("@default", JSON.stringify(docs.default)));
  for (const example of docs?.examples ?? []) lines.push(...tagged("@example", JSON.stringify(example)));
  if (docs?.deprecated) lines.push("@deprecated");
  lines.push(...extra);
  if (lines.length === 0) return "";
  const safe = lines.map((line) => line.replace(/\*\//g, "*\\/").trimEnd());
  if (safe.length === 1) return `/** ${safe[0]} */\n`;
  return `/**\n${safe.map((l) => (l ? ` * ${l}` : " *")).join("\n")}\n */\n`;
}

/**
 * Schema text as comment lines. An `@` that starts a word would begin a JSDoc tag; TSDoc's escape
 * `\@` keeps it text (an `@` inside a word, as in an e-mail address, is text already).
 */
function asCommentText(text: string): string[] {
  return text.split(/\r\n|[\r\n\u2028\u2029]/).map((line) => line.replace(/(^|\s)@/g, "$1\\@"));
}

/** A tag the generator writes, with schema text after it (`@default {"a":1}`); the text's own line breaks continue the tag. */
function tagged(tag: string, text: string): string[] {
  const [first = "", ...rest] = asCommentText(text);
  return [`${tag} ${first}`, ...rest];
}
