/**
 * `unreachable-property`: an `allOf` branch with `additionalProperties: false` rejects a property
 * a sibling branch declares, so no valid value can carry it (JSON Schema checks every branch
 * against the whole value). In merged-intersection mode only the intersections the merge leaves
 * as they are are read this way.
 */
import { formatLocation, type SourceLocation } from "../../diagnostics.js";
import type { DefinitionId, Node } from "../../ir/nodes.js";
import { enterRef, mayHaveType, refTarget, type DefinitionsById } from "../../ir/query.js";
import { at, list, parent, schemaLocation, where } from "../locations.js";
import type { Finding, IrRule } from "../rule.js";

export const unreachableProperty: IrRule = {
  id: "unreachable-property",
  summary:
    "an allOf branch with additionalProperties: false rejects a property that a sibling branch declares, so no valid value can carry it",
  reads: "ir",
  check(node, { definitions, unmergedIntersections }) {
    if (node.kind !== "intersection") return [];
    if (unmergedIntersections && !unmergedIntersections.has(formatLocation(node.loc))) return [];
    return unreachableProperties(node.parts, definitions);
  },
};

/** Which property names a branch lets through: all (open), or only those `admits` says. */
type Closure =
  | { readonly open: true }
  | {
      readonly open: false;
      readonly admits: (name: string) => boolean;
      /** What closes it, for the message. */
      readonly why: string;
    };

type Closed = Extract<Closure, { open: false }>;

const OPEN: Closure = { open: true };

function closureOf(node: Node, definitions: DefinitionsById, seen: ReadonlySet<DefinitionId> = new Set()): Closure {
  switch (node.kind) {
    case "object": {
      if (node.additional?.kind !== "never") return OPEN;
      const names = new Set(node.properties.filter((p) => p.node.kind !== "never").map((p) => p.name));
      const patterns = node.patternProperties.map((p) => new RegExp(p.pattern, "u"));
      return {
        open: false,
        admits: (name) => names.has(name) || patterns.some((re) => re.test(name)),
        why: `sets additionalProperties: false and declares only ${list([...names])}`,
      };
    }
    case "ref": {
      const next = enterRef(node, definitions, seen);
      return next ? closureOf(next.definition.node, definitions, next.seen) : OPEN;
    }
    case "union": {
      // Branches no object can pass say nothing about properties (a type contradiction is another rule's business).
      const objectVariants = node.variants.filter((v) => mayHaveType(v, "object", definitions, seen));
      if (objectVariants.length === 0) return OPEN;
      const closures = objectVariants.map((v) => closureOf(v, definitions, seen));
      if (closures.some((c) => c.open)) return OPEN;
      const closed = closures as Closed[];
      return {
        open: false,
        admits: (name) => closed.some((c) => c.admits(name)),
        why: `is an ${node.exclusive ? "oneOf" : "anyOf"} whose every object branch sets additionalProperties: false`,
      };
    }
    case "intersection": {
      const closed = node.parts.map((p) => closureOf(p, definitions, seen)).filter((c): c is Closed => !c.open);
      if (closed.length === 0) return OPEN;
      return { open: false, admits: (name) => closed.every((c) => c.admits(name)), why: closed[0]!.why };
    }
    default:
      return OPEN;
  }
}

interface Declaration {
  readonly name: string;
  /** Where the property is declared (`.../properties/name`, or `.../required` for a bare required name). */
  readonly loc: SourceLocation;
  readonly required: boolean;
  /** The first `$ref` crossed to reach the declaration, if any. */
  readonly via?: SourceLocation;
}

function declarationsOf(node: Node, definitions: DefinitionsById, via: SourceLocation | undefined, seen: ReadonlySet<DefinitionId> = new Set()): Declaration[] {
  const viaPart = via ? { via } : {};
  switch (node.kind) {
    case "object":
      return [
        ...node.properties
          .filter((p) => p.node.kind !== "never")
          .map((p) => ({ name: p.name, loc: at(node.loc, "properties", p.name), required: p.required, ...viaPart })),
        ...node.requiredOnly.map((name) => ({ name, loc: at(node.loc, "required"), required: true, ...viaPart })),
      ];
    case "ref": {
      const next = enterRef(node, definitions, seen);
      return next ? declarationsOf(next.definition.node, definitions, via ?? node.loc, next.seen) : [];
    }
    case "union":
      return node.variants.flatMap((v) => declarationsOf(v, definitions, via, seen));
    case "intersection":
      return node.parts.flatMap((p) => declarationsOf(p, definitions, via, seen));
    default:
      return [];
  }
}

function unreachableProperties(parts: readonly Node[], definitions: DefinitionsById): Finding[] {
  const closures = parts.map((p) => closureOf(p, definitions));
  if (closures.every((c) => c.open)) return [];
  const found: Finding[] = [];
  const reported = new Set<string>();
  parts.forEach((part, j) => {
    for (const decl of declarationsOf(part, definitions, undefined)) {
      const i = closures.findIndex((c, k) => k !== j && !c.open && !c.admits(decl.name));
      if (i < 0) continue;
      const location = decl.via ? parent(decl.via) : decl.loc;
      const key = `${formatLocation(location)}|${decl.name}`;
      if (reported.has(key)) continue;
      reported.add(key);
      const closer = parts[i]!;
      const closure = closures[i] as Closed;
      const declared = decl.via ? ` (declared at ${where(decl.loc, location)})` : "";
      const target = closer.kind === "ref" ? ` (through its $ref to ${where(refTarget(closer, definitions)?.loc ?? closer.loc, location)})` : "";
      const branchOpen = closureOf(part, definitions).open;
      const sentences = [
        `"${decl.name}"${declared} can never be present: the sibling branch ${where(schemaLocation(closer), location)}${target} ${closure.why}, ` +
          `and JSON Schema checks every allOf branch against the whole value`,
      ];
      if (decl.required) sentences.push(`since "${decl.name}" is required here, no value satisfies this allOf at all`);
      if (decl.name === "_meta") {
        // The MCP case: a Result/params base (open, with _meta) and a closed task.
        sentences.push(
          `the closed branch also rejects every other property ${branchOpen ? "this branch admits" : "it does not declare"}, such as the "resultType" that results of the MCP Tasks extension carry, ` +
            `so the specification's own examples with "_meta" or "resultType" are rejected`,
        );
      } else if (branchOpen) {
        sentences.push(`the closed branch also rejects every other property it does not declare, though this branch admits them`);
      }
      sentences.push(
        `if the allOf means the TypeScript intersection (one object with the properties of all branches), generate with --allof merged ("allOf": "merged" in the config)`,
      );
      found.push({ rule: "unreachable-property", location, message: sentences.join("; ") });
    }
  });
  return found;
}
