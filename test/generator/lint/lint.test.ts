import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatDiagnostic, generate, lint, LINT_RULES, readConfigFile, resolveConfig, type LintDiagnostic, type ResolvedConfig } from "../../../generator/index.js";
import { projectRoot } from "../../support/paths.js";

/**
 * Schema lint, rule by rule. Each fixture in test/fixtures/lint/ holds `Fires*` definitions that
 * must yield exactly the listed findings, at the exact JSON pointer, and `Clean*` look-alikes
 * that must yield none: the whole list of a fixture's findings is compared, so a finding under a
 * `Clean*` definition (or a missing or misplaced one) fails the test.
 */

const FIXTURES = join(projectRoot, "test", "fixtures", "lint");
const REPO_CONFIG = join(projectRoot, "mcp-tasks-gen.config.json");

/** A config of one set made of one fixture file (paths in findings are relative to the fixtures folder). */
function fixtureConfig(file: string, allOf: "json-schema" | "merged" = "json-schema"): ResolvedConfig {
  return resolveConfig({ sets: [{ name: file.replace(/\.schema\.json$/, ""), schemas: [file], allOf }] }, FIXTURES);
}

/** `[rule, pointer]` of every finding, in report order. */
const places = (found: readonly LintDiagnostic[]) => found.map((d) => [d.rule, d.location.pointer]);

function lintFixture(file: string, allOf: "json-schema" | "merged" = "json-schema"): LintDiagnostic[] {
  const found = [...lint(fixtureConfig(file, allOf))];
  for (const d of found) {
    expect(d.location.file, formatDiagnostic(d)).toBe(file);
    expect(d.severity, formatDiagnostic(d)).toBe("warning");
    expect(d.location.pointer, `${formatDiagnostic(d)}: nothing may fire under a Clean* definition`).not.toMatch(/\/Clean[A-Za-z]*(\/|$)/);
  }
  return found;
}

const message = (found: readonly LintDiagnostic[], pointer: string): string => {
  const d = found.find((f) => f.location.pointer === pointer);
  if (!d) throw new Error(`no finding at ${pointer}; found: ${found.map(formatDiagnostic).join("\n")}`);
  return d.message;
};

