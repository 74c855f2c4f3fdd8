import Handlebars from "handlebars";
import { describe, expect, it } from "vitest";
import { ELICITATION_TEMPLATE, type ElicitationView } from "../../generator/emit/elicitation/emit.js";
import { render, templateSource, typedTemplate, type TypedTemplate } from "../../generator/emit/templates.js";

/**
 * A template reads exactly the keys of its view model. The compiler already holds the view model
 * and its declared keys together (see ViewKeys in generator/emit/templates.ts); this holds the
 * template to the declared keys: a name the template reads that the view does not have, or a key
 * of the view the template never reads, fails here.
 */

type Node = hbs.AST.Node;
type Program = hbs.AST.Program;

/** The names a template reads, as a tree shaped like ViewKeys: `true` for a value, nested for an `#each` list. */
function namesRead(program: Program): Record<string, unknown> {
  const names: Record<string, unknown> = {};
  const read = (path: hbs.AST.PathExpression, into: Record<string, unknown>): void => {
    if (path.data || path.parts.length === 0 || path.original === "this") return;
    // `../x` inside an `#each` reads the enclosing view: not handled, so the templates do not use it.
    expect(path.depth, `${path.original}: read the outer view through the list item instead`).toBe(0);
    into[path.parts[0]!] ??= true;
  };
  const visit = (node: Node, into: Record<string, unknown>): void => {
    switch (node.type) {
      case "Program":
        for (const statement of (node as Program).body) visit(statement, into);
        return;
      case "MustacheStatement":
      case "SubExpression": {
        const call = node as hbs.AST.MustacheStatement;
        if (call.params.length === 0) {
          if (call.path.type === "PathExpression") read(call.path as hbs.AST.PathExpression, into);
        }
        for (const param of call.params) visit(param, into);
        return;
      }
      case "PathExpression":
        read(node as hbs.AST.PathExpression, into);
        return;
      case "BlockStatement": {
        const block = node as hbs.AST.BlockStatement;
        const helper = (block.path as hbs.AST.PathExpression).original;
        const subject = block.params[0] as hbs.AST.PathExpression | undefined;
        if (helper === "each" && subject) {
          const item: Record<string, unknown> = {};
          visit(block.program, item);
          into[subject.parts[0]!] = Object.keys(item).length > 0 ? item : true;
        } else {
          for (const param of block.params) visit(param, into);
          visit(block.program, into);
        }
        if (block.inverse) visit(block.inverse, into);
        return;
      }
      default:
        return;
    }
  };
  visit(program, names);
  return names;
}

const TEMPLATES: readonly TypedTemplate<object>[] = [ELICITATION_TEMPLATE];

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
    const names = namesRead(Handlebars.parse("{{a}} {{#if b}}{{c}}{{/if}} {{#each list}}{{x}}{{@index}}{{/each}}"));
    expect(names).toEqual({ a: true, b: true, c: true, list: { x: true } });
    expect(names).not.toEqual({ a: true, b: true, c: true, list: { x: true }, unused: true });
    expect(names).not.toEqual({ a: true, b: true, cc: true, list: { x: true } });
  });
});
