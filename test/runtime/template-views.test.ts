import { readdirSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import { describe, expect, it } from "vitest";
import { ELICITATION_TEMPLATE, type ElicitationView } from "../../generator/emit/elicitation/emit.js";
import { SERVER_TEMPLATE } from "../../generator/emit/stubs/server.js";
import { CLIENT_TEMPLATE } from "../../generator/emit/stubs/client.js";
import { STATUS_TEMPLATE } from "../../generator/emit/status.js";
import { render, templateSource, typedTemplate, type TypedTemplate } from "../../generator/emit/templates.js";
import { namesRead } from "../support/template-names.js";
import { projectRoot } from "../support/paths.js";

/**
 * A template reads exactly the keys of its view model. The compiler already holds the view model
 * and its declared keys together (see ViewKeys in generator/emit/templates.ts); this holds the
 * template to the declared keys: a name the template reads that the view does not have, or a key
 * of the view the template never reads, fails here.
 */

const TEMPLATES: readonly TypedTemplate<object>[] = [ELICITATION_TEMPLATE, SERVER_TEMPLATE, CLIENT_TEMPLATE, STATUS_TEMPLATE];

describe("typed templates", () => {
  it("cover every template in templates/", () => {
    const templates = readdirSync(join(projectRoot, "templates")).filter((f) => f.endsWith(".hbs"));
    expect(TEMPLATES.map((t) => t.name).sort()).toEqual(templates.sort());
  });

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
