import Handlebars from "handlebars";
import { describe, expect, it } from "vitest";
import { ELICITATION_TEMPLATE, type ElicitationView } from "../../generator/emit/elicitation/emit.js";
import { SERVER_TEMPLATE } from "../../generator/emit/stubs/server.js";
import { render, templateSource, typedTemplate, type TypedTemplate } from "../../generator/emit/templates.js";

/**
 * A template reads exactly the keys of its view model. The compiler already holds the view model
 * and its declared keys together (see ViewKeys in generator/emit/templates.ts); this holds the
 * template to the declared keys: a name the template reads that the view does not have, or a key
 * of the view the template never reads, fails here.
 */

type Node = hbs.AST.Node;
type Program = hbs.AST.Program;
type Names = { [key: string]: Names | true };

/**
 * The names a template reads, as a tree shaped like ViewKeys: `true` for a plain value, nested for
 * `{{a.b}}` and for the items of an `#each` list. `{{../x}}` inside an `#each` reads the enclosing scope.
 */
function namesRead(program: Program): Names {
  const root: Names = {};
  /** Records a path read in `scope` (`a.b` → scope.a.b = true); an object already recorded there stays one. */
  const record = (scope: Names, parts: readonly string[]): void => {
    const owner = objectAt(scope, parts.slice(0, -1));
    const last = parts[parts.length - 1]!;
    owner[last] ??= true;
  };
  /** The object recorded at a path, made one if it was a plain value or absent. */
  const objectAt = (scope: Names, parts: readonly string[]): Names => {
    let at = scope;
    for (const part of parts) {
      const next = at[part];
      at = next === undefined || next === true ? (at[part] = {}) : next;
    }
    return at;
  };
  const scopeOf = (scopes: readonly Names[], path: hbs.AST.PathExpression): Names => scopes[scopes.length - 1 - path.depth]!;
  const read = (path: hbs.AST.PathExpression, scopes: readonly Names[]): void => {
    if (path.data || path.parts.length === 0) return;
    record(scopeOf(scopes, path), path.parts);
  };
  const visit = (node: Node, scopes: readonly Names[]): void => {
    switch (node.type) {
      case "Program":
        for (const statement of (node as Program).body) visit(statement, scopes);
        return;
      case "MustacheStatement":
      case "SubExpression": {
        const call = node as hbs.AST.MustacheStatement;
        if (call.params.length === 0 && call.path.type === "PathExpression") read(call.path as hbs.AST.PathExpression, scopes);
        for (const param of call.params) visit(param, scopes);
        return;
      }
      case "PathExpression":
        read(node as hbs.AST.PathExpression, scopes);
        return;
      case "BlockStatement": {
        const block = node as hbs.AST.BlockStatement;
        const helper = (block.path as hbs.AST.PathExpression).original;
        const subject = block.params[0] as hbs.AST.PathExpression | undefined;
        if (helper === "each" && subject) {
          // The list's items are a scope of their own, recorded under the list's name.
          const item: Names = {};
          visit(block.program, [...scopes, item]);
          const scope = scopeOf(scopes, subject);
          if (Object.keys(item).length > 0) Object.assign(objectAt(scope, subject.parts), item);
          else record(scope, subject.parts);
        } else {
          for (const param of block.params) visit(param, scopes);
          visit(block.program, scopes);
        }
        if (block.inverse) visit(block.inverse, scopes);
        return;
      }
      default:
        return;
    }
  };
  visit(program, [root]);
  return root;
}

const TEMPLATES: readonly TypedTemplate<object>[] = [ELICITATION_TEMPLATE, SERVER_TEMPLATE];

describe("typed templates", () => {
  it.each(TEMPLATES.map((t) => [t.name, t] as const))("%s reads exactly the keys of its view model", (_, template) => {
    expect(namesRead(Handlebars.parse(templateSource(template.name)))).toEqual(template.keys);
  });

  it("a view model and its keys are held together by the compiler (this file is type-checked by `npm run typecheck`)", () => {
    // @ts-expect-error a misspelt key
    typedTemplate<ElicitationView>("elicitation.ts.hbs", { schemaType: true, validateSchem: true });
    // @ts-expect-error a missing key
    typedTemplate<ElicitationView>("elicitation.ts.hbs", { schemaType: true });
    // @ts-expect-error a key the view does not have
    expect(() => render(ELICITATION_TEMPLATE, { schemaType: "S", validateSchema: "validateS", extra: 1 })).not.toThrow();
  });

  it("the check sees a misspelt or unused key", () => {
    const names = namesRead(
      Handlebars.parse("{{a}} {{#if b}}{{c}}{{/if}} {{#each list}}{{x}}{{@index}}{{../a}}{{/each}} {{#if o}}{{o.p}}{{/if}} {{#each o.q}}{{r}}{{/each}}"),
    );
    expect(names).toEqual({ a: true, b: true, c: true, list: { x: true }, o: { p: true, q: { r: true } } });
    expect(names).not.toEqual({ a: true, b: true, c: true, list: { x: true }, unused: true });
    expect(names).not.toEqual({ a: true, b: true, cc: true, list: { x: true } });
  });
});
