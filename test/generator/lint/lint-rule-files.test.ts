import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { IR_RULES, LINT_RULES, RAW_RULES } from "../../../generator/lint/rules.js";
import { projectRoot } from "../../support/paths.js";

/**
 * Lint rules live one per file, `generator/lint/rules/<rule-id>.ts`, and the rule list is built
 * from those files: a rule file nobody registered, or a registered rule in a file named after
 * something else, fails here.
 */
const RULES_DIR = join(projectRoot, "generator", "lint", "rules");
const files = readdirSync(RULES_DIR).filter((f) => f.endsWith(".ts")).sort();

describe("lint rule files", () => {
  it("are exactly the listed rules, each file named by its rule's id", () => {
    expect(files.map((f) => f.replace(/\.ts$/, ""))).toEqual(LINT_RULES.map((r) => r.id).sort());
  });

  it.each(files)("%s exports the rule of its name, and the IR or raw pass runs it", async (file) => {
    const module = (await import(pathToFileURL(join(RULES_DIR, file)).href)) as Record<string, unknown>;
    const rules = Object.values(module).filter((v): v is (typeof IR_RULES)[number] | (typeof RAW_RULES)[number] => typeof v === "object" && v !== null && "check" in v && "id" in v);
    expect(rules.map((r) => r.id)).toEqual([file.replace(/\.ts$/, "")]);
    const rule = rules[0]!;
    const pass: readonly unknown[] = rule.reads === "ir" ? IR_RULES : RAW_RULES;
    expect(pass).toContain(rule);
    expect(LINT_RULES.find((r) => r.id === rule.id)?.summary).toBe(rule.summary);
  });
});
