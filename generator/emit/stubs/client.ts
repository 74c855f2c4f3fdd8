/** `client.ts` of a Tasks schema set, from `templates/client.ts.hbs` and the features its schema implies. */
import { GeneratorError } from "../../diagnostics.js";
import type { Model } from "../../analyze/model.js";
import { renderTemplate } from "../templates.js";
import type { RouteRole } from "./server-features.js";
import { inputRouting } from "./client-input.js";
import { clientFeatures, rejectsKey, type BodyCheck, type ClientFeatures, type ClientRoute, type MetaCheck } from "./client-features.js";

/** The client method of each task method, and what its comment says. */
const METHODS: Record<RouteRole, { readonly name: string; readonly spec: string; readonly doc: string }> = {
  get: { name: "getTask", spec: "GET_TASK", doc: "the task's current state." },
  payload: { name: "getTaskPayload", spec: "GET_TASK_PAYLOAD", doc: "the result of the request that created the task (the server answers once the task is finished)." },
  cancel: { name: "cancelTask", spec: "CANCEL_TASK", doc: "asks the server to cancel the task." },
  list: { name: "listTasks", spec: "LIST_TASKS", doc: "one page of the caller's tasks; `allTasks` walks every page." },
  update: { name: "updateTask", spec: "UPDATE_TASK", doc: "answers input requests of the task (a partial set is fine; answers to keys not pending are ignored)." },
};

const ROLE_ORDER: readonly RouteRole[] = ["get", "payload", "list", "update", "cancel"];

/** The client module, or undefined when the set defines no task methods. */
export function emitClient(model: Model): string | undefined {
  const features = clientFeatures(model);
  return features ? renderTemplate("client.ts.hbs", templateData(features, model)) : undefined;
}

function templateData(f: ClientFeatures, model: Model): object {
  const s = f.server;
  const { get, payload, update, list } = s.byRole;
  if (!get) throw new GeneratorError(undefined, "client stub: the set has no tasks/get");
  const detailed = s.detailed;
  const variantField = (source: "result" | "error" | "inputRequests") => detailed?.variants.find((v) => v.source === source);
  const completed = variantField("result");
  const failed = variantField("error");
  const input = variantField("inputRequests");
  const variantName = (status: string) => model.status?.variantUnion?.variants.find((v) => v.status === status)?.name;
  if (!payload && !completed?.field) {
    throw new GeneratorError(undefined, "client stub: neither tasks/result nor an inlined result tells the client a completed task's result");
  }

  const typeImports = new Set<string>([s.taskType, s.createResult]);
  const validatorImports = new Set<string>();
  const useCheck = (check: BodyCheck) => {
    typeImports.add(check.type);
    validatorImports.add(check.validate);
    if (check.metaApart?.kind === "validator") validatorImports.add(check.metaApart.name);
  };
  for (const route of f.routes) {
    typeImports.add(route.params);
    validatorImports.add(route.validate);
    useCheck(route.resultCheck);
  }
  useCheck(f.createResult);
  if (f.notification) useCheck(f.notification);
  if (detailed) {
    typeImports.add(detailed.union);
    validatorImports.add(`is${detailed.union}`);
  }
  const completedVariant = completed ? variantName(completed.status) : undefined;
  if (completedVariant) typeImports.add(completedVariant);
  const inputVariant = input ? variantName(input.status) : undefined;
  if (inputVariant && update) typeImports.add(inputVariant);
  const routing =
    update && input?.field && s.responsesField && inputVariant ? inputRouting(model, inputVariant, input.field, update.params, s.responsesField) : undefined;
  for (const name of routing?.imports ?? []) typeImports.add(name);
  if (f.augment) {
    typeImports.add(f.augment.type);
    validatorImports.add(f.augment.validate);
  }
  if (f.taskSupport) {
    typeImports.add(f.taskSupport.type);
    validatorImports.add(`is${f.taskSupport.type}`);
  }

  // A created task already finished, with its outcome inlined as tasks/get shows it (see the template).
  const unionRejectsMeta = detailed ? rejectsKey(definitionNode(model, detailed.union), "_meta", model.byId) : false;
  const createdDetailed = detailed
    ? { type: detailed.union, validate: `validate${detailed.union}`, meta: unionRejectsMeta ? metaValidator(f.createResult.metaApart) : false }
    : false;
  if (createdDetailed) validatorImports.add(createdDetailed.validate);

  // Methods in a reading order: look at a task, get its result, list, answer, cancel.
  const routes = [...f.routes].sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role)).map((route) => routeData(route));
  const metaApart = [...f.routes.map((r) => r.resultCheck), f.createResult, ...(f.notification ? [f.notification] : [])].filter((c) => c.metaApart);

  return {
    methodList: f.routes.map((r) => r.method).join(", "),
    notes: notes(f),
    metaApartTypes: metaApart.map((c) => c.type).join(", "),
    metaApartNote: metaApart.length > 0,
    metaObject: metaApart.some((c) => c.metaApart?.kind === "object"),
    typeImports: [...typeImports].sort(),
    validatorImports: [...validatorImports].sort(),
    statusType: s.statusType,
    taskType: s.taskType,
    snapshotType: detailed ? detailed.union : s.taskType,
    routes,
    taskMethods: f.routes.map((r) => r.method),
    get: routeData(f.routes.find((r) => r.role === "get")!),
    payload: payload ? routeData(f.routes.find((r) => r.role === "payload")!) : false,
    update: update ? routeData(f.routes.find((r) => r.role === "update")!) : false,
    cancel: s.byRole.cancel ? routeData(f.routes.find((r) => r.role === "cancel")!) : false,
    list: list && f.listFields ? { ...routeData(f.routes.find((r) => r.role === "list")!), items: f.listFields.items, nextCursor: f.listFields.nextCursor ?? false } : false,
    resultTag: f.resultTag,
    extension: s.extension,
    ttlField: s.ttlField,
    pollField: s.pollField ?? false,
    flatCreate: s.flatCreate,
    createResult: checkData(f.createResult),
    createdDetailed,
    detailed: detailed
      ? {
          union: detailed.union,
          inlined: detailed.variants.filter((v) => v.field).map((v) => ({ status: v.status, field: v.field })),
        }
      : false,
    completedField: completed?.field ?? false,
    completedResultType: completed?.field && completedVariant ? `${completedVariant}["${completed.field}"]` : payload ? payload.result : "never",
    failedField: failed?.field ?? false,
    payloadDeliversInput: Boolean(payload) && !(update && input?.field),
    input:
      update && input?.field && s.responsesField && inputVariant
        ? {
            requestsField: input.field,
            requestsType: `${inputVariant}["${input.field}"]`,
            responsesField: s.responsesField,
            updateParams: update.params,
            validate: update.validate,
            requestType: `${inputVariant}["${input.field}"][string]`,
            responseType: `${update.params}["${s.responsesField}"][string]`,
            typed: routing ?? false,
          }
        : false,
    notification: f.notification ? { ...checkData(f.notification), method: f.notification.method } : false,
    augment: f.augment ?? false,
    taskSupport: f.taskSupport ?? false,
  };
}

