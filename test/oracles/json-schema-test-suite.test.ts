import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GeneratorError, generateFromMemory, type MemoryDocument } from "../../generator/index.js";
import { importValidators, keywordFiles, readGroups, remoteDocuments, type RootValidators, type SuiteGroup } from "../support/json-schema-suite.js";
import { fixturePath } from "../support/paths.js";

/**
 * The official JSON Schema Test Suite as the referee of the generated validators: where they and
 * the suite disagree, the validators are wrong (README.md says they are proven against it). Every group's schema is generated on its
 * own (so one unsupported keyword only costs its group), the output is transpiled and imported,
 * and every case must agree on validity through `isRoot`, `validateRoot` and `parseRoot`.
 *
 * What does not run is written down below with its reason, and the reason is checked: a skipped
 * group must make generation stop with a GeneratorError that names the keyword (or, for the
 * custom meta-schema files, the `$schema` it cannot read). Nothing is skipped silently, and a
 * skip that no longer stops generation fails this test. The table printed at the end gives the
 * counts per file and every reason.
 */

const DRAFTS = [
  { folder: "draft4", dialect: "draft-04" },
  { folder: "draft6", dialect: "draft-06" },
  { folder: "draft7", dialect: "draft-07" },
  { folder: "draft2020-12", dialect: "2020-12" },
] as const;
type DraftFolder = (typeof DRAFTS)[number]["folder"];

/** Why something does not run, and what the GeneratorError must say to prove it. */
interface Skip {
  readonly reason: string;
  readonly error: RegExp;
}

/**
 * The optional tests (`optional/`, its `format/` folder aside: formats are annotations): what JSON
 * Schema leaves to implementations. They need not pass; every group whose verdicts differ from
 * the suite's, or that does not generate, is listed here by file and description with the reason,
 * and the list is exact (a group that starts or stops differing fails), so README's account stays true.
 */
const UNKNOWN_KEYWORD = "an unknown keyword is refused (listed under annotations it is kept), so the group does not generate";
const DEPENDENCIES = "`dependencies` is an earlier dialect's keyword: an annotation in 2020-12 (lint: other-dialect-keyword), as the specification says; the test expects the optional compatibility reading";
const CONTENT = "contentMediaType/contentEncoding are annotations (the suite's optional assertion mode is not implemented)";
const OPTIONAL_DIFFERENCES: Record<DraftFolder, Record<string, string>> = {
  draft4: {
    "zeroTerminatedFloats.json › some languages do not distinguish between different types of numeric value":
      "JavaScript has one number type: 1.0 is the integer 1 once parsed, and draft-04 (alone) calls it no integer",
  },
  draft6: { "unknownKeyword.json › $id inside an unknown keyword is not a real identifier": UNKNOWN_KEYWORD },
  draft7: {
    "content.json › validation of string-encoded content based on media type": CONTENT,
    "content.json › validation of binary string-encoding": CONTENT,
    "content.json › validation of binary-encoded media type documents": CONTENT,
    "unknownKeyword.json › $id inside an unknown keyword is not a real identifier": UNKNOWN_KEYWORD,
  },
  "draft2020-12": {
    "dependencies-compatibility.json › single dependency": DEPENDENCIES,
    "dependencies-compatibility.json › multiple dependents required": DEPENDENCIES,
    "dependencies-compatibility.json › dependencies with escaped characters": DEPENDENCIES,
    "dependencies-compatibility.json › single schema dependency": DEPENDENCIES,
    "dependencies-compatibility.json › boolean subschemas": DEPENDENCIES,
    "dependencies-compatibility.json › schema dependencies with escaped characters": DEPENDENCIES,
    "format-assertion.json › schema that uses custom metaschema with format-assertion: false": "formats are annotations: an optional format-assertion vocabulary is ignored, so nothing checks the format",
    "format-assertion.json › schema that uses custom metaschema with format-assertion: true": "a required format-assertion vocabulary is refused at $schema (formats are never asserted)",
    "refOfUnknownKeyword.json › reference of a root arbitrary keyword ": UNKNOWN_KEYWORD,
    "refOfUnknownKeyword.json › reference of a root arbitrary keyword with encoded ref": UNKNOWN_KEYWORD,
    "refOfUnknownKeyword.json › reference of an arbitrary keyword of a sub-schema": UNKNOWN_KEYWORD,
    "refOfUnknownKeyword.json › reference of an arbitrary keyword of a sub-schema with encoded ref": UNKNOWN_KEYWORD,
    "unknownKeyword.json › $id inside an unknown keyword is not a real identifier": UNKNOWN_KEYWORD,
  },
};

