/**
 * Multi round-trip requests for the generated client (the 2026-07-28 `mrtr.mdx`): a request may
 * answer `resultType: "input_required"` with input requests and/or an opaque `requestState`, and
 * the client retries it with the answers. The field names and the checks come from the schema:
 * - when the set has an InputRequiredResult (its revision's core definitions, as core-flows.ts finds it), from it: its map of
 *   input requests and its string state; the answers' field is the map the request params beside
 *   that state declare (`CallToolRequestParams.inputResponses`), and the methods are those
 *   requests';
 * - otherwise (a Tasks schema alone), from the task's input: the map `InputRequiredTask` shows and
 *   the one `tasks/update` carries (the Tasks extension's "Composition with Multi Round-Trip
 *   Requests": the two flows share field names), `requestState`, and the requests `mrtr.mdx` lists.
 * Only where results carry `resultType` (how `input_required` is told apart) and the client answers
 * input requests. The `resultType` value itself is only in the specification text.
 */
import type { Model } from "../model.js";
import type { NamedDefinition } from "../naming.js";
import { definitionByName, followRefs, intersectionView, jsonTypes, namedPropertyTarget, propertyNode, type PropertyView } from "../../ir/query.js";
import type { ResultTag } from "./client-features.js";
import { coreFlows, type InputRequiredFlow } from "./core-flows.js";

/** `resultType` of an InputRequiredResult (mrtr.mdx, "InputRequiredResult"). */
export const INPUT_REQUIRED = "input_required";
/** The requests a server may answer with an InputRequiredResult (mrtr.mdx, "Supported Requests"), where the schema does not say. */
export const ROUND_TRIP_METHODS = ["tools/call", "prompts/get", "resources/read"] as const;
/** The state a retry echoes (mrtr.mdx), where the schema does not say. */
export const REQUEST_STATE = "requestState";

/** A definition with its validator, as the client checks a value with it. */
export interface NamedCheck {
  readonly type: string;
  readonly validate: string;
}

export interface RoundTripFeatures {
  readonly resultType: string;
  readonly requestsField: string;
  readonly responsesField: string;
  readonly stateField: string;
  readonly methods: readonly string[];
  /** The map of input requests, and the map of answers. */
  readonly requests: NamedCheck;
  readonly responses: NamedCheck;
}

/** Where the task's input shows its requests and `tasks/update` carries answers (see client.ts). */
export interface TaskInputFields {
  readonly inputVariant: string;
  readonly requestsField: string;
  readonly updateParams: string;
  readonly responsesField: string;
}

/** The set's multi round-trip requests, or undefined when it has none (see the module comment). */
export function roundTripFeatures(
  model: Model,
  resultTag: ResultTag,
  taskInput: TaskInputFields | undefined,
  inputRequired: InputRequiredFlow | undefined = coreFlows(model).inputRequired,
): RoundTripFeatures | undefined {
  if (resultTag === "none" || !taskInput) return undefined;
  const fromResult = inputRequired ? fromInputRequiredResult(model, inputRequired.type) : undefined;
  if (fromResult) return fromResult;
  const requests = mapTarget(model, taskInput.inputVariant, taskInput.requestsField);
  const responses = mapTarget(model, taskInput.updateParams, taskInput.responsesField);
  if (!requests || !responses) return undefined;
  return {
    resultType: INPUT_REQUIRED,
    requestsField: taskInput.requestsField,
    responsesField: taskInput.responsesField,
    stateField: REQUEST_STATE,
    methods: [...ROUND_TRIP_METHODS],
    requests: check(requests),
    responses: check(responses),
  };
}

/** From the InputRequiredResult the core flows found (by its fields, whatever its name) and the request params that declare its state, when the set has them all. */
function fromInputRequiredResult(model: Model, resultName: string): RoundTripFeatures | undefined {
  const result = definitionByName(model.definitions, resultName);
  const properties = result ? [...(intersectionView(result.node, model.byId)?.properties.values() ?? [])] : [];
  const requestsProperty = properties.find((p) => isMap(p, model));
  const stateProperty = properties.find((p) => p.name !== "resultType" && isString(p, model));
  const requests = requestsProperty ? namedPropertyTarget(requestsProperty, model.byId) : undefined;
  if (!requestsProperty || !stateProperty || !requests) return undefined;
  const methods: string[] = [];
  let responses: { readonly field: string; readonly target: NamedDefinition } | undefined;
  for (const entry of model.methods.requests) {
    const params = entry.params ? definitionByName(model.definitions, entry.params) : undefined;
    const view = params ? intersectionView(params.node, model.byId) : undefined;
    if (!view?.properties.has(stateProperty.name)) continue;
    methods.push(entry.method);
    const answers = [...view.properties.values()].find((p) => isMap(p, model));
    const target = answers ? namedPropertyTarget(answers, model.byId) : undefined;
    if (answers && target) responses ??= { field: answers.name, target };
  }
  if (!responses || methods.length === 0) return undefined;
  return {
    resultType: INPUT_REQUIRED,
    requestsField: requestsProperty.name,
    responsesField: responses.field,
    stateField: stateProperty.name,
    methods: methods.sort(),
    requests: check(requests),
    responses: check(responses.target),
  };
}

/** The named map definition a property of `owner` refers to (`InputRequiredTask.inputRequests` → `InputRequests`). */
function mapTarget(model: Model, owner: string, field: string): NamedDefinition | undefined {
  const def = definitionByName(model.definitions, owner);
  const property = def ? intersectionView(def.node, model.byId)?.properties.get(field) : undefined;
  const target = property ? namedPropertyTarget(property, model.byId) : undefined;
  return target && followRefs(target.node, model.byId).kind === "map" ? target : undefined;
}

function isMap(property: PropertyView, model: Model): boolean {
  return followRefs(propertyNode(property), model.byId).kind === "map";
}

function isString(property: PropertyView, model: Model): boolean {
  const types = jsonTypes(propertyNode(property), model.byId);
  return types !== undefined && types.size === 1 && types.has("string");
}

function check(def: NamedDefinition): NamedCheck {
  return { type: def.name, validate: `validate${def.name}` };
}
