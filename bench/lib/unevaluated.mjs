// The `unevaluatedProperties` row of `npm run bench` (bench/validators.mjs): an event closed by
// composition — its own properties, a `$ref`'d base, a `patternProperties` extension point and a
// property only an `if`/`then` allows — generated now from the schema below and compiled by Ajv2020.
import { writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { transpileSet } from "./generated.mjs";

const require = createRequire(import.meta.url);

export const unevaluatedSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://example.com/bench/unevaluated.json",
  $defs: {
    Meta: {
      type: "object",
      properties: { id: { type: "string" }, createdAt: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
      required: ["id"],
    },
    Event: {
      $ref: "#/$defs/Meta",
      properties: { kind: { enum: ["created", "deleted"] }, payload: { type: "object" } },
      required: ["kind"],
      // Inside an `allOf`: ajv 8.20 forgets the `$ref`'s properties when a sibling `if` fails.
      allOf: [{ if: { properties: { kind: { const: "deleted" } } }, then: { properties: { reason: { type: "string" } } } }],
      patternProperties: { "^x-": {} },
      unevaluatedProperties: false,
    },
  },
};

export const unevaluatedInputs = {
  valid: [
    { label: "created", valid: true, value: { id: "e1", kind: "created", payload: { a: 1 } } },
    { label: "deleted with reason", valid: true, value: { id: "e2", kind: "deleted", reason: "gone", createdAt: "2026-01-01", tags: ["a", "b"], "x-trace": 7 } },
  ],
  invalid: [
    { label: "unknown property", valid: false, value: { id: "e3", kind: "created", colour: "red" } },
    { label: "reason without deleted", valid: false, value: { id: "e4", kind: "created", reason: "no" } },
    { label: "id a number", valid: false, value: { id: 4, kind: "created" } },
  ],
};

/** `isEvent`/`validateEvent` generated from the schema (by the built generator in dist/), and ajv's. */
export async function unevaluatedContenders(root, work) {
  const { generateFromMemory } = await import(pathToFileURL(join(root, "dist/generator/index.js")).href);
  const uri = unevaluatedSchema.$id;
  const { files } = await generateFromMemory({ documents: [{ uri, json: unevaluatedSchema }], roots: [{ name: "Event", uri: `${uri}#/$defs/Event` }], format: false });
  const source = join(work, "unevaluated-ts");
  for (const file of files) {
    mkdirSync(dirname(join(source, file.name)), { recursive: true });
    writeFileSync(join(source, file.name), file.contents);
  }
  transpileSet(source, join(work, "unevaluated"));
  const ours = await import(pathToFileURL(join(work, "unevaluated", "validators.js")).href);
  const Ajv2020 = require("ajv/dist/2020").default;
  const compile = (options) => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false, ...options });
    ajv.addSchema(unevaluatedSchema);
    return ajv.getSchema(`${uri}#/$defs/Event`);
  };
  return { ours, ajv: { standard: compile({}), allErrors: compile({ allErrors: true }) } };
}
