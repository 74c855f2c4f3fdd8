/**
 * Typed input routing for the generated client: when the schema says what a task's input
 * request is (a union of requests, each with its own `method` constant, as the ext-tasks set has
 * once `InputRequest` is bound), each method gets a handler typed by that request's `params` and
 * by the result it answers (`XRequest` ↔ `XResult` among the input response's variants, as the
 * method table pairs requests and results). When the input request is a placeholder (`unknown`),
 * there is nothing to type and the client keeps untyped handlers by method name.
 *
 * An `elicitation/create` request whose form the set can read (see elicitation-form.ts)
 * has its accepting answers checked with `validateElicitationContent` before they are sent.
 */
import type { Model } from "../model.js";
import type { NamedDefinition } from "../naming.js";
import type { DefinitionId, Node } from "../../ir/nodes.js";
import { definitionByName, followRefs, objectOf, refTarget } from "../../ir/query.js";
import { findRequestedSchema } from "./elicitation-form.js";

export interface InputHandlerType {
  /** The request's `method` (`elicitation/create`). */
  readonly method: string;
  /** The handler's params type (`ElicitRequestParams`, or `ListRootsRequest["params"]` when optional). */
  readonly params: string;
  /** The handler is called with the request's `params` (false: with `undefined`, the request has none). */
  readonly passesParams: boolean;
  /** The handler's result type (`ElicitResult`; the whole response type when no variant pairs with the request). */
  readonly result: string;
  /** Without a handler the request is answered `{ action: "cancel" }` (elicitation), instead of failing the wait. */
  readonly cancelByDefault: boolean;
  /** Accepting answers are checked against the request's form (`requestedSchema`). */
  readonly checksForm: boolean;
}

export interface InputRouting {
  readonly handlers: readonly InputHandlerType[];
  /** Type names the client imports for the handlers. */
  readonly imports: readonly string[];
  /** Whether some handler's answers are checked against a form (the client imports elicitation.ts). */
  readonly checksForms: boolean;
  /** The method whose accepting answers are checked against their form. */
  readonly formMethod: string | false;
}

/** The elicitation method: the one whose default answer and form check the protocol defines. */
const ELICITATION = "elicitation/create";

/**
 * The typed routing of input requests, from the type of one entry of `inputRequests` (a property
 * of `inputVariant`) and one entry of `inputResponses` (a property of `updateParams`); undefined
 * when the input request is not a union of requests told apart by `method`.
 */
export function inputRouting(model: Model, inputVariant: string, requestsField: string, updateParams: string, responsesField: string): InputRouting | undefined {
  const byId = model.byId;
  const entryOf = (owner: string, field: string): Node | undefined => {
    const def = definitionByName(model.definitions, owner);
    const property = def ? objectOf(def.node, byId)?.properties.find((p) => p.name === field) : undefined;
    const map = property ? followRefs(property.node, byId) : undefined;
    return map?.kind === "map" ? map.values : undefined;
  };
  const requests = variantsOf(entryOf(inputVariant, requestsField), byId);
  if (!requests) return undefined;
  const responses = new Set((variantsOf(entryOf(updateParams, responsesField), byId) ?? []).map((d) => d.name));
  const checksForms = findRequestedSchema(model) !== undefined;

  const imports = new Set<string>();
  const handlers: InputHandlerType[] = [];
  for (const request of requests) {
    const object = objectOf(request.node, byId);
    const method = object?.properties.find((p) => p.name === "method" && p.required);
    const methodName = method ? singleString(method.node, byId) : undefined;
    if (!object || !methodName) return undefined;
    const params = object.properties.find((p) => p.name === "params");
    const paramsDef = params?.required ? refTarget(params.node, byId) : undefined;
    let paramsType: string;
    if (paramsDef) {
      paramsType = paramsDef.name;
      imports.add(paramsDef.name);
    } else {
      // Optional or inline params: the request's own property type says what the handler gets.
      paramsType = params ? `${request.name}["params"]` : "undefined";
      if (params) imports.add(request.name);
    }
    const paired = request.name.replace(/Request$/, "Result");
    const result = paired !== request.name && responses.has(paired) ? paired : `${updateParams}["${responsesField}"][string]`;
    imports.add(result === paired ? paired : updateParams);
    const isElicitation = methodName === ELICITATION;
    handlers.push({
      method: methodName,
      params: paramsType,
      passesParams: Boolean(params),
      result,
      cancelByDefault: isElicitation,
      checksForm: isElicitation && checksForms,
    });
  }
  const formMethod = handlers.find((h) => h.checksForm)?.method ?? false;
  return { handlers, imports: [...imports], checksForms: formMethod !== false, formMethod };
}

/** The named definitions a union of references stands for, or undefined for anything else. */
function variantsOf(node: Node | undefined, byId: ReadonlyMap<DefinitionId, NamedDefinition>): NamedDefinition[] | undefined {
  const union = node ? followRefs(node, byId) : undefined;
  if (union?.kind !== "union") return undefined;
  const variants = union.variants.map((v) => refTarget(v, byId));
  return variants.every((v) => v !== undefined) ? (variants as NamedDefinition[]) : undefined;
}

function singleString(node: Node, byId: ReadonlyMap<DefinitionId, NamedDefinition>): string | undefined {
  const resolved = followRefs(node, byId);
  return resolved.kind === "literal" && resolved.values.length === 1 && typeof resolved.values[0] === "string" ? resolved.values[0] : undefined;
}
