/**
 * `extension: ".mts"`: a set's modules as `.mts` files importing each other as `./name.mjs`, so Node and
 * TypeScript read them as ES modules whatever the host's package.json says. Generated modules import
 * only modules of their own set, always written `from "./name.js"` or, inside and into the runtime
 * folder, `from "../layer/name.js"` and `from "./runtime/layer/name.js"`, so renaming those specifiers
 * is the whole job.
 */

/** `./client.js` → `./client.mjs` (and `../server/core.js` → `../server/core.mjs`) in every `from "..."` of the set's modules. */
export function withMjsSpecifiers(code: string): string {
  return code.replace(/(\bfrom\s+")(\.\.?\/[A-Za-z0-9_/-]+)\.js(")/g, "$1$2.mjs$3");
}

/** `client.ts` → `client.mts`. */
export function mtsName(name: string): string {
  return name.replace(/\.ts$/, ".mts");
}
