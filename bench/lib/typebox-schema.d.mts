/** Types of typebox-schema.mjs (see there). */
import type { ResolveRef } from "./contenders.mjs";
import type { SchemaDocument } from "./hot-path.mjs";
export class TypeBoxRefusal extends Error {}
export function compileTypeBox(options: { schema: unknown; doc: SchemaDocument; pointer: string; resolveRef: ResolveRef }): (value: unknown) => boolean;
