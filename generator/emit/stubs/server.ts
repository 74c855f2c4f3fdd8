/** `server.ts` of a Tasks schema set, from `templates/server.ts.hbs` and the method table. */
import type { Model } from "../../analyze/model.js";

/** The server module, or undefined when the set defines no task methods. */
export function emitServer(model: Model): string | undefined {
  void model;
  return undefined;
}
