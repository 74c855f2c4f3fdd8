import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLED_SET_NAMES } from "../../generator/init/bundled.js";
import { consumerJavaScript, consumerTypeScript, EXPECTED_SUMMARY, runnerScript, runtimeApp } from "../support/consumer.js";
import { filesBelow, npmPack, repositoryCopy, runNpm, transcript } from "../support/pack.js";
import { projectRoot } from "../support/paths.js";

/**
 * mcp-tasks-gen as another project uses it: `npm pack` this package, install the tarball (and
 * TypeScript) into a fresh project in a temporary folder that has no access to this repository,
 * then `npx mcp-tasks-gen init`, `npx mcp-tasks-gen`, `--check`, the project's own `tsc` under
 * strict settings, and `node` running the generated validators and a task round trip through the
 * generated client and server; then the same with `--emit js` and plain `node`. Then, in a project
 * of each module format (ESM, CommonJS as `npm init -y` leaves it, a bundler's settings), `init` with
 * runtime parts, a program built only from generated code doing a task round trip over real HTTP on
 * 127.0.0.1 and over stdio, and the SQLite store keeping a task across a restart. One install serves
 * all: better-sqlite3 is linked from this repository's install (one native build, reused), the rest
 * comes from npm's cache. Slow (npm install): it needs npm and fails, never skips, without it.
 */

const INSTALL_TIMEOUT = 600_000;
const STEP_TIMEOUT = 300_000;

const temps: string[] = [];
function tempDir(label: string): string {
  // realpath: npm and node report resolved paths (macOS /var → /private/var).
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `mcp-tasks-gen-e2e-${label}-`)));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** `npx --no mcp-tasks-gen ...` in `cwd`: the project's installed bin, never one fetched from the registry. */
function mcpTasksGen(args: readonly string[], cwd: string) {
  return runNpm("npx", ["--no", "--", "mcp-tasks-gen", ...args], cwd, STEP_TIMEOUT);
}

function expectSuccess(result: ReturnType<typeof runNpm>, what: string): void {
  expect(result.status, `${what}\n${transcript(result)}`).toBe(0);
}

/** The compiler settings README.md › The generated API promises generated code compiles under, with the unused checks. */
const STRICT = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  noImplicitOverride: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  module: "NodeNext",
  moduleResolution: "NodeNext",
  target: "ES2022",
  lib: ["ES2022"],
  types: [],
};

let project: string;

/** A dev dependency's version range as this repository pins it. */
function devDependency(name: string): string {
  return (JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> }).devDependencies[name]!;
}

beforeAll(() => {
  const npm = runNpm("npm", ["--version"], tmpdir(), 60_000);
  if (npm.status !== 0) throw new Error(`npm is needed for this test and does not work:\n${transcript(npm)}`);

  const packDir = tempDir("pack");
  const repository = repositoryCopy(); // packing rebuilds dist/ and rewrites package.json: never in the shared repository
  temps.push(repository);
  const packed = npmPack(repository, packDir);
  const tarball = join(packDir, packed.filename);
  expect(existsSync(tarball), tarball).toBe(true);

  project = tempDir("project");
  writeFileSync(join(project, "package.json"), `${JSON.stringify({ name: "consumer-e2e", private: true, type: "module" }, null, 2)}\n`);
  const install = runNpm(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--save-dev",
      tarball,
      "typescript@~5.9.3",
      // What the runtime parts need (their headers name them): Node's typings, and better-sqlite3 with its typings.
      `@types/node@${devDependency("@types/node")}`,
      `@types/better-sqlite3@${devDependency("@types/better-sqlite3")}`,
      `better-sqlite3@file:${join(projectRoot, "node_modules", "better-sqlite3")}`,
    ],
    project,
    INSTALL_TIMEOUT,
  );
  expectSuccess(install, "npm install of the packed tarball and typescript");
}, INSTALL_TIMEOUT + 180_000);