/** Files that do not run at all: the generated validators keep `format` as documentation and never assert it. */
const OUT_OF_SCOPE = new Set(["format.json"]);

/**
 * Files about a keyword the generator rejects. Each of their groups either stops generation with
 * the error given here, or (when it does not use the keyword) runs like any other group; at least
 * one must stop, so a stale entry fails.
 */
const SKIPPED_FILES: Record<DraftFolder, Record<string, Skip>> = {
  draft4: {},
  draft6: {},
  draft7: {},
  "draft2020-12": {
  },
};

/** Groups of otherwise supported files that must stop generation, by file and group description. */
const SKIPPED_GROUPS: Record<DraftFolder, Record<string, Record<string, Skip>>> = {
  draft4: {},
  draft6: {},
  draft7: {},
  "draft2020-12": {
  },
};

// ---------------------------------------------------------------------------------------------

interface Row {
  readonly name: string;
  readonly groups: number;
  readonly cases: number;
  passed: number;
  skipped: number;
  readonly reasons: Set<string>;
}
const table: Row[] = [];
const work = mkdtempSync(join(tmpdir(), "json-schema-suite-"));
// The generated modules are written as .js ES modules.
writeFileSync(join(work, "package.json"), JSON.stringify({ type: "module" }));
const optionalTable: Row[] = [];
const optionalReasons: string[] = [];
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  console.log(formatTable(table));
  if (optionalTable.length > 0) console.log(["Optional tests (cases agreeing / differing), and why each group differs:", ...optionalTable.map((r) => `${r.name}: ${r.passed} / ${r.skipped}`), ...optionalReasons].join("\n"));
});

type Generated = { readonly validators: RootValidators } | { readonly error: unknown };

for (const draft of DRAFTS) {
  const testsDir = fixturePath("json-schema-test-suite", "tests", draft.folder);
  // The dialects' meta-schemas are not among them: the generator has its own copies.
  const known = remoteDocuments(fixturePath("json-schema-test-suite", "remotes"), draft.folder);
  // The optional cross-draft tests also refer to 2019-09's remotes.
  const knownToOptional = remoteDocuments(fixturePath("json-schema-test-suite", "remotes"), draft.folder, ["draft2019-09"]);

  /** Generates one group's schema as the root `Root` and imports its validators. */
  async function generateGroup(file: string, index: number, group: SuiteGroup, optional = false): Promise<Generated> {
    // Each group is a document of its own; a `$id` inside may re-base it, but the URI it was
    // registered under still finds it.
    const place = `${draft.folder}/${optional ? "optional/" : ""}${file}`;
    const uri = `file:///suite/${place}/${index}.json`;
    const documents: MemoryDocument[] = [...(optional ? knownToOptional : known), { uri, json: group.schema, display: `${place}[${index}]` }];
    try {
      const { files } = await generateFromMemory({ documents, roots: [{ name: "Root", uri }], defaultDialect: draft.dialect, format: false });
      return { validators: await importValidators(files, join(work, place, String(index))) };
    } catch (error) {
      return { error };
    }
  }

  describe(draft.folder, () => {
    for (const file of keywordFiles(testsDir)) {
      const groups = readGroups(join(testsDir, file));
      const row: Row = {
        name: `${draft.folder}/${file}`,
        groups: groups.length,
        cases: groups.reduce((n, g) => n + g.tests.length, 0),
        passed: 0,
        skipped: 0,
        reasons: new Set(),
      };
      table.push(row);
      if (OUT_OF_SCOPE.has(file)) {
        row.skipped = row.cases;
        row.reasons.add("whole file out of scope: `format` is an annotation");
        continue;
      }
      const fileSkip = SKIPPED_FILES[draft.folder][file];
      const groupSkips = SKIPPED_GROUPS[draft.folder][file] ?? {};
      for (const description of Object.keys(groupSkips)) {
        if (!groups.some((g) => g.description === description)) throw new Error(`${file}: no group "${description}" to skip`);
      }

      describe(file, () => {
        const generated: Generated[] = [];
        beforeAll(async () => {
          for (const [i, group] of groups.entries()) generated.push(await generateGroup(file, i, group));
        });

        if (fileSkip) {
          it(`stops generation where the file's keyword is used: ${fileSkip.reason}`, () => {
            expect(generated.some((g) => "error" in g)).toBe(true);
          });
        }
        groups.forEach((group, i) => {
          const listed = groupSkips[group.description];
          const skip = listed ?? fileSkip;
          it(`[${i}] ${group.description}${listed ? ` (skipped: ${listed.reason})` : ""}`, () => {
            const result = generated[i]!;
            if ("error" in result) {
              // Only a GeneratorError with the listed message is an honest skip; anything else fails.
              if (!skip || !(result.error instanceof GeneratorError)) throw result.error;
              expect(result.error.message).toMatch(skip.error);
              row.skipped += group.tests.length;
              row.reasons.add(fileSkip && !listed ? `groups using it: ${skip.reason}` : `"${group.description}": ${skip.reason}`);
              return;
            }
            expect(listed, "generation succeeded, so this group needs no skip").toBeUndefined();
            const failures: string[] = [];
            for (const test of group.tests) {
              const wrong = disagreements(result.validators, test.data, test.valid);
              if (wrong.length === 0) row.passed++;
              else failures.push(...wrong.map((w) => `${test.description}: ${w}`));
            }
            expect(failures).toEqual([]);
          });
        });
      });
    }
  });

  const optionalDir = join(testsDir, "optional");
  if (!existsSync(optionalDir)) continue;
  describe(`${draft.folder}/optional`, () => {
    it("differs from the suite in exactly the groups listed, for the reasons given", async () => {
      const differing: Record<string, string> = {};
      for (const file of keywordFiles(optionalDir)) {
        for (const [i, group] of readGroups(join(optionalDir, file)).entries()) {
          const result = await generateGroup(file, i, group, true);
          const key = `${file} › ${group.description}`;
          const row = optionalRow(`${draft.folder}/optional/${file}`);
          if ("error" in result) {
            differing[key] = `refused: ${result.error instanceof GeneratorError ? result.error.message : String(result.error)}`;
            row.skipped += group.tests.length;
            continue;
          }
          const wrong: string[] = [];
          for (const test of group.tests) {
            const found = disagreements(result.validators, test.data, test.valid);
            if (found.length === 0) row.passed++;
            else wrong.push(`${test.description}: ${found[0]!}`);
          }
          row.skipped += wrong.length;
          if (wrong.length > 0) differing[key] = wrong[0]!;
        }
      }
      const listed = OPTIONAL_DIFFERENCES[draft.folder];
      for (const [key, reason] of Object.entries(listed)) optionalReasons.push(`${draft.folder}/optional/${key}: ${reason}`);
      expect(Object.keys(differing).sort(), JSON.stringify(differing, null, 1)).toEqual(Object.keys(listed).sort());
    }, 600_000);
  });
}

