/**
 * The task status model: which definition holds the statuses, which union (if any) has one
 * variant per status, and the status machine (README.md › The generated API). The statuses are
 * the schema's: every revision has the five below, and a revision may add more (a `"paused"`).
 * completed, failed and cancelled are final; every other status is not unless the set's config
 * says so (`"statuses": { "archived": { "terminal": true } }`), and a status that is not final may
 * move to any other status (working ↔ input_required ↔ paused ...; any of them → a final one). Found from the schema's
 * meaning (through `$ref`s and `allOf`), not from its layout or its file name.
 */
import { GeneratorError, type SourceLocation } from "../diagnostics.js";
import { constantValues, definitionsById, followRefs, intersectionView, propertyNode, refTarget } from "../ir/query.js";
import type { NamedDefinition } from "./naming.js";

/** The statuses every revision has; a status definition holds at least these. */
export const TASK_STATUSES = ["working", "input_required", "completed", "failed", "cancelled"] as const;
export type TaskStatusName = (typeof TASK_STATUSES)[number];
export const TERMINAL_STATUSES: readonly TaskStatusName[] = ["completed", "failed", "cancelled"];

export interface StatusModel {
  /** The definition whose values are the statuses (`TaskStatus`). */
  readonly statusType: string;
  /** Every status: the five of every revision first, in their usual order, then those the schema adds, in its order. */
  readonly statuses: readonly string[];
  /** The statuses a task never leaves (completed, failed, cancelled). */
  readonly terminal: readonly string[];
  /** The legal moves: from a status that is not final, to any other status; from a final one, none. */
  readonly transitions: Readonly<Record<string, readonly string[]>>;
  /** The object definition of a task (`Task`), when the schema has one. */
  readonly taskType?: string;
  /** A union with one variant per status, discriminated on `status` (`DetailedTask`). */
  readonly variantUnion?: { readonly name: string; readonly variants: readonly { status: string; name: string }[] };
}

/** The statuses a set of constant values holds, base ones first; undefined unless it holds every base status and only strings. */
export function statusesOf(values: readonly unknown[] | undefined): string[] | undefined {
  if (!values || !values.every((v): v is string => typeof v === "string")) return undefined;
  if (!TASK_STATUSES.every((s) => values.includes(s))) return undefined;
  return [...TASK_STATUSES, ...values.filter((v) => !(TASK_STATUSES as readonly string[]).includes(v))];
}

/** What the config says of a status the schema adds: whether it is final, and where it says so. */
export interface StatusSetting {
  readonly status: string;
  readonly terminal: boolean;
  readonly origin: SourceLocation;
}

/** The status machine over the statuses of a schema; `alsoTerminal`: added statuses the config makes final. */
export function statusMachine(statuses: readonly string[], alsoTerminal: readonly string[] = []): Pick<StatusModel, "terminal" | "transitions"> {
  const terminal = statuses.filter((s) => (TERMINAL_STATUSES as readonly string[]).includes(s) || alsoTerminal.includes(s));
  const transitions = Object.fromEntries(statuses.map((from) => [from, terminal.includes(from) ? [] : statuses.filter((to) => to !== from)]));
  return { terminal, transitions };
}

/**
 * The status model of a set's definitions; `settings`, the config's `statuses`, must each name a
 * status the schema adds (else a located error at the config entry: a misspelt or stale name would
 * otherwise leave a status silently non-final).
 */
export function findStatusModel(definitions: readonly NamedDefinition[], settings: readonly StatusSetting[] = []): StatusModel | undefined {
  const byId = definitionsById(definitions);
  const statusDef = definitions.find((d) => d.node.kind === "literal" && statusesOf(d.node.values) !== undefined);
  const statuses = statusDef?.node.kind === "literal" ? statusesOf(statusDef.node.values)! : [];
  for (const setting of settings) {
    if (statuses.includes(setting.status)) continue;
    const added = statuses.filter((s) => !(TASK_STATUSES as readonly string[]).includes(s));
    throw new GeneratorError(
      setting.origin,
      statusDef
        ? `the schema has no status "${setting.status}"; the statuses it adds are ${added.length > 0 ? added.map((s) => `"${s}"`).join(", ") : "none"}`
        : `the schema has no task status definition (an enum of ${TASK_STATUSES.join(", ")}), so no status "${setting.status}" to configure`,
      "config",
    );
  }
  if (!statusDef || statusDef.node.kind !== "literal") return undefined;
  const isStatusSet = (values: readonly unknown[] | undefined): boolean =>
    values !== undefined && values.length === statuses.length && statuses.every((s) => values.includes(s));

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
      return { status: c.values[0] as string, name, single: c.values.length === 1 };
    });
    const covers =
      variants.length === statuses.length &&
      variants.every((v) => v.single && v.name !== undefined && statuses.includes(v.status));
    if (covers && node.variants.every((v) => intersectionView(v, byId))) {
      variantUnion = { name: def.name, variants: variants.map((v) => ({ status: v.status, name: v.name! })) };
      break;
    }
  }
  return {
    statusType: statusDef.name,
    statuses,
    ...statusMachine(statuses, settings.filter((s) => s.terminal).map((s) => s.status)),
    ...(taskDef ? { taskType: taskDef.def.name } : {}),
    ...(variantUnion ? { variantUnion } : {}),
  };
}
