/**
 * `$ref` cycles that never reach a part of the value: `A → A`, `A → B → A`, or through `allOf`,
 * `anyOf`, `oneOf`, `not`, `if`/`then`/`else` or `dependentSchemas`, each of which applies to the
 * same value. Checking a value against such a schema means checking the same value against the
 * same schema again, forever (JSON Schema leaves it undefined), and its TypeScript type would be
 * defined by itself (TS2456). So it has no value and no type: a located error. A cycle through an
 * object's properties or an array's items is fine (a tree node): each turn goes one level deeper
 * into a finite value.
 */
import { GeneratorError } from "../diagnostics.js";
import type { Definition, DefinitionId, Node, RefNode } from "../ir/nodes.js";
import { definitionsById } from "../ir/query.js";

/** Throws a GeneratorError at the first `$ref` (in definition order) that closes a pure cycle. */
export function checkPureRefCycles(definitions: readonly Definition[]): void {
  const byId = definitionsById(definitions);
  const edges = new Map(definitions.map((d) => [d.id, sameValueRefs(d.node)]));
  const done = new Set<DefinitionId>();
  for (const start of definitions) {
    if (done.has(start.id)) continue;
    const cycle = findCycle(start.id, edges, done);
    if (cycle) {
      const names = [...cycle.path, cycle.path[0]!].map((id) => byId.get(id)?.nameHint ?? id);
      throw new GeneratorError(
        cycle.ref.loc,
        `"$ref" cycle ${names.join(" → ")} with no object or array in between has no value`,
      );
    }
  }
}

/**
 * The references a node applies to the value it checks itself (not to a property or an item),
 * in source order. Iterative, so deep schemas cannot overflow the stack.
 */
function sameValueRefs(root: Node): RefNode[] {
  const found: RefNode[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const next: Node[] = [];
    switch (node.kind) {
      case "ref":
        found.push(node);
        break;
      case "union":
        next.push(...node.variants);
        break;
      case "intersection":
        next.push(...node.parts);
        break;
      case "not":
        next.push(node.node);
        break;
      case "conditional":
        next.push(node.if, ...(node.then ? [node.then] : []), ...(node.else ? [node.else] : []));
        break;
      case "unevaluated":
        next.push(node.node);
        break;
      case "object":
        // dependentSchemas apply to the object itself; properties, items and keys are parts of it.
        next.push(...node.dependentSchemas.map((d) => d.node));
        break;
      default:
        break;
    }
    // Reversed onto the stack, so children are visited in source order.
    for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
  }
  return found;
}

interface Cycle {
  /** The definitions on the cycle, starting where the search entered it. */
  readonly path: readonly DefinitionId[];
  /** The reference in the first definition of `path` that leads round the cycle. */
  readonly ref: RefNode;
}

/**
 * Depth-first search from `start` over same-value references; `done` collects definitions proven
 * to lead to no cycle (shared across calls, so every definition is searched once).
 */
function findCycle(start: DefinitionId, edges: ReadonlyMap<DefinitionId, readonly RefNode[]>, done: Set<DefinitionId>): Cycle | undefined {
  const onPath = new Map<DefinitionId, number>();
  const path: { id: DefinitionId; next: number }[] = [];
  const enter = (id: DefinitionId) => {
    onPath.set(id, path.length);
    path.push({ id, next: 0 });
  };
  enter(start);
  while (path.length > 0) {
    const top = path[path.length - 1]!;
    const refs = edges.get(top.id) ?? [];
    if (top.next >= refs.length) {
      path.pop();
      onPath.delete(top.id);
      done.add(top.id);
      continue;
    }
    const ref = refs[top.next++]!;
    const at = onPath.get(ref.target);
    if (at !== undefined) {
      const cycle = path.slice(at);
      const entry = cycle[0]!;
      return { path: cycle.map((p) => p.id), ref: edges.get(entry.id)![entry.next - 1]! };
    }
    if (!done.has(ref.target)) enter(ref.target);
  }
  return undefined;
}