function optionalRow(name: string): Row {
  let row = optionalTable.find((r) => r.name === name);
  if (!row) {
    row = { name, groups: 0, cases: 0, passed: 0, skipped: 0, reasons: new Set() };
    optionalTable.push(row);
  }
  return row;
}

/** Everything the three entry points get wrong about one value (empty: all agree with the suite). */
function disagreements(v: RootValidators, data: unknown, valid: boolean): string[] {
  const out: string[] = [];
  const is = v.isRoot(data);
  if (is !== valid) out.push(`isRoot returned ${is}, expected ${valid}`);
  const result = v.validateRoot(data);
  if (result.ok !== valid) out.push(`validateRoot().ok is ${result.ok}, expected ${valid}`);
  if (!result.ok) {
    if (result.errors.length === 0) out.push("validateRoot() rejected it with no errors");
    for (const error of result.errors) {
      for (const field of ["path", "keyword", "message", "schemaPath"]) {
        if (typeof error[field] !== "string") out.push(`an error has no string "${field}": ${JSON.stringify(error)}`);
      }
    }
  }
  try {
    v.parseRoot(data);
    if (!valid) out.push("parseRoot did not throw");
  } catch (error) {
    if (valid) out.push(`parseRoot threw ${String(error)}`);
    else if ((error as Error).name !== "ValidationFailed") out.push(`parseRoot threw ${String(error)}, not ValidationFailed`);
    else if (!result.ok && !isDeepStrictEqual((error as { errors: unknown }).errors, result.errors)) out.push("parseRoot's errors differ from validateRoot's");
  }
  return out;
}

function formatTable(rows: readonly Row[]): string {
  const total = (key: "groups" | "cases" | "passed" | "skipped") => String(rows.reduce((n, r) => n + r[key], 0));
  const cells = [
    ["file", "groups", "cases", "passed", "skipped", "why skipped"],
    ...rows.map((r) => [r.name, String(r.groups), String(r.cases), String(r.passed), String(r.skipped), [...r.reasons].join("; ")]),
    ["total", total("groups"), total("cases"), total("passed"), total("skipped"), ""],
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : i < 5 ? cell.padStart(widths[i]!) : cell)).join("  ").trimEnd();
  return ["JSON Schema Test Suite, per file:", ...cells.map(line)].join("\n");
}
