/**
 * The helper thread of formatAll: loads prettier at once, then formats each batch of statements
 * it is sent and sends the results back with the batch's id, until it is terminated.
 */
import { parentPort } from "node:worker_threads";
import { formatBatch } from "./format.js";

const WARM_UP = [
  `/** A doc comment. */
export function isExample(value: unknown): value is Example {
  if (!$runtime.isObject(value)) return false;
  const value1 = value.name;
  if (value1 !== undefined && !(typeof value1 === "string" || (typeof value1 === "number" && Number.isInteger(value1) && value1 >= -9007199254740991 && value1 <= 9007199254740991))) return false;
  for (const key in value) {
    if (!(key === "name" || key === "kind")) return false;
  }
  return true;
}`,
  `export interface Example { readonly name?: string | number; kind: "a" | "b"; items: { id: string }[] }`,
  `if (value2 === undefined) $runtime.missing(errors, path, "id", at + "/required");
else if (!(value2 >= 0)) $runtime.report(errors, path + "/id", "minimum", "must be >= 0", at + "/properties/id/minimum/very/long/path/to/break");`,
];

// Loaded and warmed up on code like what it will format, so its first batch runs at full speed.
await formatBatch(WARM_UP);
parentPort!.on("message", async ({ id, texts, printWidth }: { id: number; texts: string[]; printWidth: number }) =>
  parentPort!.postMessage({ id, formatted: await formatBatch(texts, printWidth) }),
);
