/**
 * The task status model: which definition holds the statuses, which union (if any) has one
 * variant per status, and the status machine both revisions share (README.md › The generated API): working ↔
 * input_required; either → completed | failed | cancelled; those three are final. Found from the
 * schema's shapes, not from its file name.
 */
import { definitionsById, objectOf, refTarget } from "../ir/query.js";
import type { NamedDefinition } from "./naming.js";

export const TASK_STATUSES = ["working", "input_required", "completed", "failed", "cancelled"] as const;
export type TaskStatusName = (typeof TASK_STATUSES)[number];
export const TERMINAL_STATUSES: readonly TaskStatusName[] = ["completed", "failed", "cancelled"];
export const STATUS_TRANSITIONS: Readonly<Record<TaskStatusName, readonly TaskStatusName[]>> = {
  working: ["input_required", "completed", "failed", "cancelled"],
  input_required: ["working", "completed", "failed", "cancelled"],
  completed: [],
  failed: [],
  cancelled: [],
};

export interface StatusModel {
  /** The definition whose values are the statuses (`TaskStatus`). */
  readonly statusType: string;
  /** The object definition of a task (`Task`), when the schema has one. */
  readonly taskType?: string;
  /** A union with one variant per status, discriminated on `status` (`DetailedTask`). */
  readonly variantUnion?: { readonly name: string; readonly variants: readonly { status: TaskStatusName; name: string }[] };
}

export function findStatusModel(definitions: readonly NamedDefinition[]): StatusModel | undefined {
  const byId = definitionsById(definitions);
  const statusDef = definitions.find(
    (d) =>
      d.node.kind === "literal" &&
      d.node.values.length === TASK_STATUSES.length &&
      TASK_STATUSES.every((s) => (d.node as { values: readonly unknown[] }).values.includes(s)),
  );
  if (!statusDef) return undefined;

  const taskDef = definitions.find((d) => {
    if (d.node.kind !== "object") return false;
    const status = d.node.properties.find((p) => p.name === "status");
    return status?.required === true && status.node.kind === "ref" && status.node.target === statusDef.id;
  });

  let variantUnion: StatusModel["variantUnion"];
  for (const def of definitions) {
    const node = def.node;
    if (node.kind !== "union" || node.discriminator?.property !== "status") continue;
    const variants = node.discriminator.cases.map((c) => {
      const variant = node.variants[c.variant]!;
      const name = refTarget(variant, byId)?.name;
      return { status: c.values[0] as TaskStatusName, name, single: c.values.length === 1 };
    });
    const covers =
      variants.length === TASK_STATUSES.length &&
      variants.every((v) => v.single && v.name !== undefined && TASK_STATUSES.includes(v.status));
    if (covers && node.variants.every((v) => objectOf(v, byId))) {
      variantUnion = { name: def.name, variants: variants.map((v) => ({ status: v.status, name: v.name! })) };
      break;
    }
  }
  return {
    statusType: statusDef.name,
    ...(taskDef ? { taskType: taskDef.name } : {}),
    ...(variantUnion ? { variantUnion } : {}),
  };
}
