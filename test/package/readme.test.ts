import { execFile, spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { projectRoot } from "../support/paths.js";
import { readGeneratedSet, transpileToModule, writeGeneratedModules } from "../support/generated-modules.js";
import { STRICT_COMPILER_OPTIONS } from "../support/typescript.js";

/**
 * README's TypeScript, as written there. Every ```ts block compiles, strictly, in a project of the
 * kind it is written for: an ESM project (`"type": "module"`, NodeNext, Node's typings) holding the
 * repository's generated sets where README's imports look for them, or, for a block whose first line
 * says `(CommonJS)`, a CommonJS project with the `.mts` files `init` gives it. The blocks that form
 * programs (README › Quick start: `// server.ts` with `// client.ts` and `// shortest-client.ts`, and
 * the CommonJS pair) are then compiled and run as `node` processes talking over 127.0.0.1.
 */

const README = readFileSync(join(projectRoot, "README.md"), "utf8");

/** Every ```ts block of README with the line its code starts on. */
const BLOCKS = [...README.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => ({
  code: m[1]!,
  line: README.slice(0, m.index).split("\n").length + 1,
}));
const isCommonJs = (code: string) => /^\/\/ .*\(CommonJS\)\n/.test(code);

function readmeBlock(firstLine: string): string {
  const block = BLOCKS.find(({ code }) => code.startsWith(`${firstLine}\n`));
  if (block === undefined) throw new Error(`README has no \`\`\`ts block starting with ${firstLine}`);
  return block.code;
}

/** Where README's programs import the generated set from (`init --out src/generated/mcp-tasks`, code in src/). */
const README_PREFIX = "./generated/mcp-tasks/ext-tasks-draft/";
const SET = "ext-tasks-draft";
const GENERATED = join(projectRoot, "generated");

const server = readmeBlock("// server.ts");
const client = readmeBlock("// client.ts");
const shortest = readmeBlock("// shortest-client.ts");
const cjsServer = readmeBlock("// server.ts (CommonJS)");
const cjsClient = readmeBlock("// client.ts (CommonJS)");
/** The address README's programs name when no MCP_URL is given: the test puts its server's there. */
const README_URL = "http://127.0.0.1:3000/mcp";

const temps: string[] = [];
function tempDir(label: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `mcp-tasks-gen-readme-${label}-`)));
  temps.push(dir);
  return dir;
}
const processes: ChildProcess[] = [];
afterAll(() => {
  for (const child of processes) child.kill();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A project folder with this repository's node_modules (its typings and the peers of the runtime parts). */
function project(label: string, type: "module" | "commonjs"): string {
  const dir = tempDir(label);
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: `readme-${label}`, private: true, type })}\n`);
  symlinkSync(join(projectRoot, "node_modules"), join(dir, "node_modules"), "junction");
  return dir;
}

/** What a program's diagnostics say, one line each, named by README line where the file is a block. */
function problems(program: ts.Program, blockLine: (fileName: string) => number | undefined): string[] {
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return `TS${d.code}: ${text}`;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    const start = blockLine(d.file.fileName);
    return start === undefined ? `${d.file.fileName}:${line + 1} TS${d.code}: ${text}` : `README.md:${start + line} TS${d.code}: ${text}`;
  });
}

const NODE_PROJECT: ts.CompilerOptions = { ...STRICT_COMPILER_OPTIONS, lib: ["lib.es2022.d.ts"], types: ["node"] };

/** Runs `node server.js` in `dir` (PORT=0) and resolves the URL it prints. */
async function startServer(dir: string, script = "server.js"): Promise<string> {
  const started = spawn(process.execPath, [script], { cwd: dir, env: { ...process.env, PORT: "0" }, stdio: ["ignore", "pipe", "inherit"] });
  processes.push(started);
  return new Promise<string>((resolve, reject) => {
    let output = "";
    started.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(output);
      if (found) resolve(found[1]!);
    });
    started.once("exit", (code) => reject(new Error(`${script} exited (${code}): ${output}`)));
  });
}

/** The lines a client program prints. */
async function runClient(dir: string, script: string, url: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: dir, env: { ...process.env, MCP_URL: url }, timeout: 30_000 });
  return stdout.trim().split("\n");
}

/** What README's client prints: the task's creation, the task's question, the tool's result. */
function expectClientTranscript(lines: string[]): void {
  expect(lines[0]).toMatch(/^task [0-9a-f-]{36} is working$/);
  expect(lines.slice(1)).toEqual(["asked: Convert report.pdf?", '[{"type":"text","text":"converted report.pdf"}]']);
}

describe("README's TypeScript blocks", () => {
  it("are there: the complete programs among them, each exactly once", () => {
    expect(BLOCKS.length).toBeGreaterThan(10);
    for (const first of ["// server.ts", "// client.ts", "// shortest-client.ts", "// server.ts (CommonJS)", "// client.ts (CommonJS)"]) {
      expect(BLOCKS.filter(({ code }) => code.startsWith(`${first}\n`)), first).toHaveLength(1);
    }
  });

  it("the programs import the set's files the way README says the folder is laid out", () => {
    for (const code of [server, client, shortest, cjsServer, cjsClient]) expect(code).toContain(`"${README_PREFIX}`);
  });

  it("every ESM block compiles strictly (NodeNext, Node's typings) against the generated sets where README's imports find them", () => {
    const dir = project("esm", "module");
    const esmBlocks = BLOCKS.filter(({ code }) => !isCommonJs(code));
    // README names a set's folder both as this repository lays it out (generated/<set>) and as init's --out in the
    // Quick start does (generated/mcp-tasks/<set>): each folder a block imports from gets the repository's set.
    const folders = new Set(esmBlocks.flatMap(({ code }) => [...code.matchAll(/"\.\/(generated\/(?:mcp-tasks\/)?([\w-]+))\//g)].map((m) => `${m[1]}|${m[2]}`)));
    expect(folders.size).toBeGreaterThan(1);
    for (const entry of folders) {
      const [folder, set] = entry.split("|") as [string, string];
      cpSync(join(GENERATED, set), join(dir, folder), { recursive: true });
    }
    const files = new Map<string, number>();
    for (const { code, line } of esmBlocks) {
      const file = join(dir, `readme-line-${line}.ts`);
      // A block without import or export is a fragment of a module (top-level await): compiled as one.
      writeFileSync(file, /^(import|export) /m.test(code) ? code : `${code}\nexport {};\n`);
      files.set(file, line);
    }
    const program = ts.createProgram({ rootNames: [...files.keys()], options: NODE_PROJECT });
    expect(problems(program, (name) => files.get(name))).toEqual([]);
    // One program over every block and the sets they import: about 50 s on a quiet 2-core machine, 140 s under heavy load.
  }, 400_000);

  describe("the CommonJS pair, in a CommonJS project with init's .mts files", () => {
    let dir: string;

    beforeAll(async () => {
      dir = project("cjs", "commonjs");
      const config = join(dir, "mcp-tasks-gen.config.json");
      // init picks .mts itself from the project's package.json in the folder it runs in; run in-process here, it is told.
      const init = await runCli(["init", "--config", config, "--out", join(dir, "generated", "mcp-tasks"), "--set", SET, "--runtime", "http-server,http-client", "--extension", ".mts"]);
      expect([init.code, init.stderr]).toEqual([0, ""]);
      const generated = await runCli(["--config", config]);
      expect([generated.code, generated.stderr]).toEqual([0, ""]);
      writeFileSync(join(dir, "server.ts"), cjsServer);
      writeFileSync(join(dir, "client.ts"), cjsClient);
    }, 120_000);

    it("compile with tsc's settings for CommonJS (NodeNext, verbatimModuleSyntax) to server.js and client.js", () => {
      const roots = new Map([[join(dir, "server.ts"), lineOf(cjsServer)], [join(dir, "client.ts"), lineOf(cjsClient)]]);
      const program = ts.createProgram({ rootNames: [...roots.keys()], options: NODE_PROJECT });
      expect(problems(program, (name) => roots.get(name))).toEqual([]);
      const emitted = program.emit();
      expect(emitted.emitSkipped).toBe(false);
      expect(readFileSync(join(dir, "server.js"), "utf8")).toContain('require("./generated/mcp-tasks/ext-tasks-draft/index.mjs")');
    }, 180_000);

    it("node server.js, then node client.js: the same transcript as the ESM pair", async () => {
      const url = await startServer(dir);
      expectClientTranscript(await runClient(dir, "client.js", url));
    }, 60_000);
  });

  describe("the ESM programs, run as written", () => {
    let dir: string;

    beforeAll(() => {
      dir = tempDir("run");
      writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
      writeGeneratedModules(readGeneratedSet(join(GENERATED, SET)), join(dir, README_PREFIX));
      writeFileSync(join(dir, "server.js"), transpileToModule(server, "server.ts"));
      writeFileSync(join(dir, "client.js"), transpileToModule(client, "client.ts"));
      writeFileSync(join(dir, "shortest-client.js"), transpileToModule(shortest, "shortest-client.ts"));
    });

    it("node server.js, then node client.js: the client prints the task's creation, its question and the tool's result", async () => {
      const url = await startServer(dir);
      expectClientTranscript(await runClient(dir, "client.js", url));
    }, 60_000);

    it("the shortest client, with no options, gets the task's result from the same server (its question answered cancel)", async () => {
      expect(shortest).toContain(README_URL);
      const url = await startServer(dir);
      // The block names README's address: pointed at this server's port.
      writeFileSync(join(dir, "shortest-here.js"), readFileSync(join(dir, "shortest-client.js"), "utf8").replace(README_URL, url));
      expect(await runClient(dir, "shortest-here.js", url)).toEqual(['[{"type":"text","text":"left report.pdf as it was"}]']);
    }, 60_000);
  });
});

function lineOf(code: string): number {
  return BLOCKS.find((block) => block.code === code)!.line;
}
