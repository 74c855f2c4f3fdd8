/**
 * What the generated Tasks client must do, read from the analyzed model of a schema set. The
 * revision facts the server also needs (which task methods exist, whether `tasks/get` inlines
 * the outcome by status, flat CreateTaskResult, extension capability, ttl and poll field names)
 * come from `serverFeatures`, so client and server of a set can never disagree about them; this
 * module adds what only a client needs. Nothing here looks at the set's name.
 *
 * Client-only derivations (each from the schema):
 * - resultTag (the server features' own, server-features.ts): where the schema does not model
 *   `resultType` ("apart"), the client reads it from the result and validates the rest; where it does
 *   ("modeled"), results are validated with it; an absent tag is read as "complete" (the
 *   specification text: a result from an older server has none).
 * - metaApart: a result (or notification params) whose schema rejects a `_meta` property (an
 *   `allOf` with a branch closed by `additionalProperties: false` that does not declare it, as the
 *   ext-tasks seed has) would fail on the `_meta` every result may carry. Such a value has its
 *   `_meta` checked apart, with the schema's own definition of `_meta` (the one its other branch
 *   declares), and the rest checked by the value's validator.
 * - augment: a params definition with an optional `task` property whose type has a `ttl…` field
 *   and no `taskId` is how a request asks to run as a task (`TaskAugmentedRequestParams.task:
 *   TaskMetadata`); the client then offers `createTask` and reads `CreateTaskResult.task`.
 * - taskSupport: the named type of the Tool's `execution.taskSupport` (core-flows.ts), or else an enum of
 *   exactly forbidden | optional | required, is the per-tool declaration.
 * - protocolVersion: a definition with a required `io.modelcontextprotocol/protocolVersion` property
 *   (the core schema's `RequestMetaObject`) means every request declares its revision in `_meta`:
 *   the stateless revision, which the client then declares unless told otherwise (a client generated
 *   for a revision speaks it). Revisions with the initialize handshake negotiate it in the transport.
 */
import { GeneratorError } from "../../diagnostics.js";
import type { Model } from "../model.js";
import type { NamedDefinition } from "../naming.js";
import type { DefinitionId, Node } from "../../ir/nodes.js";
import {
  acceptsEveryObject,
  definitionByName,
  followRefs,
  intersectionView,
  namedPropertyTarget,
  objectView,
  propertyNode,
  rejectsKey,
  type PropertyView,
} from "../../ir/query.js";

export { rejectsKey };
import { serverFeatures, type ResultTag, type Route, type ServerFeatures } from "./server-features.js";

export type { ResultTag };
/** The `_meta` key in which a request of the stateless revision declares it. */
const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion";
/**
 * The first revision whose requests declare themselves (the stateless one, 2026-07-28): the schemas
 * type the `_meta` entry as any string, so the date is this one fact of the protocol's history
 * (the same as `STATELESS_PROTOCOL_VERSION` of templates/runtime/protocol/constants.ts, which the runtime serves and
 * speaks; test/runtime/client/client-headers-versions.test.ts holds the two equal).
 */
export const STATELESS_PROTOCOL_VERSION = "2026-07-28";


/** How a value's `_meta` is checked when its schema has no room for it. */
export type MetaCheck =
  /** A named definition's validator (`validateGetTaskResultMeta`). */
  | { readonly kind: "validator"; readonly name: string; readonly type: string }
  /** The schema only says "an object". */
  | { readonly kind: "object" };

/** How the client checks one message body (a result or notification params). */
export interface BodyCheck {
  /** The type (`GetTaskResult`). */
  readonly type: string;
  readonly validate: string;
  /** Set when `_meta` must be checked apart (see the module comment). */
  readonly metaApart?: MetaCheck;
}

export interface ClientRoute extends Route {
  readonly resultCheck: BodyCheck;
}

export interface ClientFeatures {
  readonly server: ServerFeatures;
  readonly routes: readonly ClientRoute[];
  /** The server features' `resultTag`, the same fact (see server-features.ts). */
  readonly resultTag: ResultTag;
  readonly createResult: BodyCheck;
  /** The property of tasks/list's result holding the page of tasks, and the one holding the next cursor. */
  readonly listFields?: { readonly items: string; readonly nextCursor?: string };
  readonly notification?: BodyCheck & { readonly method: string; readonly detailed: boolean };
  readonly augment?: { readonly field: string; readonly type: string; readonly validate: string };
  readonly taskSupport?: { readonly type: string };
  /** The revision every request declares in `_meta` by default (see the module comment). */
  readonly protocolVersion?: string;
}

