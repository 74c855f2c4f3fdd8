import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatTypeScript } from "../../../generator/output/format.js";
import { inputFingerprint, reusableBody, withFingerprint } from "../../../generator/output/reuse.js";

// Reuse must only ever hand back bytes identical to what prettier would print for the same code.
describe("reusing formatted output", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-reuse-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const code = "export   const  a = {b:1}\nexport function f( x: number ){return x+1}\n";
  const input = inputFingerprint(code);
  const body = await formatTypeScript(code);
  const path = join(dir, "m.ts");
  writeFileSync(path, withFingerprint("// header\n\n", input, body));

  it("reuses an intact file whose fingerprint matches the code", () => {
    expect(reusableBody(path, input)).toBe(body);
  });

  it("does not reuse a file for different code", () => {
    expect(reusableBody(path, inputFingerprint(code + "\n// changed"))).toBeUndefined();
  });

  it("does not reuse a file whose body was edited by hand", () => {
    const edited = join(dir, "edited.ts");
    writeFileSync(edited, readFileSync(path, "utf8").replace("return x + 1;", "return x + 2;"));
    expect(readFileSync(edited, "utf8")).not.toBe(readFileSync(path, "utf8"));
    expect(reusableBody(edited, input)).toBeUndefined();
  });

  it("does not reuse a missing file or one without a fingerprint", () => {
    expect(reusableBody(join(dir, "absent.ts"), input)).toBeUndefined();
    const bare = join(dir, "bare.ts");
    writeFileSync(bare, body);
    expect(reusableBody(bare, input)).toBeUndefined();
  });

  it("the fingerprint is a stable sha256 of the code and the formatter", () => {
    expect(inputFingerprint(code)).toBe(input);
    expect(inputFingerprint(code)).toMatch(/^[0-9a-f]{64}$/);
  });
});
