import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../support/paths.js";
import { STRICT_COMPILER_OPTIONS, typeCheckInMemory } from "../../support/typescript.js";
import { filesBelow } from "../../support/pack.js";
import { writeGeneratedFile } from "../../support/generated-modules.js";

/**
 * README's complete server and client (README, "Runtime parts": the ```ts blocks that start with
 * `// server.ts` and `// client.ts`), as written there: type-checked strictly against the
 * repository's generated ext-tasks-draft set (which has the `http-server` and `http-client`
 * parts), then compiled the way tsc does and run as two `node` processes talking over 127.0.0.1.
 */

const README_PREFIX = "./generated/mcp-tasks/ext-tasks-draft/";
const SET_DIR = join(projectRoot, "generated", "ext-tasks-draft");

function readmeBlock(firstLine: string): string {
  const readme = readFileSync(join(projectRoot, "README.md"), "utf8");
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!).find((code) => code.startsWith(`${firstLine}\n`));
  if (block === undefined) throw new Error(`README has no \`\`\`ts block starting with ${firstLine}`);
  return block;
}

const server = readmeBlock("// server.ts");
const client = readmeBlock("// client.ts");

describe("README's complete server and client", () => {
  it("import the set's files the way README says the folder is laid out", () => {
    for (const code of [server, client]) expect(code).toContain(`from "${README_PREFIX}`);
  });

  it("type-check under strict NodeNext settings with Node's typings, beside the generated set", () => {
    // In one folder: the README's path to the set becomes "./". The set's parts that need a package (sqlite-store) are left out.
    const files = new Map<string, string>();
    for (const name of filesBelow(SET_DIR).filter((n) => n.endsWith(".ts") && n !== "runtime/parts/sqlite-store.ts")) files.set(name, readFileSync(join(SET_DIR, name), "utf8"));
    files.set("readme-server.ts", server.replaceAll(README_PREFIX, "./"));
    files.set("readme-client.ts", client.replaceAll(README_PREFIX, "./"));
    const options = { ...STRICT_COMPILER_OPTIONS, lib: ["lib.es2022.d.ts"], types: ["node"], typeRoots: [join(projectRoot, "node_modules", "@types")] };
    const diagnostics = typeCheckInMemory(files, options, { roots: (name) => name.startsWith("readme-") });
    expect(diagnostics.map((d) => `${d.file}:${d.line} TS${d.code}: ${ts.flattenDiagnosticMessageText(d.message, "\n")}`)).toEqual([]);
  });

  describe("run as written", () => {
    let work: string;
    let serverProcess: ChildProcess | undefined;

    beforeAll(() => {
      work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-readme-"));
      writeFileSync(join(work, "package.json"), '{ "type": "module" }\n');
      const compile = (code: string, name: string) =>
        ts.transpileModule(code, { fileName: name, compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true } }).outputText;
      const setOut = join(work, README_PREFIX);
      mkdirSync(setOut, { recursive: true });
      for (const name of filesBelow(SET_DIR).filter((n) => n.endsWith(".ts"))) {
        writeGeneratedFile(setOut, { name: name.replace(/\.ts$/, ".js"), contents: compile(readFileSync(join(SET_DIR, name), "utf8"), name) });
      }
      writeFileSync(join(work, "server.js"), compile(server, "server.ts"));
      writeFileSync(join(work, "client.js"), compile(client, "client.ts"));
    });

    afterAll(() => {
      serverProcess?.kill();
      rmSync(work, { recursive: true, force: true });
    });

    it("node server.js, then node client.js: the client prints the task's creation and the tool's result", async () => {
      const started = spawn(process.execPath, ["server.js"], { cwd: work, env: { ...process.env, PORT: "0" }, stdio: ["ignore", "pipe", "inherit"] });
      serverProcess = started;
      const url = await new Promise<string>((resolve, reject) => {
        let output = "";
        started.stdout!.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
          if (found) resolve(found[1]!);
        });
        started.once("exit", (code) => reject(new Error(`server.js exited (${code}): ${output}`)));
      });
      const { stdout } = await promisify(execFile)(process.execPath, ["client.js"], { cwd: work, env: { ...process.env, MCP_URL: url }, timeout: 20_000 });
      const lines = stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^task [0-9a-f-]{36} is working$/);
      expect(lines.slice(1)).toEqual(['[{"type":"text","text":"converted report.pdf"}]']);
    });
  });
});
