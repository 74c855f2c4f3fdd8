/** The status helpers module (`status.ts`), from `templates/status.ts.hbs` and the analyzed status model. */
import type { StatusModel } from "../analyze/status.js";
import { STATUS_TRANSITIONS, TASK_STATUSES, TERMINAL_STATUSES } from "../analyze/status.js";
import { renderTemplate } from "./templates.js";

export function emitStatusHelpers(status: StatusModel): string {
  const variantUnion = status.variantUnion;
  const taskType = status.taskType ?? "{ status: " + status.statusType + " }";
  const taskImports = variantUnion ? [variantUnion.name] : status.taskType ? [status.taskType] : [];
  return renderTemplate("status.ts.hbs", {
    statusType: status.statusType,
    taskImports,
    statuses: TASK_STATUSES,
    terminal: TERMINAL_STATUSES,
    transitions: TASK_STATUSES.map((s) => ({ status: s, to: STATUS_TRANSITIONS[s] })),
    variantUnion: variantUnion?.name ?? false,
    completedVariant: variantUnion?.variants.find((v) => v.status === "completed")?.name ?? "",
    taskType,
  });
}
