// The synthetic schema of `npm run bench:scale` (and of the format test's scale case): a draft-07
// document with `count` definitions. Of every five: one string enum, three objects and one `oneOf`
// of those three objects discriminated by a `const` `kind`. Each object has a `const` kind, a
// string with `minLength` and `pattern`, an integer with `minimum`, an array of unique strings, a
// `$ref` to the group's enum and one to an earlier object, two required properties and
// `additionalProperties: false`.

/** The schema as a JSON-ready object; `count` is rounded down to a multiple of five. */
export function scaleSchema(count) {
  const definitions = {};
  const groups = Math.floor(count / 5);
  let earlier; // the last object defined so far
  for (let g = 0; g < groups; g++) {
    const status = `Status${g}`;
    definitions[status] = { type: "string", enum: [`open${g}`, `closed${g}`, `archived${g}`] };
    const variants = [];
    for (const letter of ["A", "B", "C"]) {
      const name = `Record${g}${letter}`;
      const kind = `record-${g}-${letter.toLowerCase()}`;
      definitions[name] = {
        type: "object",
        description: `Record ${letter} of group ${g}.`,
        properties: {
          kind: { const: kind },
          title: { type: "string", minLength: 1, pattern: "^[A-Za-z][A-Za-z0-9 ]*$" },
          count: { type: "integer", minimum: 0 },
          tags: { type: "array", items: { type: "string" }, uniqueItems: true },
          status: { $ref: `#/definitions/${status}` },
          // The very first object has no earlier one: it points to itself.
          previous: { $ref: `#/definitions/${earlier ?? name}` },
        },
        required: ["kind", "title"],
        additionalProperties: false,
      };
      variants.push({ $ref: `#/definitions/${name}` });
      earlier = name;
    }
    definitions[`Record${g}`] = { oneOf: variants };
  }
  return { $schema: "http://json-schema.org/draft-07/schema#", definitions };
}
