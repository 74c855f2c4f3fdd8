// typia as a contender of `npm run bench`: a copy of a set's generated types.ts with typia tags for what its
// schema says beyond the TypeScript type (an integer, a bound), and one `typia.createIs<X>()` (or `createEquals`
// where the definition's objects are closed) per hot-path definition, transformed by `typia generate` into the
// bench's temporary folder. The tags are found mechanically: every schema a definition reaches is walked, and a
// numeric schema's constraints are keyed by the property it is the value of (or by the definition a `$ref`
// names); every `number` in the copy under that property (or in that definition's declaration) gets them. What
// cannot be put that way is a refusal for the definitions it touches, never a silent approximation:
// - a property name whose numbers differ from place to place (one `number` keyword cannot carry both);
// - closed and open objects in one definition (typia's `is` ignores extra members everywhere, `equals` refuses
//   them everywhere);
// - a keyword no tag here expresses (string lengths, patterns, array or object sizes, `not`, `oneOf`…).
import ts from "typescript";

const NUMERIC = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
const BEYOND_TAGS = [
  "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "contains", "minProperties", "maxProperties",
  "not", "oneOf", "if", "then", "else", "patternProperties", "dependentRequired", "dependentSchemas", "unevaluatedProperties",
  "unevaluatedItems", "prefixItems", "$dynamicRef", "$recursiveRef",
];

/**
 * What a definition reaches: `numeric` (key → set of constraint signatures), `closed`/`open` object counts and
 * `beyond` (keywords no tag expresses, with where). `resolveRef(ref, doc)` gives `{ schema, doc }`.
 */
export function reachOf(schema, doc, name, resolveRef, { followRefs = true } = {}) {
  const seen = new Set();
  const numeric = new Map();
  const beyond = [];
  const objects = { closed: 0, open: 0 };
  const walk = (s, d, key, at) => {
    if (!s || typeof s !== "object" || seen.has(s)) return;
    seen.add(s);
    if (typeof s.$ref === "string" && followRefs) {
      const target = resolveRef(s.$ref, d);
      walk(target.schema, target.doc, s.$ref.split("/").at(-1), s.$ref);
    }
    for (const k of BEYOND_TAGS) if (s[k] !== undefined && !(k === "uniqueItems" && s[k] === false)) beyond.push(`${k} at ${d.file}${at}`);
    if (s.type === "object" || s.properties) {
      if (s.additionalProperties === false) objects.closed++;
      else if (s.additionalProperties === undefined || s.additionalProperties === true) objects.open++;
    }
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes("integer") || types.includes("number")) {
      const signature = JSON.stringify({ integer: types.includes("integer"), ...Object.fromEntries(NUMERIC.filter((k) => s[k] !== undefined).map((k) => [k, s[k]])) });
      if (!numeric.has(key)) numeric.set(key, new Set());
      numeric.get(key).add(signature);
    }
    for (const k of ["allOf", "anyOf", "oneOf"]) (s[k] ?? []).forEach((sub, i) => walk(sub, d, key, `${at}/${k}/${i}`));
    for (const [k, sub] of Object.entries(s.properties ?? {})) walk(sub, d, k, `${at}/properties/${k}`);
    if (s.items && typeof s.items === "object") walk(s.items, d, key, `${at}/items`);
    if (s.additionalProperties && typeof s.additionalProperties === "object") walk(s.additionalProperties, d, key, `${at}/additionalProperties`);
  };
  walk(schema, doc, name, "");
  return { numeric, beyond, objects };
}

/** The typia tags of one numeric signature (`{ integer, minimum, … }`), "" for a plain number. */
export function tagsFor(signature) {
  const s = JSON.parse(signature);
  const tags = [];
  if (s.integer) {
    const min = s.minimum ?? -Infinity;
    const max = s.maximum ?? Infinity;
    const type = min >= 0 && max <= 4294967295 ? "uint32" : min >= -2147483648 && max <= 2147483647 ? "int32" : min >= 0 ? "uint64" : "int64";
    tags.push(`tags.Type<"${type}">`);
  }
  const names = { minimum: "Minimum", maximum: "Maximum", exclusiveMinimum: "ExclusiveMinimum", exclusiveMaximum: "ExclusiveMaximum", multipleOf: "MultipleOf" };
  for (const k of NUMERIC) if (s[k] !== undefined) tags.push(`tags.${names[k]}<${s[k]}>`);
  return tags.join(" & ");
}

