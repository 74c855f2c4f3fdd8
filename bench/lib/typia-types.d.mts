/** Types of typia-types.mjs (see there). */
import type { ResolveRef } from "./contenders.mjs";
import type { Found, SchemaDocument } from "./hot-path.mjs";
export function reachOf(
  schema: unknown,
  doc: SchemaDocument,
  name: string,
  resolveRef: ResolveRef,
  options?: { followRefs?: boolean },
): { numeric: Map<string, Set<string>>; beyond: string[]; objects: { closed: number; open: number } };
export function tagsFor(signature: string): string;
export function typiaSources(
  typesSource: string,
  definitions: { name: string; schema: unknown; doc: SchemaDocument }[],
  resolveRef: ResolveRef,
  find: (name: string) => Found | undefined,
): { types: string; checks: string; refused: Map<string, string>; tagged: number };
