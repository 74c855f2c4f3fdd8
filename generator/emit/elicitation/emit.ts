/**
 * `elicitation.ts` of a set that has an elicitation form (see analyze/protocol/elicitation-form.ts): the glue rendered from
 * `templates/elicitation.ts.hbs` that binds the static `elicitation-forms.ts` to the set's validator
 * of requested schemas.
 */
import type { Model } from "../../analyze/model.js";
import { render, typedTemplate } from "../templates.js";
import { findRequestedSchema, type RequestedSchemaDefinition } from "../../analyze/protocol/elicitation-form.js";

/** What `elicitation.ts.hbs` reads. */
export interface ElicitationView {
  /** The type of requested schemas (`McpElicitationSchema`), imported from types.ts. */
  readonly schemaType: string;
  /** Its validator (`validateMcpElicitationSchema`), imported from validators.ts. */
  readonly validateSchema: string;
}

export const ELICITATION_TEMPLATE = typedTemplate<ElicitationView>("elicitation.ts.hbs", { schemaType: true, validateSchema: true });

export function elicitationView(requested: RequestedSchemaDefinition): ElicitationView {
  return { schemaType: requested.name, validateSchema: `validate${requested.name}` };
}

/** The module, or undefined when the set has no form elicitation. */
export function emitElicitation(model: Model): string | undefined {
  const requested = findRequestedSchema(model);
  return requested ? render(ELICITATION_TEMPLATE, elicitationView(requested)) : undefined;
}
