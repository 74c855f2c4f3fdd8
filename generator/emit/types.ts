/**
 * The type emitter: `types.ts` of a schema set. Types are never narrower than the validators:
 * constraints TypeScript cannot say (lengths, patterns, `not`, `if`) widen to what it can.
 */
import type { Model } from "../analyze/model.js";
import type { NamedDefinition } from "../analyze/naming.js";
import type { ArrayNode, JsonValue, MapNode, Node, ObjectNode } from "../ir/nodes.js";
import { jsDoc } from "./jsdoc.js";

export function emitTypes(model: Model): string {
  const printer = new TypePrinter(model);
  return model.definitions.map((def) => printer.declaration(def)).join("\n");
}

/** Precedence of a printed type, to know when it needs parentheses. */
const enum Precedence {
  Union = 1,
  Intersection = 2,
  Primary = 3,
}

interface Printed {
  readonly text: string;
  readonly precedence: Precedence;
}

class TypePrinter {
  constructor(private readonly model: Model) {}

  declaration(def: NamedDefinition): string {
    // A title that only repeats the declaration's name says nothing.
    const { title, ...rest } = def.node.docs ?? {};
    const doc = jsDoc(title === def.name ? rest : def.node.docs);
    const node = def.node;
    if (node.kind === "object" && this.hasMembers(node)) {
      return `${doc}export interface ${def.name} ${this.objectBody(node)}\n`;
    }
    return `${doc}export type ${def.name} = ${this.print(node).text};\n`;
  }

  private print(node: Node): Printed {
    switch (node.kind) {
      case "unknown":
        return primary("unknown");
      case "never":
        return primary("never");
      case "primitive":
        return primary(node.type === "integer" ? "number" : node.type);
      case "literal":
        return this.union(node.values.map((v) => primary(literalType(v))));
      case "ref": {
        const target = this.model.byId.get(node.target);
        if (!target) throw new Error(`internal: reference to unknown definition ${node.target}`);
        return primary(target.name);
      }
      case "object":
        return primary(this.hasMembers(node) ? this.objectBody(node) : node.additional?.kind === "never" ? "{ [key: string]: never }" : "object");
      case "map":
        return primary(this.mapBody(node));
      case "array":
        return primary(this.arrayType(node));
      case "union":
        if (node.variants.some((v) => v.kind === "unknown")) return primary("unknown");
        return this.union(node.variants.map((v) => this.print(v)));
      case "intersection": {
        const parts = node.parts.filter((p) => p.kind !== "not" && !(p.kind === "conditional" && !(p.then && p.else)));
        if (parts.length === 0) return primary("unknown");
        const printed = parts.map((p) => this.print(p)).filter((p) => p.text !== "unknown");
        if (printed.length === 0) return primary("unknown");
        if (printed.length === 1) return printed[0]!;
        return {
          text: printed.map((p) => (p.precedence < Precedence.Intersection ? `(${p.text})` : p.text)).join(" & "),
          precedence: Precedence.Intersection,
        };
      }
      case "not":
        return primary("unknown");
      case "conditional":
        // A value satisfies `then` or `else`, whichever `if` picks; with one of them missing, anything may pass.
        return node.then && node.else ? this.union([this.print(node.then), this.print(node.else)]) : primary("unknown");
      case "unevaluated":
        return this.print(node.node);
    }
  }

  private union(members: readonly Printed[]): Printed {
    const texts = [...new Set(members.map((m) => m.text))];
    if (texts.includes("unknown")) return primary("unknown");
    if (texts.length === 0) return primary("never");
    if (texts.length === 1) return members.find((m) => m.text === texts[0])!;
    return { text: texts.join(" | "), precedence: Precedence.Union };
  }

  private hasMembers(node: ObjectNode): boolean {
    return (
      node.properties.length > 0 ||
      node.requiredOnly.length > 0 ||
      node.patternProperties.length > 0 ||
      (node.additional !== undefined && node.additional.kind !== "never")
    );
  }

  private objectBody(node: ObjectNode): string {
    const lines: string[] = [];
    const valueTypes: string[] = [];
    for (const property of node.properties) {
      const type = this.print(property.node).text;
      valueTypes.push(type);
      lines.push(`${jsDoc(property.node.docs)}${propertyKey(property.name)}${property.required ? "" : "?"}: ${type};`);
    }
    // Without exactOptionalPropertyTypes an optional property reads as `T | undefined`, and
    // TypeScript checks that type against the index signature (TS2411), so it must admit `undefined`.
    if (node.properties.some((p) => !p.required)) valueTypes.push("undefined");
    const extraType = this.indexType(node, []);
    for (const name of node.requiredOnly) lines.push(`${propertyKey(name)}: ${extraType ?? "unknown"};`);
    const indexType = this.indexType(node, valueTypes);
    if (indexType !== undefined) lines.push(`[key: string]: ${indexType};`);
    return `{\n${lines.join("\n")}\n}`;
  }

  /**
   * The index signature an object needs: present when extra properties are typed (an explicit
   * `additionalProperties`, or `patternProperties`). TypeScript requires every declared property
   * to fit it (under plain `strict`, an optional one with `undefined`), so their types join in.
   */
  private indexType(node: ObjectNode, declared: readonly string[]): string | undefined {
    const extra: string[] = node.patternProperties.map((p) => this.print(p.node).text);
    if (node.additional && node.additional.kind !== "never") extra.push(this.print(node.additional).text);
    else if (node.additional === undefined && extra.length > 0) extra.push("unknown");
    if (extra.length === 0) return undefined;
    return this.union([...extra, ...declared].map((text) => ({ text, precedence: Precedence.Union }))).text;
  }

  private mapBody(node: MapNode): string {
    const value = this.print(node.values).text;
    if (node.keys?.kind === "literal" && node.keys.values.every((v) => typeof v === "string")) {
      return `{ [K in ${node.keys.values.map(literalType).join(" | ")}]?: ${value} }`;
    }
    return `{ [key: string]: ${value} }`;
  }

  private arrayType(node: ArrayNode): string {
    const rest = node.items ? this.print(node.items) : primary("unknown");
    const element = (p: Printed) => (p.precedence < Precedence.Primary ? `(${p.text})` : p.text);
    if (node.prefixItems.length === 0) return rest.text === "never" ? "[]" : `${element(rest)}[]`;
    const minItems = node.minItems ?? 0;
    const positions = node.prefixItems.map((item, i) => `${this.print(item).text}${i < minItems ? "" : "?"}`);
    if (rest.text !== "never") positions.push(`...${element(rest)}[]`);
    return `[${positions.join(", ")}]`;
  }
}

function primary(text: string): Printed {
  return { text, precedence: Precedence.Primary };
}

/**
 * A property name as written in a type: bare when it is an identifier name (reserved words and
 * `__proto__` included: in a type they are plain keys), otherwise a string literal.
 */
function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : stringLiteral(name);
}

/** A string literal for TypeScript source: JSON's escaping, plus the line separators JSON leaves raw. */
function stringLiteral(text: string): string {
  return JSON.stringify(text).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** The TypeScript type of exactly one JSON value. */
export function literalType(value: JsonValue): string {
  if (typeof value === "string") return stringLiteral(value);
  // A number too large for a double (`1e400`) parses as Infinity, which has no literal type.
  if (typeof value === "number" && !Number.isFinite(value)) return "number";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(literalType).join(", ")}]`;
  const entries = Object.entries(value).map(([k, v]) => `${propertyKey(k)}: ${literalType(v)}`);
  return `{ ${entries.join("; ")} }`;
}