/** The client's features, or undefined when the set has no task methods; `server`: the set's server features, when already computed (facts.ts). */
export function clientFeatures(model: Model, server: ServerFeatures | undefined = serverFeatures(model)): ClientFeatures | undefined {
  if (!server) return undefined;
  const definition = (name: string): NamedDefinition => {
    const def = definitionByName(model.definitions, name);
    if (!def) throw new GeneratorError(undefined, `client stub: definition ${name} is missing from the model`);
    return def;
  };
  const check = (name: string): BodyCheck => bodyCheck(definition(name), model);

  const notificationEntry = server.notification
    ? model.methods.notifications.find((n) => n.method === server.notification!.method)
    : undefined;
  const notification =
    server.notification && notificationEntry?.params
      ? { ...check(notificationEntry.params), method: server.notification.method, detailed: server.notification.detailed }
      : undefined;

  const list = server.byRole.list;
  const listProperties = list ? [...(objectView(definition(list.result).node, model.byId, "json-schema")?.properties.values() ?? [])].filter((p) => !p.partial) : [];
  const listItems = listProperties.find((p) => p.required && followRefs(propertyNode(p), model.byId).kind === "array")?.name;
  const nextCursor = listProperties.find((p) => /cursor$/i.test(p.name))?.name;
  if (list && !listItems) throw new GeneratorError(definition(list.result).loc, `client stub: ${list.result} has no array of tasks`);
  const listFields = listItems ? { items: listItems, ...(nextCursor ? { nextCursor } : {}) } : undefined;

  const augment = findAugmentation(model);
  // The Tool's own `execution.taskSupport` where the set has the Tool (its core definitions); else the enum of the three values.
  const toolDeclared = server.flows.taskSupport?.type;
  const taskSupport = toolDeclared !== undefined ? definition(toolDeclared) : model.definitions.find(
    (d) =>
      d.node.kind === "literal" &&
      d.node.values.length === 3 &&
      ["forbidden", "optional", "required"].every((v) => (d.node as { values: readonly unknown[] }).values.includes(v)),
  );

  return {
    server,
    routes: server.routes.map((route) => ({ ...route, resultCheck: check(route.result) })),
    resultTag: server.resultTag,
    createResult: check(server.createResult),
    ...(listFields ? { listFields } : {}),
    ...(notification ? { notification } : {}),
    ...(augment ? { augment } : {}),
    ...(taskSupport ? { taskSupport: { type: taskSupport.name } } : {}),
    ...(requestsDeclareRevision(model) ? { protocolVersion: STATELESS_PROTOCOL_VERSION } : {}),
  };
}

/** Whether some definition requires the `_meta` entry in which a request declares its revision. */
function requestsDeclareRevision(model: Model): boolean {
  return model.definitions.some((def) => objectView(def.node, model.byId, "json-schema")?.properties.get(PROTOCOL_VERSION_META)?.required === true);
}

function bodyCheck(def: NamedDefinition, model: Model): BodyCheck {
  const base = { type: def.name, validate: `validate${def.name}` };
  if (!rejectsKey(def.node, "_meta", model.byId)) return base;
  const meta = findProperty(def.node, "_meta", model.byId);
  const target = meta ? namedPropertyTarget(meta, model.byId) : undefined;
  if (target) return { ...base, metaApart: { kind: "validator", name: `validate${target.name}`, type: target.name } };
  if (meta?.nodes.every((node) => acceptsEveryObject(node, model.byId))) return { ...base, metaApart: { kind: "object" } };
  throw new GeneratorError(def.loc, `client stub: ${def.name} rejects \`_meta\` and declares no \`_meta\` the client could check apart`);
}

/**
 * `params.task` of a task-augmentable request: an optional property whose type has a ttl and is not a task.
 * Only the set's own definitions count: one only reached by `$ref` into another document (a bound input
 * request's params, say) describes a request the client is sent, not one it sends.
 */
function findAugmentation(model: Model): ClientFeatures["augment"] {
  for (const def of model.definitions) {
    if (!def.exported) continue;
    const task = intersectionView(def.node, model.byId)?.properties.get("task");
    const metadata = task && !task.required ? namedPropertyTarget(task, model.byId) : undefined;
    const fields = metadata ? [...(intersectionView(metadata.node, model.byId)?.properties.keys() ?? [])] : [];
    if (metadata && fields.some((f) => /^ttl/.test(f)) && !fields.includes("taskId")) {
      return { field: "task", type: metadata.name, validate: `validate${metadata.name}` };
    }
  }
  return undefined;
}

/** A declared property, through references, intersections and unions (some variant declaring it is enough). */
function findProperty(node: Node, key: string, byId: ReadonlyMap<DefinitionId, NamedDefinition>): PropertyView | undefined {
  return objectView(node, byId, "json-schema")?.properties.get(key);
}