describe("lint rules: exact locations on fixtures, silence on clean counterparts", () => {
  it("has stable, documented rule ids", () => {
    expect(LINT_RULES.map((r) => r.id)).toEqual([
      "unreachable-property",
      "unsatisfiable",
      "ref-siblings-ignored",
      "unknown-format",
      "placeholder-union",
      "duplicate-branch",
      "other-dialect-keyword",
    ]);
  });

  it("unreachable-property: inline, through $refs, through an anyOf of closed objects, and a required one", () => {
    const found = lintFixture("unreachable-property.schema.json");
    expect(places(found)).toEqual([
      ["unreachable-property", "/$defs/FiresInline/allOf/0/properties/note"],
      // Reached through a $ref: reported at the branch holding the $ref, naming the declaration.
      ["unreachable-property", "/$defs/FiresThroughRefs/allOf/0"],
      ["unreachable-property", "/$defs/FiresThroughUnion/allOf/0"],
      ["unreachable-property", "/$defs/FiresRequired/allOf/0/properties/extra"],
      ["unreachable-property", "/$defs/FiresTwoUnions/allOf/0/anyOf/0/properties/a"],
      ["unreachable-property", "/$defs/FiresTwoUnions/allOf/0/anyOf/1/properties/b"],
    ]);
    expect(message(found, "/$defs/FiresInline/allOf/0/properties/note")).toMatch(/^"note" can never be present: the sibling branch #\/\$defs\/FiresInline\/allOf\/1 sets additionalProperties: false and declares only "id"/);
    expect(message(found, "/$defs/FiresThroughRefs/allOf/0")).toContain('"_meta" (declared at #/$defs/Base/properties/_meta)');
    expect(message(found, "/$defs/FiresThroughRefs/allOf/0")).toContain("through its $ref to #/$defs/Closed");
    expect(message(found, "/$defs/FiresThroughUnion/allOf/0")).toContain("is an anyOf whose every object branch sets additionalProperties: false");
    expect(message(found, "/$defs/FiresRequired/allOf/0/properties/extra")).toContain("no value satisfies this allOf at all");
    for (const d of found) expect(d.message).toContain("--allof merged");
  });

  it("unreachable-property is off where merged mode reads the allOf as an intersection, and stays where the merge cannot apply", () => {
    // Two unions in one allOf are not merged (a product of unions), so JSON Schema's meaning holds there.
    expect(places(lintFixture("unreachable-property.schema.json", "merged"))).toEqual([
      ["unreachable-property", "/$defs/FiresTwoUnions/allOf/0/anyOf/0/properties/a"],
      ["unreachable-property", "/$defs/FiresTwoUnions/allOf/0/anyOf/1/properties/b"],
    ]);
  });

  it("unsatisfiable: const outside enum, wrong-typed const, contradictory allOf types, empty bounds", () => {
    const found = lintFixture("unsatisfiable.schema.json");
    expect(places(found)).toEqual([
      ["unsatisfiable", "/$defs/FiresConstOutsideEnum/const"],
      ["unsatisfiable", "/$defs/FiresConstWrongType/const"],
      ["unsatisfiable", "/$defs/FiresConstThroughRef/allOf/1/const"],
      ["unsatisfiable", "/$defs/FiresAllOfTypes"],
      ["unsatisfiable", "/$defs/FiresMinAboveMax/minimum"],
      ["unsatisfiable", "/$defs/FiresNoIntegerBetween/exclusiveMinimum"],
      ["unsatisfiable", "/$defs/FiresLength/minLength"],
      ["unsatisfiable", "/$defs/FiresItems/minItems"],
      ["unsatisfiable", "/$defs/FiresRequiredButClosed/required"],
      ["unsatisfiable", "/$defs/FiresRequiredFalse/properties/x"],
      ["unsatisfiable", "/$defs/FiresEmptyEnum/enum"],
    ]);
    expect(message(found, "/$defs/FiresConstOutsideEnum/const")).toBe(
      'const "c" is not admitted by enum ["a","b"] at #/$defs/FiresConstOutsideEnum/enum, so no value satisfies this schema',
    );
    expect(message(found, "/$defs/FiresConstThroughRef/allOf/1/const")).toContain('enum ["working","completed"] at #/$defs/FiresConstThroughRef/allOf/0/$ref');
    expect(message(found, "/$defs/FiresAllOfTypes")).toBe(
      "no value satisfies this schema: #/$defs/FiresAllOfTypes/allOf/0 admits only string, but #/$defs/FiresAllOfTypes/allOf/1 admits only number",
    );
    expect(message(found, "/$defs/FiresNoIntegerBetween/exclusiveMinimum")).toContain("no integer");
  });

  it("ref-siblings-ignored: validation keywords beside a draft-07 $ref, not annotations", () => {
    const found = lintFixture("ref-siblings.schema.json");
    expect(places(found)).toEqual([
      ["ref-siblings-ignored", "/definitions/FiresTopLevel/maxLength"],
      ["ref-siblings-ignored", "/definitions/FiresInProperty/properties/kind/enum"],
    ]);
    expect(message(found, "/definitions/FiresTopLevel/maxLength")).toMatch(/^"maxLength" beside "\$ref" has no effect in draft-07/);
  });

  it("ref-siblings-ignored: silent in 2020-12, where keywords beside $ref apply", () => {
    expect(lintFixture("ref-siblings-2020.schema.json")).toEqual([]);
  });

  it("other-dialect-keyword: another dialect's keyword where the schema's dialect lacks it, naming the keyword to write instead", () => {
    const found = lintFixture("other-dialect-keyword.schema.json");
    expect(places(found)).toEqual([
      ["other-dialect-keyword", "/$defs/FiresDependencies/dependencies"],
      ["other-dialect-keyword", "/$defs/FiresAdditionalItems/additionalItems"],
      ["other-dialect-keyword", "/$defs/FiresInDraft04/properties/kind/const"],
    ]);
    expect(message(found, "/$defs/FiresDependencies/dependencies")).toBe(
      '"dependencies" is a keyword of draft-04, draft-06, draft-07, not of 2020-12 (the schema\'s dialect), so it is an annotation here and checks nothing; in 2020-12 write "dependentRequired" (arrays of names) or "dependentSchemas" (schemas); to apply it, declare the "$schema" of a dialect that has it',
    );
  });

  it("unknown-format: made-up and OpenAPI formats, not the JSON Schema ones", () => {
    const found = lintFixture("unknown-format.schema.json");
    expect(places(found)).toEqual([
      ["unknown-format", "/$defs/FiresMadeUp/format"],
      ["unknown-format", "/$defs/FiresOpenApi/format"],
    ]);
    expect(message(found, "/$defs/FiresMadeUp/format")).toBe('format "colour" is not a JSON Schema format; it is kept as documentation and nothing checks it');
    expect(message(found, "/$defs/FiresOpenApi/format")).toContain("OpenAPI/schemars format");
  });

  it("placeholder-union: every branch accepts anything (a oneOf of them accepts nothing); no duplicate-branch on top", () => {
    const found = lintFixture("placeholder-union.schema.json");
    expect(places(found)).toEqual([
      ["placeholder-union", "/$defs/FiresAnyOf/anyOf"],
      ["placeholder-union", "/$defs/FiresOneOf/oneOf"],
      ["placeholder-union", "/$defs/FiresThroughRef/additionalProperties/anyOf"],
    ]);
    expect(message(found, "/$defs/FiresAnyOf/anyOf")).toContain("checks nothing");
    expect(message(found, "/$defs/FiresOneOf/oneOf")).toContain("accepts nothing");
  });

  it("duplicate-branch: the later of two equal branches, through a $ref too", () => {
    const found = lintFixture("duplicate-branch.schema.json");
    expect(places(found)).toEqual([
      ["duplicate-branch", "/$defs/FiresAnyOf/anyOf/2"],
      ["duplicate-branch", "/$defs/FiresOneOfThroughRef/oneOf/1"],
    ]);
    expect(message(found, "/$defs/FiresAnyOf/anyOf/2")).toContain("branch #/$defs/FiresAnyOf/anyOf/0");
    expect(message(found, "/$defs/FiresOneOfThroughRef/oneOf/1")).toContain("reject every value they describe");
  });
});

describe("lint on the bundled schemas", () => {
  // The repository's config silences these known findings ("lint" of its sets); here they are looked at.
  const repoConfig = readConfigFile(REPO_CONFIG);
  const config = { ...repoConfig, sets: repoConfig.sets.map(({ lint: _silenced, ...s }) => s) };
  const found = lint(config);
  const ofSet = (set: string) => found.filter((d) => d.set === set);

  it("the newest ext-tasks revision (ext-tasks-draft): open intersections and real input unions, so neither finding of the 2026-05-22 revision", () => {
    expect(ofSet("ext-tasks-draft").length).toBeGreaterThan(0);
    expect(ofSet("ext-tasks-draft").filter((d) => d.rule === "unreachable-property" || d.rule === "placeholder-union")).toEqual([]);
    // What it has are the core definitions' base64 "byte" formats, which the repository config silences.
    expect(new Set(ofSet("ext-tasks-draft").map((d) => d.rule))).toEqual(new Set(["unknown-format"]));
  });

  it("the 2026-05-22 ext-tasks revision: _meta is unreachable in CreateTaskResult, GetTaskResult and TaskStatusNotificationParams", () => {
    const unreachable = ofSet("ext-tasks-2026-05-22").filter((d) => d.rule === "unreachable-property");
    const pointers = unreachable.map((d) => d.location.pointer);
    for (const name of ["CreateTaskResult", "GetTaskResult", "TaskStatusNotificationParams"]) {
      expect(pointers, name).toContain(`/$defs/${name}/allOf/0/properties/_meta`);
    }
    // The notification's inline copy of the params has the same defect, reported where it is.
    expect(pointers).toContain("/$defs/TaskStatusNotification/properties/params/allOf/0/properties/_meta");
    expect(pointers).toHaveLength(4);
    for (const d of unreachable) {
      expect(d.location.file).toBe("schemas/ext-tasks-2026-05-22.schema.json");
      // The message explains why the specification's own examples fail and what to do about it.
      expect(d.message).toContain('"_meta" can never be present');
      expect(d.message).toContain('"resultType"');
      expect(d.message).toContain("the specification's own examples");
      expect(d.message).toContain("--allof merged");
    }
    expect(message(unreachable, "/$defs/CreateTaskResult/allOf/0/properties/_meta")).toContain(
      'the sibling branch #/$defs/CreateTaskResult/allOf/1 sets additionalProperties: false and declares only "taskId", "status"',
    );
    expect(message(unreachable, "/$defs/GetTaskResult/allOf/0/properties/_meta")).toContain(
      "the sibling branch #/$defs/GetTaskResult/allOf/1 is an anyOf whose every object branch sets additionalProperties: false",
    );
  });

  it("the 2026-05-22 ext-tasks revision: InputRequest and InputResponse are placeholder unions (anyOf: [{}, {}, {}]), which the config's bindings fill in", () => {
    const unbound = { ...config, sets: config.sets.map(({ bindings: _bound, ...s }) => s) };
    const placeholders = lint(unbound)
      .filter((d) => d.set === "ext-tasks-2026-05-22" && d.rule === "placeholder-union")
      .map((d) => d.location.pointer);
    expect(placeholders).toContain("/$defs/InputRequest/anyOf");
    expect(placeholders).toContain("/$defs/InputResponse/anyOf");
    expect(placeholders).toContain("/$defs/InputRequests/additionalProperties/anyOf");
    // Bound (as the repository config does), neither they nor their inline copies are placeholders any more.
    expect(ofSet("ext-tasks-2026-05-22").filter((d) => d.rule === "placeholder-union")).toEqual([]);
  });

  it("the 2025-11-25 set is clean but for the core schema's base64 format, and the Codex elicitation schema only has schemars' numeric formats", () => {
    // The core definitions the stubs take from the MCP 2025-11-25 schema write base64 data as format "byte" (README › Core definitions).
    const tasks = ofSet("tasks-2025-11-25");
    expect(tasks.length).toBeGreaterThan(0);
    for (const d of tasks) {
      expect(d.location.file).toBe("schemas/mcp-2025-11-25.schema.json");
      expect(d.rule).toBe("unknown-format");
      expect(d.message).toContain('format "byte"');
    }
    // The ext-tasks set reads the Codex schema too (its bindings reach it); each finding is reported once, for the first set.
    const codex = found.filter((d) => d.location.file === "schemas/codex-mcp-elicitation-request-params.schema.json");
    expect(codex.length).toBeGreaterThan(0);
    expect(new Set(codex.map((d) => d.rule))).toEqual(new Set(["unknown-format"]));
    expect(new Set(codex.map((d) => d.message.match(/format "(\w+)"/)?.[1]))).toEqual(new Set(["double", "uint32", "uint64"]));
  });

  it("in merged mode no unreachable-property remains in the ext-tasks draft", () => {
    // Without the bindings, so the placeholders show that lint still ran.
    const merged = { ...config, sets: config.sets.map(({ bindings: _bound, ...s }) => ({ ...s, allOf: "merged" as const })) };
    const rules = lint(merged).filter((d) => d.set === "ext-tasks-2026-05-22").map((d) => d.rule);
    expect(rules).not.toContain("unreachable-property");
    expect(rules).toContain("placeholder-union");
  });

  it("the repository's config silences exactly the rules of these known findings, so its own run is clean", () => {
    expect(lint(repoConfig)).toEqual([]);
    for (const [i, set] of repoConfig.sets.entries()) {
      const silenced = Object.entries(set.lint ?? {}).filter(([, setting]) => setting === "off").map(([rule]) => rule);
      // Each set alone (across sets a shared finding is reported once): nothing is silenced that
      // does not fire, and nothing fires that is not silenced.
      const alone = lint({ ...config, sets: [config.sets[i]!] });
      expect(new Set(alone.map((d) => d.rule)), set.name).toEqual(new Set(silenced));
    }
  });

  it("generate() carries the same findings in its diagnostics, each naming its set", async () => {
    const one = { ...config, sets: config.sets.filter((s) => s.name === "ext-tasks-2026-05-22") };
    const result = await generate(one);
    expect(result.diagnostics.map(formatDiagnostic)).toEqual(ofSet("ext-tasks-2026-05-22").map(formatDiagnostic));
    expect(result.diagnostics.every((d) => d.set === "ext-tasks-2026-05-22")).toBe(true);
    expect(result.diagnostics.length).toBeGreaterThan(0);
  });
});
