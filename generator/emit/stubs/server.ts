/** `server.ts` of a Tasks schema set, from `templates/server.ts.hbs` and the features its schema implies. */
import type { Model } from "../../analyze/model.js";
import { renderTemplate } from "../templates.js";
import { serverFeatures, type RouteRole, type ServerFeatures, type StatusVariant } from "./server-features.js";

/** The handler method of each route in the generated server class. */
const HANDLERS: Record<RouteRole, string> = {
  get: "getTask",
  cancel: "cancelTask",
  list: "listTasks",
  payload: "taskPayload",
  update: "updateTask",
};

/** How the stored task fills what a status variant inlines. */
const INLINED: Record<NonNullable<StatusVariant["source"]>, string> = {
  inputRequests: "{ ...task.inputRequests }",
  result: 'stored(task.result, "result")',
  error: '{ ...stored(task.error, "error") }',
};

/** The server module, or undefined when the set defines no task methods. */
export function emitServer(model: Model): string | undefined {
  const features = serverFeatures(model);
  return features ? renderTemplate("server.ts.hbs", templateData(features)) : undefined;
}

function templateData(f: ServerFeatures): object {
  const { get, cancel, list, payload, update } = f.byRole;
  const typeImports = new Set<string>([f.statusType, f.taskType, f.createResult]);
  for (const route of f.routes) {
    typeImports.add(route.params);
    typeImports.add(route.result);
  }
  if (f.detailed) typeImports.add(f.detailed.union);
  if (update && f.detailed?.inputRequestsOf) typeImports.add(f.detailed.inputRequestsOf.replace(/\[.*$/, ""));
  if (f.notification) typeImports.add(f.notification.type);

  return {
    methodList: f.routes.map((r) => r.method).join(", "),
    notes: notes(f),
    typeImports: [...typeImports].sort(),
    validatorImports: [...new Set(f.routes.map((r) => r.validate))].sort(),
    // tasks/update: answers to keys the task does not await are ignored, content included, so their
    // values are validated in the handler, for the keys it uses (deferResponses), not up front.
    routes: f.routes.map((r) => ({ ...r, handler: HANDLERS[r.role], deferResponses: r.role === "update" && f.responsesField !== undefined })),
    stripsMeta: f.routes.some((r) => r.stripMeta),
    statusType: f.statusType,
    taskType: f.taskType,
    get: get ?? false,
    cancel: cancel ?? false,
    list: list ?? false,
    payload: payload ?? false,
    update: update ?? false,
    detailed: f.detailed
      ? {
          union: f.detailed.union,
          inputRequestsOf: f.detailed.inputRequestsOf ?? false,
          variants: f.detailed.variants.map((v) => ({
            status: v.status,
            field: v.field ?? false,
            value: v.source ? INLINED[v.source] : false,
          })),
        }
      : false,
    detailedSummary: f.detailed
      ? f.detailed.variants
          .filter((v) => v.field)
          .map((v) => `\`${v.field}\` when ${v.status}`)
          .join(", ")
      : "",
    ttlField: f.ttlField,
    pollField: f.pollField ?? false,
    createResult: f.createResult,
    flatCreate: f.flatCreate,
    resultType: f.flatCreate,
    cancelAck: f.cancelAck,
    extension: f.extension,
    responsesField: f.responsesField ?? false,
    inputRequestsType: f.detailed?.inputRequestsOf ?? false,
    inputResponsesType: update && f.responsesField ? `${update.params}["${f.responsesField}"]` : false,
    cursorField: f.cursorField ?? false,
    notification: f.notification ?? false,
  };
}

/** The module comment's list of what the schema implies, so a reader sees why the server behaves as it does. */
function notes(f: ServerFeatures): string[] {
  const { cancel, list, payload, update } = f.byRole;
  const out: string[] = [];
  out.push(
    f.detailed
      ? `\`tasks/get\` answers the task with ${f.detailed.variants
          .filter((v) => v.field)
          .map((v) => `\`${v.field}\``)
          .join(", ")} inlined by status (${f.detailed.union}).`
      : `\`tasks/get\` answers the task itself (${f.taskType}).`,
  );
  if (payload) out.push("`tasks/result` waits for the task to finish and answers its result with the related-task `_meta`, or its error.");
  if (list) out.push("`tasks/list` pages through the caller's own tasks with an opaque cursor.");
  if (update) out.push(`\`tasks/update\` delivers answers to pending input requests; unknown or already answered keys are ignored.`);
  if (cancel) {
    out.push(
      f.cancelAck
        ? "`tasks/cancel` answers an empty acknowledgement, for a finished task too."
        : "`tasks/cancel` answers the cancelled task; cancelling a finished task is an error (-32602).",
    );
  }
  out.push(
    f.flatCreate
      ? `${f.createResult} is flat (the task's own fields), so results carry \`resultType\`: "task" for a created task, "complete" otherwise.`
      : `${f.createResult} nests the task under \`task\`.`,
  );
  if (f.extension) {
    out.push("Tasks are an extension the client declares per request in `_meta` client capabilities; without it task methods answer -32021.");
    out.push("Over Streamable HTTP the `Mcp-Name` header must equal `params.taskId` (-32020), checked before any lookup.");
  }
  if (f.notification) {
    out.push(`\`${f.notification.method}\` carries the ${f.notification.detailed ? "detailed task" : "task"} after every change.`);
  }
  return out;
}
