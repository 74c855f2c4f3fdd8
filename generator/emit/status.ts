/** The status helpers module (`status.ts`), from `templates/status.ts.hbs` and the analyzed status model. */
import type { StatusModel } from "../analyze/status.js";
import { render, typedTemplate } from "./templates.js";

/**
 * The global types the template refers to by name (a test holds this to the template). A
 * definition it imports under one of these names would shadow the global in status.ts, so such a
 * definition is imported under an alias.
 */
export const STATUS_TEMPLATE_GLOBALS: ReadonlySet<string> = new Set(["Exclude", "Extract"]);

/** What `status.ts.hbs` reads: every key is read, and nothing else is (test/runtime/template-views.test.ts). */
export interface StatusView {
  /** The status type as status.ts names it (aliased where it is a global's name). */
  readonly statusType: string;
  /** The import list from types.ts. */
  readonly imports: string;
  readonly statuses: readonly string[];
  readonly terminal: readonly string[];
  readonly transitions: readonly { readonly status: string; readonly to: readonly string[] }[];
  /** The per-status union, when the schema has one. */
  readonly variantUnion: string | false;
  readonly completedVariant: string;
  readonly taskType: string;
}

export const STATUS_TEMPLATE = typedTemplate<StatusView>("status.ts.hbs", {
  statusType: true,
  imports: true,
  statuses: true,
  terminal: true,
  transitions: { status: true, to: true },
  variantUnion: true,
  completedVariant: true,
  taskType: true,
});

export function emitStatusHelpers(status: StatusModel): string {
  const local = (name: string) => (STATUS_TEMPLATE_GLOBALS.has(name) ? `${name}Definition` : name);
  const imported = (name: string) => (local(name) === name ? name : `${name} as ${local(name)}`);
  const variantUnion = status.variantUnion;
  const taskType = status.taskType ? local(status.taskType) : "{ status: " + local(status.statusType) + " }";
  const taskImports = variantUnion ? [variantUnion.name] : status.taskType ? [status.taskType] : [];
  return render(STATUS_TEMPLATE, {
    statusType: local(status.statusType),
    imports: [status.statusType, ...taskImports].map(imported).join(", "),
    statuses: status.statuses,
    terminal: status.terminal,
    transitions: status.statuses.map((s) => ({ status: s, to: status.transitions[s] ?? [] })),
    variantUnion: variantUnion ? local(variantUnion.name) : false,
    completedVariant: variantUnion?.variants.find((v) => v.status === "completed")?.name ?? "",
    taskType,
  });
}