function definitionNode(model: Model, name: string) {
  const def = model.definitions.find((d) => d.name === name);
  if (!def) throw new GeneratorError(undefined, `client stub: definition ${name} is missing from the model`);
  return def.node;
}

function routeData(route: ClientRoute) {
  const method = METHODS[route.role];
  return {
    method: route.method,
    clientMethod: method.name,
    spec: method.spec,
    doc: method.doc,
    params: route.params,
    paramsType: route.stripMeta ? `WithRequestMeta<${route.params}>` : route.params,
    validateParams: route.validate,
    paramsRequired: route.paramsRequired,
    stripMeta: route.stripMeta,
    result: checkData(route.resultCheck),
  };
}

function checkData(check: BodyCheck) {
  return { type: check.type, validate: check.validate, meta: metaValidator(check.metaApart) };
}

function metaValidator(meta: MetaCheck | undefined): string | false {
  if (!meta) return false;
  return meta.kind === "validator" ? meta.name : "validateMetaObject";
}

/** The module comment's list of what the schema implies, so a reader sees why the client behaves as it does. */
function notes(f: ClientFeatures): string[] {
  const s = f.server;
  const out: string[] = [];
  out.push(
    s.detailed
      ? `\`tasks/get\` shows ${s.detailed.variants
          .filter((v) => v.field)
          .map((v) => `\`${v.field}\` when ${v.status}`)
          .join(", ")} (${s.detailed.union}), so a finished task's outcome is read from it.`
      : `\`tasks/get\` answers the task itself (${s.taskType}); a finished task's outcome is fetched with \`tasks/result\`.`,
  );
  if (s.byRole.list) out.push("`tasks/list` pages through the caller's tasks by cursor; `allTasks` walks every page.");
  if (s.byRole.update) out.push("`tasks/update` carries answers to the task's input requests; `waitForTask` sends them as handlers produce them.");
  else {
    out.push(
      "`tasks/get` shows no input requests and there is no `tasks/update`: a task that needs input (`input_required`) sends its own requests, " +
        (s.byRole.payload
          ? "delivered through `tasks/result`, which `waitForTask` asks for as soon as it sees `input_required`; the transport's request handlers answer them."
          : "which the transport's request handlers answer; `waitForTask` polls on until the task moves on."),
    );
  }
  if (s.byRole.cancel) {
    out.push(
      s.cancelAck
        ? "`tasks/cancel` answers an empty acknowledgement, for a finished task too: the outcome is seen through `tasks/get`."
        : "`tasks/cancel` answers the cancelled task; cancelling a finished task is an error (-32602).",
    );
  }
  out.push(
    s.flatCreate
      ? `The server alone decides to create a task: a request answers either its own result or a flat ${s.createResult}, told apart by \`resultType\` ("task" or "complete").`
      : f.augment
        ? `A request runs as a task when the client asks (\`params.${f.augment.field}\`: ${f.augment.type}); it then answers ${s.createResult} \`{ task }\`.`
        : `A request that created a task answers ${s.createResult}.`,
  );
  if (f.resultTag) out.push("The schema does not model `resultType`: the client reads it from each result and validates the rest.");
  if (s.extension) {
    out.push("Tasks are an extension: every request declares it in `params._meta[\"io.modelcontextprotocol/clientCapabilities\"].extensions`.");
    out.push("Over Streamable HTTP, `send` gets the routing headers `Mcp-Method` and `Mcp-Name` (`params.taskId` for task methods, the tool's name for `tools/call`).");
  }
  if (s.notification) {
    out.push(`\`${s.notification.method}\` carries the ${s.notification.detailed ? "detailed task" : "task"}; it wakes \`waitForTask\` before its next poll.`);
  }
  out.push(`Polls honour the task's \`${s.pollField ?? "poll interval"}\` (clamped), and \`createdAt\` + \`${s.ttlField}\` is a backstop.`);
  return out;
}
