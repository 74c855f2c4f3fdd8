/** Types of contenders.mjs (see there); the parts the bench's test uses. */
import type { Found, SchemaDocument, SetConfig } from "./hot-path.mjs";
export interface AjvCheck {
  (value: unknown): boolean;
  errors?: unknown[] | null;
}
export type ResolveRef = (ref: string, doc: SchemaDocument) => { schema: unknown; doc: SchemaDocument };
export function ajvForSet(
  set: SetConfig,
  root: string,
): {
  compile(name: string): Found & { standard: AjvCheck; allErrors: AjvCheck };
  resolveRef: ResolveRef;
  documents: SchemaDocument[];
  find(name: string): Found | undefined;
};
