/** JSDoc comments from schema annotations. */
import type { Docs } from "../ir/nodes.js";

export function jsDoc(docs: Docs | undefined, extra: readonly string[] = []): string {
  const lines: string[] = [];
  if (docs?.description) lines.push(...docs.description.split(/\r?\n/));
  else if (docs?.title) lines.push(docs.title);
  if (docs?.deprecated) lines.push("@deprecated");
  lines.push(...extra);
  if (lines.length === 0) return "";
  const safe = lines.map((line) => line.replace(/\*\//g, "*\\/").trimEnd());
  if (safe.length === 1) return `/** ${safe[0]} */\n`;
  return `/**\n${safe.map((l) => (l ? ` * ${l}` : " *")).join("\n")}\n */\n`;
}
