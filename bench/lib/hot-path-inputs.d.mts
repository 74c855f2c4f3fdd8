/** Types of hot-path-inputs.mjs (see there). */
import type { ResolveRef } from "./contenders.mjs";
import type { SchemaDocument } from "./hot-path.mjs";
export interface BenchInput {
  label: string;
  value: unknown;
  valid: boolean;
}
export function buildInputs(options: {
  schema: unknown;
  doc: SchemaDocument;
  kind: "result" | "request" | "notification";
  resolveRef: ResolveRef;
  judge(value: unknown): boolean;
}): { valid: BenchInput[]; invalid: BenchInput[]; problem?: string };