/**
 * The tagged copy of `typesSource` for the hot-path definitions `definitions` (`[{ name, schema, doc }]`) and the
 * checks module: `{ types, checks, refused: Map(name → reason), tagged }` (`tagged`: how many `number`s got tags).
 * A `number` under property P of declaration O takes the constraints of P in the schema definition O when the
 * schemas define O (`find(O)`), else P's constraints wherever the benched definitions reach it, if they are one.
 */
export function typiaSources(typesSource, definitions, resolveRef, find) {
  const refused = new Map();
  const signatures = new Map(); // key → Set of signatures, over every definition benched
  const reaches = definitions.map((d) => ({ d, reach: reachOf(d.schema, d.doc, d.name, resolveRef) }));
  for (const { reach } of reaches) for (const [key, set] of reach.numeric) for (const sig of set) (signatures.get(key) ?? signatures.set(key, new Set()).get(key)).add(sig);
  const ownCache = new Map();
  const ownSignatures = (owner, key) => {
    if (!ownCache.has(owner)) {
      const found = find(owner);
      ownCache.set(owner, found ? reachOf(found.schema, found.doc, owner, resolveRef, { followRefs: false }).numeric : null);
    }
    return ownCache.get(owner)?.get(key);
  };

  // Tag every `number` keyword whose property (and declaration) says which constraints it has.
  const file = ts.createSourceFile("types.ts", typesSource, ts.ScriptTarget.Latest, true);
  const edits = [];
  const untagged = new Set(); // keys with a `number` that constraints exist for but could not be told apart
  const placeOf = (node) => {
    let key;
    for (let n = node.parent; n; n = n.parent) {
      if (!key && ts.isPropertySignature(n) && n.name && (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name))) key = n.name.text;
      if ((ts.isTypeAliasDeclaration(n) || ts.isInterfaceDeclaration(n)) && n.name) return { owner: n.name.text, key: key ?? n.name.text };
    }
    return { owner: undefined, key };
  };
  const visit = (node) => {
    if (node.kind === ts.SyntaxKind.NumberKeyword) {
      const { owner, key } = placeOf(node);
      const own = owner ? ownSignatures(owner, key) : undefined;
      const set = own?.size === 1 ? own : signatures.get(key);
      if (set?.size === 1) {
        const tags = tagsFor([...set][0]);
        if (tags) edits.push({ start: node.getStart(file), end: node.getEnd(), text: `(number & ${tags})` });
      } else if (set) {
        untagged.add(key);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let types = typesSource;
  for (const e of edits.sort((a, b) => b.start - a.start)) types = types.slice(0, e.start) + e.text + types.slice(e.end);
  // Without comments: typia reads JSDoc tags such as `@format byte` as checks, where the schema's `format` is an
  // annotation (for the generator and the bench's ajv alike).
  const printer = ts.createPrinter({ removeComments: true });
  types = `import type { tags } from "typia";\n${printer.printFile(ts.createSourceFile("types.ts", types, ts.ScriptTarget.Latest, true))}`;

  for (const { d, reach } of reaches) {
    const ambiguous = [...reach.numeric.keys()].filter((key) => untagged.has(key));
    if (reach.beyond.length) refused.set(d.name, `no typia tag here for ${reach.beyond[0]}${reach.beyond.length > 1 ? ` (and ${reach.beyond.length - 1} more)` : ""}`);
    else if (ambiguous.length) refused.set(d.name, `"${ambiguous[0]}" has different numeric constraints in different places, and a \`number\` in types.ts cannot be told apart`);
    else if (reach.objects.closed > 0 && reach.objects.open > 0) refused.set(d.name, "closed and open objects in one definition (typia's is/equals is all or nothing)");
  }
  const lines = ['import typia from "typia";', 'import type * as T from "./types.js";', ""];
  for (const { d, reach } of reaches) {
    if (refused.has(d.name)) continue;
    const fn = reach.objects.closed > 0 ? "createEquals" : "createIs";
    lines.push(`export const is${d.name} = typia.${fn}<T.${d.name}>();`);
  }
  return { types, checks: `${lines.join("\n")}\n`, refused, tagged: edits.length };
}
