/**
 * Where lint findings point, and how messages name places and values. Every IR node keeps the
 * location of the schema it came from, so a finding can point at the exact keyword.
 */
import { formatLocation, type SourceLocation } from "../diagnostics.js";
import type { JsonValue, Node } from "../ir/nodes.js";
import { appendPointer } from "../load/json-pointer.js";

/** The location `tokens` below `loc` (`at(loc, "properties", name)`). */
export function at(loc: SourceLocation, ...tokens: (string | number)[]): SourceLocation {
  return { file: loc.file, pointer: appendPointer(loc.pointer, ...tokens) };
}

/**
 * The location of the schema a node was lowered from: a `$ref` node sits at `.../$ref`, an
 * `anyOf`/`oneOf` at `.../anyOf`, a `not` at `.../not`, a conditional at `.../if` (decided by the
 * node's kind: a property may well be named `type` or `anyOf`).
 */
export function schemaLocation(node: Node): SourceLocation {
  switch (node.kind) {
    case "ref":
    case "union":
    case "not":
    case "conditional":
      return parent(node.loc);
    default:
      return node.loc;
  }
}

export function parent(loc: SourceLocation): SourceLocation {
  return { file: loc.file, pointer: loc.pointer.slice(0, loc.pointer.lastIndexOf("/")) };
}

/** A location as a message shows it: `#/pointer` in the same file as `from`, `file#/pointer` otherwise. */
export function where(loc: SourceLocation, from: SourceLocation): string {
  return loc.file === from.file ? `#${loc.pointer}` : formatLocation(loc);
}

/** Property names for a message: quoted, at most eight, then how many more. */
export function list(names: readonly string[]): string {
  if (names.length === 0) return "no property";
  const shown = names.slice(0, 8).map((n) => `"${n}"`);
  return names.length > 8 ? `${shown.join(", ")} and ${names.length - 8} more` : shown.join(", ");
}

/** A JSON value for a message, cut at 80 characters. */
export function shortJson(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