describe("a fresh project installs the packed mcp-tasks-gen", () => {
  it("gets the package from the tarball, not from this repository", () => {
    const installed = join(project, "node_modules", "mcp-tasks-gen");
    expect(realpathSync(installed).startsWith(project)).toBe(true);
    expect(realpathSync(installed).startsWith(projectRoot)).toBe(false);
    expect(existsSync(join(installed, "dist", "generator", "cli", "main.js"))).toBe(true);
    expect(existsSync(join(installed, "test"))).toBe(false);
  });

  it(
    "TypeScript: init, generate, --check, strict tsc, then node runs validators and a client/server task round trip",
    () => {
      const missing = mcpTasksGen([], project);
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain("npx mcp-tasks-gen init");
      expect(missing.stderr).not.toMatch(/^\s+at /m);

      const init = mcpTasksGen(["init", "--out", "src/generated"], project);
      expectSuccess(init, "npx mcp-tasks-gen init");
      expect(init.stdout).toContain("npx mcp-tasks-gen --check");

      const generate = mcpTasksGen([], project);
      expectSuccess(generate, "npx mcp-tasks-gen");
      for (const set of BUNDLED_SET_NAMES) expect(generate.stdout).toContain(`wrote src/generated/${set}/`);
      const check = mcpTasksGen(["--check"], project);
      expectSuccess(check, "npx mcp-tasks-gen --check");

      // Headers name the bundled schemas by package, not by where npm happened to put them.
      const types = readFileSync(join(project, "src", "generated", "ext-tasks-draft", "types.ts"), "utf8");
      expect(types).toContain("//   mcp-tasks-gen:schemas/ext-tasks-draft.schema.json sha256:");
      expect(types).not.toContain("node_modules");

      writeFileSync(join(project, "src", "app.ts"), consumerTypeScript("./generated"));
      writeFileSync(join(project, "main.mjs"), runnerScript("./dist/app.js"));
      writeFileSync(
        join(project, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { ...STRICT, rootDir: "src", outDir: "dist" }, include: ["src"] }, null, 2),
      );
      expectSuccess(runNpm("npx", ["--no", "--", "tsc", "-p", "tsconfig.json"], project, STEP_TIMEOUT), "tsc over the generated code and the app");
      const ran = spawnSync(process.execPath, ["main.mjs"], { cwd: project, encoding: "utf8", timeout: 60_000 });
      expect(ran.stderr).toBe("");
      expect(JSON.parse(ran.stdout)).toEqual(EXPECTED_SUMMARY);

      // What CI sees when someone edits generated code by hand.
      const validators = join(project, "src", "generated", "ext-tasks-draft", "validators.ts");
      writeFileSync(validators, `${readFileSync(validators, "utf8")}\n// edited\n`);
      const stale = mcpTasksGen(["--check"], project);
      expect(stale.status, transcript(stale)).toBe(1);
      expect(stale.stderr).toMatch(/^modified +src\/generated\/ext-tasks-draft\/validators\.ts$/m);
    },
    STEP_TIMEOUT * 2,
  );

  it(
    "JavaScript: init --emit js, generate, --check, plain node runs the same; the project's tsc accepts the .d.ts",
    () => {
      const js = join(project, "js-app");
      mkdirSync(js);
      const init = mcpTasksGen(["init", "--emit", "js", "--out", "generated"], js);
      expectSuccess(init, "npx mcp-tasks-gen init --emit js");
      expectSuccess(mcpTasksGen([], js), "npx mcp-tasks-gen (JavaScript)");
      expectSuccess(mcpTasksGen(["--check"], js), "npx mcp-tasks-gen --check (JavaScript)");

      const written = filesBelow(join(js, "generated"));
      expect(written.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
      expect(written).toContain("ext-tasks-draft/index.js");

      writeFileSync(join(js, "app.mjs"), consumerJavaScript("./generated"));
      writeFileSync(join(js, "main.mjs"), runnerScript("./app.mjs"));
      const ran = spawnSync(process.execPath, ["main.mjs"], { cwd: js, encoding: "utf8", timeout: 60_000 });
      expect(ran.stderr).toBe("");
      expect(JSON.parse(ran.stdout)).toEqual(EXPECTED_SUMMARY);

      // Editors and type-aware tools read the declarations: the same typed consumer checks against them.
      writeFileSync(join(js, "consumer.ts"), consumerTypeScript("./generated"));
      writeFileSync(join(js, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...STRICT, noEmit: true }, files: ["consumer.ts"] }, null, 2));
      expectSuccess(runNpm("npx", ["--no", "--", "tsc", "-p", "tsconfig.json"], js, STEP_TIMEOUT), "tsc over the .d.ts and a typed consumer");
    },
    STEP_TIMEOUT * 2,
  );

  describe("runtime parts in each module format: HTTP and stdio round trips, SQLite across a restart", () => {
    const hosts = [
      { label: "esm", packageJson: { name: "esm-app", type: "module" }, module: { module: "NodeNext", moduleResolution: "NodeNext" }, app: "app.ts", extension: ".js" },
      {
        label: "commonjs",
        // As npm init -y writes it: init picks .mts files, and the app is an ES module file of the CommonJS project.
        packageJson: { name: "cjs-app", version: "1.0.0", main: "index.js", type: "commonjs" },
        module: { module: "NodeNext", moduleResolution: "NodeNext" },
        app: "app.mts",
        extension: ".mjs",
      },
      { label: "bundler", packageJson: { name: "bundler-app", type: "module" }, module: { module: "ESNext", moduleResolution: "Bundler" }, app: "app.ts", extension: ".js" },
    ] as const;

    it.each(hosts)(
      "$label: init --runtime, generate, --check --strict, strict tsc, then the program runs",
      ({ label, packageJson, module, app, extension }) => {
        const dir = join(project, `${label}-runtime`);
        mkdirSync(dir);
        writeFileSync(join(dir, "package.json"), `${JSON.stringify(packageJson, null, 2)}\n`);
        const init = mcpTasksGen(["init", "--runtime", "http-server,http-client,stdio,sqlite-store", "--out", "src/generated"], dir);
        expectSuccess(init, "npx mcp-tasks-gen init --runtime ...");
        expectSuccess(mcpTasksGen([], dir), "npx mcp-tasks-gen");
        expectSuccess(mcpTasksGen(["--check", "--strict"], dir), "npx mcp-tasks-gen --check --strict");
        const setFiles = filesBelow(join(dir, "src", "generated", "ext-tasks-draft"));
        expect(setFiles).toEqual(expect.arrayContaining(["http-server", "http-client", "stdio", "sqlite-store"].map((p) => `runtime/parts/${p}${extension === ".mjs" ? ".mts" : ".ts"}`)));

        writeFileSync(join(dir, "src", app), runtimeApp("./generated/ext-tasks-draft", extension));
        const compilerOptions = { ...STRICT, ...module, types: ["node"], rootDir: "src", outDir: "dist" };
        writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["src"] }, null, 2));
        expectSuccess(runNpm("npx", ["--no", "--", "tsc", "-p", "tsconfig.json"], dir, STEP_TIMEOUT), `tsc (${label})`);
        const program = join(dir, "dist", app.replace(/\.(m?)ts$/, ".$1js"));
        const node = (args: readonly string[]) => {
          const ran = spawnSync(process.execPath, [program, ...args], { cwd: dir, encoding: "utf8", timeout: 60_000 });
          expect(ran.status, `${args.join(" ")}\n${ran.stdout}${ran.stderr}`).toBe(0);
          return JSON.parse(ran.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
        };
        const converted = { created: "working", result: { content: [{ type: "text", text: "converted report.pdf" }] } };

        expect(node(["stdio-client"])).toEqual(converted);
        const db = join(dir, "restart.db");
        const { taskId } = node(["restart-write", db]);
        expect(node(["restart-read", db, String(taskId)])).toEqual({ status: "completed", result: { content: [{ type: "text", text: "kept" }] } });
        expect(httpRoundTrip(program, dir, join(dir, "http.db"))).toEqual(converted);
      },
      STEP_TIMEOUT * 2,
    );
  });
});

