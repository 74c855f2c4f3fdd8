/**
 * Which definitions can reach themselves through references: those on a cycle of the reference
 * graph (a tree, a JSON value). The error mode tests a referenced value before checking it in
 * detail only where the definition is not recursive (check-mode.ts), so that the test is run at
 * most once per definition on any path down a value and the error mode stays linear in the value.
 */
import type { Model } from "../../analyze/model.js";
import type { DefinitionId } from "../../ir/nodes.js";
import { visitNodes } from "../../ir/walk.js";

/** The definitions on a cycle of references (Tarjan's strongly connected components, without recursion). */
export function recursiveDefinitions(model: Model): ReadonlySet<DefinitionId> {
  const edges = new Map<DefinitionId, DefinitionId[]>();
  for (const def of model.definitions) {
    const targets: DefinitionId[] = [];
    visitNodes(def.node, (n) => {
      if (n.kind === "ref" && model.byId.has(n.target)) targets.push(n.target);
    });
    edges.set(def.id, targets);
  }
  const order = new Map<DefinitionId, number>();
  const low = new Map<DefinitionId, number>();
  const stack: DefinitionId[] = [];
  const onStack = new Set<DefinitionId>();
  const recursive = new Set<DefinitionId>();
  for (const root of edges.keys()) {
    if (order.has(root)) continue;
    const work: { id: DefinitionId; next: number }[] = [{ id: root, next: 0 }];
    order.set(root, order.size);
    low.set(root, order.get(root)!);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const targets = edges.get(frame.id)!;
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        if (target === frame.id) recursive.add(target);
        if (!order.has(target)) {
          order.set(target, order.size);
          low.set(target, order.get(target)!);
          stack.push(target);
          onStack.add(target);
          work.push({ id: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.id, Math.min(low.get(frame.id)!, order.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) === order.get(frame.id)) {
        const component: DefinitionId[] = [];
        let member: DefinitionId;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.id);
        if (component.length > 1) component.forEach((id) => recursive.add(id));
      }
    }
  }
  return recursive;
}
