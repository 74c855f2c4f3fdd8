/**
 * Whether two types (one from each revision) accept the same values: their meaning, not their
 * layout or their names. `$ref`s are followed on both sides (so a renamed definition, an alias or
 * an inlined copy is the same type), union variants, `allOf` branches, properties and enum values
 * compare as sets (so their order does not matter), and docs, source places and discriminators
 * (which only name what the variants already say) are left out. Recursive definitions compare
 * coinductively: a pair of definitions being compared counts as equal where it recurs.
 *
 * It only ever says "same" when it is (structural equality after following references); types that
 * accept the same values written in really different ways (an object spelt out vs. the `allOf` it
 * merges into) may be reported as not the same, and are then compared by the coarser domains.
 */
import type { Definition, Node } from "../ir/nodes.js";
import { canonicalJson } from "../ir/structure.js";
import type { ModelContext } from "./api-model.js";

/** Compares types across two models, remembering pairs of definitions already compared. */
export class MeaningComparer {
  readonly #memo = new Map<string, boolean>();

  constructor(
    private readonly oldCtx: ModelContext,
    private readonly newCtx: ModelContext,
  ) {}

  /** Whether `a` (of the old revision) and `b` (of the new one) accept the same values. */
  same(a: Node, b: Node): boolean {
    if (a.kind === "ref" || b.kind === "ref") return this.#viaRefs(a, b);
    // One branch of an allOf, one variant of a union: the branch itself.
    if (a.kind === "intersection" && a.parts.length === 1) return this.same(a.parts[0]!, b);
    if (b.kind === "intersection" && b.parts.length === 1) return this.same(a, b.parts[0]!);
    if (a.kind === "union" && a.variants.length === 1) return this.same(a.variants[0]!, b);
    if (b.kind === "union" && b.variants.length === 1) return this.same(a, b.variants[0]!);
    // An allOf against an object spelt out (or another allOf): what their merged properties accept.
    if ((a.kind === "intersection" || b.kind === "intersection") && a.kind !== b.kind) return this.#sameMerged(a, b);
    if (a.kind !== b.kind) return false;
    switch (a.kind) {
      case "literal": {
        const values = (n: Node) => new Set((n as typeof a).values.map(canonicalJson));
        return sameSet(values(a), values(b));
      }
      case "union": {
        const o = b as typeof a;
        if (a.exclusive !== o.exclusive) return false;
        // An anyOf inside an anyOf (inline or through a reference) admits what its variants admit.
        return a.exclusive ? this.#sameBag(a.variants, o.variants) : this.#sameBag(this.#flat(a.variants, this.oldCtx), this.#flat(o.variants, this.newCtx));
      }
      case "intersection":
        return this.#sameBag(a.parts, (b as typeof a).parts) || this.#sameMerged(a, b);
      case "object": {
        const o = b as typeof a;
        if (a.properties.length !== o.properties.length) return false;
        const byName = new Map(o.properties.map((p) => [p.name, p]));
        for (const p of a.properties) {
          const q = byName.get(p.name);
          if (!q || q.required !== p.required || !this.same(p.node, q.node)) return false;
        }
        if (!sameSet(new Set(a.requiredOnly), new Set(o.requiredOnly))) return false;
        if (!this.#sameOptional(a.additional, o.additional)) return false;
        if (!this.#sameOptional(a.propertyNames, o.propertyNames)) return false;
        if (a.minProperties !== o.minProperties || a.maxProperties !== o.maxProperties) return false;
        const patterns = new Map(o.patternProperties.map((p) => [p.pattern, p.node]));
        if (a.patternProperties.length !== patterns.size) return false;
        if (!a.patternProperties.every((p) => patterns.has(p.pattern) && this.same(p.node, patterns.get(p.pattern)!))) return false;
        const key = (d: { name: string; requires: readonly string[] }) => `${d.name}:${[...d.requires].sort().join(",")}`;
        if (!sameSet(new Set(a.dependentRequired.map(key)), new Set(o.dependentRequired.map(key)))) return false;
        const schemas = new Map(o.dependentSchemas.map((d) => [d.name, d.node]));
        return a.dependentSchemas.length === schemas.size && a.dependentSchemas.every((d) => schemas.has(d.name) && this.same(d.node, schemas.get(d.name)!));
      }
      default:
        return this.#sameFields(a, b);
    }
  }

  #viaRefs(a: Node, b: Node): boolean {
    const defA = a.kind === "ref" ? this.oldCtx.model.byId.get(a.target) : undefined;
    const defB = b.kind === "ref" ? this.newCtx.model.byId.get(b.target) : undefined;
    if ((a.kind === "ref" && !defA) || (b.kind === "ref" && !defB)) return false;
    const key = `${defA?.id ?? "-"}\u0000${defB?.id ?? "-"}`;
    // Only pairs that involve a definition are remembered; an inline node is compared afresh.
    const known = this.#memo.get(key);
    if (known !== undefined && (defA || defB) && (a.kind === "ref") === (b.kind === "ref")) return known;
    if (a.kind === "ref" && b.kind === "ref") {
      this.#memo.set(key, true); // assumed while comparing: a recursion back to this pair holds
      const result = this.same((defA as Definition).node, (defB as Definition).node);
      this.#memo.set(key, result);
      return result;
    }
    return this.same(defA ? defA.node : a, defB ? defB.node : b);
  }

  /**
   * Two types of which one at least is an allOf, compared by the object their branches merge into:
   * each property with every schema the branches give it, the required names, and what is not an
   * object (a union branch, say) as a bag. Branch by branch, `NotificationParams & {[k: string]: unknown}`
   * and the same with `NotificationParams`'s properties inlined differ; merged, they are the same.
   */
  #sameMerged(a: Node, b: Node): boolean {
    const ma = mergedObject(a, this.oldCtx);
    const mb = mergedObject(b, this.newCtx);
    if (!ma || !mb || ma.isObject !== mb.isObject || !sameSet(ma.required, mb.required)) return false;
    if (!sameSet(new Set(ma.properties.keys()), new Set(mb.properties.keys()))) return false;
    for (const [name, nodes] of ma.properties) if (!this.#sameBag(nodes, mb.properties.get(name)!)) return false;
    return this.#sameBag(ma.others, mb.others);
  }

  /** The variants of an anyOf with nested anyOfs (written inline or referenced) spread out. */
  #flat(variants: readonly Node[], ctx: ModelContext, seen: ReadonlySet<string> = new Set()): Node[] {
    return variants.flatMap((v) => {
      const target = v.kind === "ref" && !seen.has(v.target) ? ctx.model.byId.get(v.target) : undefined;
      const node = target ? target.node : v;
      if (node.kind !== "union" || node.exclusive) return [v];
      return this.#flat(node.variants, ctx, target ? new Set([...seen, target.id]) : seen);
    });
  }