/** Starts the program's HTTP server (it prints `listening PORT`), runs its HTTP client against it, stops the server. */
function httpRoundTrip(program: string, cwd: string, db: string): Record<string, unknown> {
  const server = spawnSync(process.execPath, ["-e", HTTP_DRIVER, program, db], { cwd, encoding: "utf8", timeout: 60_000 });
  expect(server.status, `${server.stdout}${server.stderr}`).toBe(0);
  const port = /^port (\d+)$/m.exec(server.stdout)?.[1];
  expect(port, server.stdout + server.stderr).toBeDefined();
  return JSON.parse(/^client (.*)$/m.exec(server.stdout)![1]!) as Record<string, unknown>;
}

/**
 * Runs `program http-server DB`, waits for its port, runs `program http-client URL`, prints both and
 * stops the server: the two processes talk over real HTTP on 127.0.0.1.
 */
const HTTP_DRIVER = `
const { spawn, execFileSync } = require("node:child_process");
const [program, db] = process.argv.slice(1);
const server = spawn(process.execPath, [program, "http-server", db], { stdio: ["ignore", "pipe", "inherit"] });
let out = "";
server.stdout.on("data", (chunk) => {
  out += chunk;
  const port = /listening (\\d+)/.exec(out)?.[1];
  if (!port || server.answered) return;
  server.answered = true;
  console.log("port " + port);
  try {
    const answer = execFileSync(process.execPath, [program, "http-client", "http://127.0.0.1:" + port + "/mcp"], { encoding: "utf8", timeout: 30000 });
    console.log("client " + answer.trim().split("\\n").pop());
  } finally {
    server.kill();
  }
});
setTimeout(() => { server.kill(); process.exit(1); }, 45000).unref();
`;
