/**
 * `standard-schema.ts`: every definition's validator as a Standard Schema v1 object
 * (standardschema.dev), for libraries that accept one instead of a function. Each export is named
 * like its definition, so index.ts re-exports the module as one namespace (`standardSchema.Task`)
 * rather than beside the types of the same names.
 */
import type { Model } from "../analyze/model.js";

/** The name index.ts gives this module's namespace (a definition cannot take it: see exports.ts). */
export const STANDARD_SCHEMA_NAMESPACE = "standardSchema";

export function emitStandardSchemas(model: Model): string {
  // `$`-prefixed local names: no definition name reaches them (naming.ts PascalCases a leading `$`).
  const lines = [
    'import { standardSchema as $standardSchema } from "./runtime/protocol/json.js";',
    'import * as $validators from "./validators.js";',
  ];
  for (const def of model.definitions) {
    lines.push(
      "",
      `/** \`${def.name}\` as a Standard Schema (it checks with \`validate${def.name}\`). */`,
      // No annotation: the type, StandardSchemaV1<unknown, Definition>, follows from the validator.
      `export const ${def.name} = $standardSchema($validators.validate${def.name});`,
    );
  }
  return lines.join("\n") + "\n";
}
