import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { beyondLint, runCli } from "../../support/cli.js";
import { fixturePath } from "../../support/paths.js";

/**
 * `generate --verbose` says what lint notes from the analysis generating made: each set's protocol
 * facts (analyze/protocol/facts.ts) are computed once per run, not again for the notes.
 */

const calls = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../../generator/analyze/protocol/facts.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../../generator/analyze/protocol/facts.js")>();
  return {
    ...actual,
    protocolFacts: (...args: Parameters<typeof actual.protocolFacts>) => {
      calls.count++;
      return actual.protocolFacts(...args);
    },
  };
});

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-verbose-facts-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeEach(() => {
  calls.count = 0;
});

/** The extension's newest revision without its core schema: lint and --verbose note the structural checks. */
const SCHEMA = fixturePath("mcp-spec", "ext-tasks-e434597", "schema.json");
const NOTE = /^note: set [a-z-]+: has no "core" schema, so the stubs check /;

describe("generate --verbose", () => {
  it("computes a set's protocol facts once, and notes what lint notes", async () => {
    const run = await runCli(["--schema", SCHEMA, "--out", join(work, "stubs"), "--verbose"]);
    expect(run.code).toBe(0);
    expect(beyondLint(run.stderr)).toMatch(NOTE);
    expect(calls.count).toBe(1);
  });

  it("computes them once for a set generated without stubs too (for its notes alone)", async () => {
    const run = await runCli(["--schema", SCHEMA, "--out", join(work, "no-stubs"), "--no-stubs", "--verbose"]);
    expect(run.code).toBe(0);
    expect(beyondLint(run.stderr)).toMatch(NOTE);
    expect(calls.count).toBe(1);
  });

  it("without --verbose, a set without stubs computes none", async () => {
    const run = await runCli(["--schema", SCHEMA, "--out", join(work, "quiet"), "--no-stubs"]);
    expect(run.code).toBe(0);
    expect(beyondLint(run.stderr)).toBe("");
    expect(calls.count).toBe(0);
  });

  it("lint notes the same", async () => {
    const lint = await runCli(["lint", "--schema", SCHEMA]);
    expect(lint.stdout.split("\n").filter((line) => line.startsWith("note:"))).toEqual([
      expect.stringMatching(NOTE),
    ]);
    expect(calls.count).toBe(1);
  });
});
