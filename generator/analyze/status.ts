/**
 * The task status model: which definition holds the statuses, which union (if any) has one
 * variant per status, and the status machine both revisions share (README.md › The generated API): working ↔
 * input_required; either → completed | failed | cancelled; those three are final. Found from the
 * schema's meaning (through `$ref`s and `allOf`), not from its layout or its file name.
 */
import { constantValues, definitionsById, followRefs, intersectionView, propertyNode, refTarget } from "../ir/query.js";
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
  const isStatusSet = (values: readonly unknown[] | undefined): boolean =>
    values !== undefined && values.length === TASK_STATUSES.length && TASK_STATUSES.every((s) => values.includes(s));
  const statusDef = definitions.find((d) => d.node.kind === "literal" && isStatusSet(d.node.values));
  if (!statusDef) return undefined;

  // The task is the smallest object whose required `status` allows exactly the statuses (through
  // `$ref`s and `allOf`): results that carry a task (`Result & Task`, a flat CreateTaskResult)
  // add fields to it. Among equals, one whose `status` refers to the status definition, then source order.
  let taskDef: { def: NamedDefinition; size: number; refers: boolean } | undefined;
  for (const def of definitions) {
    const view = intersectionView(def.node, byId);
    const status = view?.properties.get("status");
    if (!view || !status?.required || !isStatusSet(constantValues(propertyNode(status), byId))) continue;
    const candidate = { def, size: view.properties.size, refers: status.nodes.some((n) => n.kind === "ref" && n.target === statusDef.id) };
    if (!taskDef || candidate.size < taskDef.size || (candidate.size === taskDef.size && candidate.refers && !taskDef.refers)) taskDef = candidate;
  }

  let variantUnion: StatusModel["variantUnion"];
  for (const def of definitions) {
    const node = followRefs(def.node, byId);
    if (node.kind !== "union" || node.discriminator?.property !== "status") continue;
    const variants = node.discriminator.cases.map((c) => {
      const variant = node.variants[c.variant]!;
      const name = refTarget(variant, byId)?.name;
      return { status: c.values[0] as TaskStatusName, name, single: c.values.length === 1 };
    });
    const covers =
      variants.length === TASK_STATUSES.length &&
      variants.every((v) => v.single && v.name !== undefined && TASK_STATUSES.includes(v.status));
    if (covers && node.variants.every((v) => intersectionView(v, byId))) {
      variantUnion = { name: def.name, variants: variants.map((v) => ({ status: v.status, name: v.name! })) };
      break;
    }
  }
  return {
    statusType: statusDef.name,
    ...(taskDef ? { taskType: taskDef.def.name } : {}),
    ...(variantUnion ? { variantUnion } : {}),
  };
}
