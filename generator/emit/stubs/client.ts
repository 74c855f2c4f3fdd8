/** `client.ts` of a Tasks schema set, from `templates/client.ts.hbs` and the method table. */
import type { Model } from "../../analyze/model.js";

/** The client module, or undefined when the set defines no task methods. */
export function emitClient(model: Model): string | undefined {
  void model;
  return undefined;
}