  /** Every node of `a` has its own equal in `b`, and none is left over. */
  #sameBag(a: readonly Node[], b: readonly Node[]): boolean {
    if (a.length !== b.length) return false;
    const left = [...b];
    for (const node of a) {
      const i = left.findIndex((other) => this.same(node, other));
      if (i < 0) return false;
      left.splice(i, 1);
    }
    return true;
  }

  #sameOptional(a: Node | undefined, b: Node | undefined): boolean {
    return a === undefined || b === undefined ? a === b : this.same(a, b);
  }

  /** Two nodes of the same other kind: equal fields, child nodes compared by meaning. */
  #sameFields(a: unknown, b: unknown): boolean {
    if (isNode(a) && isNode(b)) {
      if (a.kind !== b.kind) return this.same(a, b);
      const keys = (n: Node) => Object.keys(n).filter((k) => !IGNORED.has(k) && (n as unknown as Record<string, unknown>)[k] !== undefined);
      const ka = keys(a);
      const kb = keys(b);
      if (ka.length !== kb.length || !ka.every((k) => kb.includes(k))) return false;
      return ka.every((k) => this.#sameValue((a as unknown as Record<string, unknown>)[k], (b as unknown as Record<string, unknown>)[k]));
    }
    return this.#sameValue(a, b);
  }

  #sameValue(a: unknown, b: unknown): boolean {
    if (isNode(a) && isNode(b)) return this.same(a, b);
    if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => this.#sameValue(x, b[i]));
    if (a && b && typeof a === "object" && typeof b === "object") {
      const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
      const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
      return ka.length === kb.length && ka.every((k) => this.#sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
    }
    return a === b;
  }
}

/** An allOf seen as one object: the properties of its object branches, their required names, and the branches that are not objects. */
interface MergedObject {
  readonly properties: Map<string, Node[]>;
  readonly required: Set<string>;
  readonly others: Node[];
  /** Whether some branch says the value is an object. */
  isObject: boolean;
}

/**
 * The object an allOf merges into, following references to objects and allOfs (once each); undefined
 * when an object branch constrains more than its properties (closed, patterns, counts), whose merge is
 * not a plain union of properties. A map of anything beside an object says nothing more than "an object".
 */
function mergedObject(node: Node, ctx: ModelContext): MergedObject | undefined {
  const merged: MergedObject = { properties: new Map(), required: new Set(), others: [], isObject: false };
  const add = (n: Node, seen: ReadonlySet<string>): boolean => {
    switch (n.kind) {
      case "intersection":
        return n.parts.every((part) => add(part, seen));
      case "ref": {
        const target = ctx.model.byId.get(n.target);
        if (target && !seen.has(target.id) && (target.node.kind === "object" || target.node.kind === "intersection")) return add(target.node, new Set([...seen, target.id]));
        merged.others.push(n);
        return true;
      }
      case "object": {
        const plain =
          (n.additional === undefined || n.additional.kind === "unknown") &&
          n.patternProperties.length === 0 &&
          n.propertyNames === undefined &&
          n.minProperties === undefined &&
          n.maxProperties === undefined &&
          n.dependentRequired.length === 0 &&
          n.dependentSchemas.length === 0;
        if (!plain) return false;
        merged.isObject = true;
        for (const p of n.properties) {
          merged.properties.set(p.name, [...(merged.properties.get(p.name) ?? []), p.node]);
          if (p.required) merged.required.add(p.name);
        }
        for (const name of n.requiredOnly) merged.required.add(name);
        return true;
      }
      case "map": {
        const anyKey = n.keys === undefined || (n.keys.kind === "primitive" && n.keys.type === "string" && n.keys.string === undefined);
        if (n.values.kind === "unknown" && anyKey && n.minProperties === undefined && n.maxProperties === undefined) {
          merged.isObject = true;
          return true;
        }
        merged.others.push(n);
        return true;
      }
      default:
        merged.others.push(n);
        return true;
    }
  };
  return add(node, new Set()) ? merged : undefined;
}

/** What is not meaning: where a node came from, its docs, and how a union is told apart (its variants say it). */
const IGNORED: ReadonlySet<string> = new Set(["loc", "docs", "origin", "keyword", "discriminator", "byType"]);

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && typeof (value as { kind?: unknown }).kind === "string" && "loc" in value;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}
