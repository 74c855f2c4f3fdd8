/** `elicitation.ts` of a set that has an elicitation form (see detect.ts), from `templates/elicitation.ts.hbs`. */
import type { Model } from "../../analyze/model.js";
import { renderTemplate } from "../templates.js";
import { findRequestedSchema } from "./detect.js";

/** The module, or undefined when the set has no form elicitation. */
export function emitElicitation(model: Model): string | undefined {
  const requested = findRequestedSchema(model);
  if (!requested) return undefined;
  return renderTemplate("elicitation.ts.hbs", { schemaType: requested.name, validateSchema: `validate${requested.name}` });
}

export { findRequestedSchema, type RequestedSchemaDefinition } from "./detect.js";
