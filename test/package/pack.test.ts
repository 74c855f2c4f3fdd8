import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUNDLED_SETS } from "../../generator/init/bundled.js";
import { fileInTarball, filesBelow, npmEnvironment, npmPack, repositoryCopy, runNpm, transcript, type PackResult } from "../support/pack.js";
import { publishedManifest, REPOSITORY_ONLY_FIELDS } from "../../tools/pack-manifest.mjs";

/**
 * What `npm publish` would ship, read from `npm pack --json` and the tarball it writes: the built
 * generator, the templates and bundled schemas it reads at run time, README, CHANGELOG, LICENSE and a
 * package.json without the repository's install hooks, and nothing else (no sources, tests,
 * fixtures, generated output or tools).
 *
 * Everything is packed in a copy of the repository (test/support/pack.ts repositoryCopy): packing
 * rebuilds dist/ and rewrites package.json, which the test files running beside this one use.
 * `repository` below is that copy.
 */

interface PackageJson {
  bin: Record<string, string>;
  main: string;
  types: string;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
  version: string;
}

const repository = repositoryCopy();
const PACKAGE_JSON = join(repository, "package.json");
/** The repository's package.json, as it is before and must be after every pack. */
const repositoryBytes = readFileSync(PACKAGE_JSON);
const packageJson = JSON.parse(repositoryBytes.toString("utf8")) as PackageJson;
const SAVE_FILE = join(repository, ".package.json.packing");

let pack: PackResult;
let paths: string[];
/** package.json as the tarball holds it. */
let packed: Record<string, unknown>;
const temps: string[] = [repository];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-pack-"));
  temps.push(dir);
  return dir;
};

beforeAll(() => {
  const destination = tempDir();
  pack = npmPack(repository, destination);
  paths = pack.files.map((f) => f.path).sort();
  packed = JSON.parse(fileInTarball(join(destination, pack.filename), "package/package.json") ?? "null") as Record<string, unknown>;
}, 180_000);
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Waits (up to `ms`) until package.json is the repository's again, byte for byte: the guard restores it once npm has exited. */
async function repositoryManifestBack(ms = 5_000): Promise<boolean> {
  const back = () => readFileSync(PACKAGE_JSON).equals(repositoryBytes) && !existsSync(SAVE_FILE);
  for (const started = Date.now(); !back(); await new Promise((done) => setTimeout(done, 50))) {
    if (Date.now() - started >= ms) return false;
  }
  return true;
}

/** Every module a JavaScript file imports or re-exports, statically or with `import()`. */
function moduleSpecifiers(name: string, code: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(name, code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS));
  return found;
}

/** The compiled files one generator source becomes. */
const compiledFrom = (source: string) => [source.replace(/\.ts$/, ".js"), source.replace(/\.ts$/, ".d.ts")].map((f) => `dist/generator/${f}`);

describe("npm pack: the published package", () => {
  it("holds exactly LICENSE, README.md, CHANGELOG.md, package.json, config.schema.json, dist/, schemas/ and templates/ at the top", () => {
    const top = new Set(paths.map((p) => (p.includes("/") ? `${p.slice(0, p.indexOf("/"))}/` : p)));
    expect([...top].sort()).toEqual(["CHANGELOG.md", "LICENSE", "README.md", "config.schema.json", "dist/", "package.json", "schemas/", "templates/"]);
  });

  it("the build leaves the bin executable, so `npx mcp-tasks-gen` runs in the repository packed (the build recreates dist/)", () => {
    const bin = join(repository, packageJson.bin["mcp-tasks-gen"]!);
    expect(statSync(bin).mode & 0o111, `${bin} is executable`).not.toBe(0);
    const ran = spawnSync(bin, ["--version"], { encoding: "utf8" });
    expect([ran.status, ran.stdout.trim()]).toEqual([0, packageJson.version]);
  });

  it("ships the built generator: for each generator source its .js and .d.ts, each template compiled, and nothing else under dist/", () => {
    const sources = filesBelow(join(repository, "generator")).filter((f) => f.endsWith(".ts"));
    // tools/precompile-templates.mjs, part of the build (ARCHITECTURE.md › Output).
    const templates = filesBelow(join(repository, "templates")).filter((f) => f.endsWith(".hbs"));
    const expected = [...sources.flatMap(compiledFrom), ...templates.map((t) => `dist/generator/emit/precompiled/${t}.cjs`)].sort();
    const dist = paths.filter((p) => p.startsWith("dist/"));
    // A compiled file with no source left is stale output of a renamed or deleted module:
    // `rm -rf dist && npm run build` before packing.
    expect(dist).toEqual(expected);
  });

  it("ships the static modules of generated sets (templates/runtime/*.ts)", () => {
    const runtime = filesBelow(join(repository, "templates", "runtime")).map((f) => `templates/runtime/${f}`);
    expect(runtime).toEqual(expect.arrayContaining(["templates/runtime/protocol/json.ts", "templates/runtime/protocol/elicitation-forms.ts"]));
    for (const file of runtime) expect(paths, file).toContain(file);
  });

  it("ships every template and bundled schema, as in the repository", () => {
    expect(paths.filter((p) => p.startsWith("templates/"))).toEqual(filesBelow(join(repository, "templates")).map((f) => `templates/${f}`).sort());
    expect(paths.filter((p) => p.startsWith("schemas/"))).toEqual(filesBelow(join(repository, "schemas")).map((f) => `schemas/${f}`).sort());
    const bundledFiles = Object.values(BUNDLED_SETS).flatMap((set) => [...set.schemas, ...Object.values(set.remotes), ...(set.core ? [set.core] : [])]);
    for (const file of bundledFiles) expect(paths, file).toContain(file);
  });

  it("contains no TypeScript sources, tests, fixtures, generated output, examples or tools", () => {
    // templates/runtime/*.ts are the static modules of generated sets: copied into them, never compiled here.
    const typescript = paths.filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts") && !p.startsWith("templates/runtime/"));
    expect(typescript).toEqual([]);
    const unwanted = /(^|\/)(test|tests|bench|generated|tools|fixtures|__snapshots__|examples|adapters|stores|src|node_modules)\//;
    expect(paths.filter((p) => unwanted.test(p))).toEqual([]);
    expect(paths.filter((p) => /\.(tgz|log|map|tsbuildinfo)$/.test(p) || p.startsWith("."))).toEqual([]);
  });

  it("the bin, main, types and exports point at files in the package; the bin is a node script", () => {
    const targets = [
      ...Object.values(packageJson.bin),
      packageJson.main,
      packageJson.types,
      ...Object.values(packageJson.exports).flatMap((target) => (typeof target === "string" ? [target] : Object.values(target))),
    ].map((target) => target.replace(/^\.\//, ""));
    for (const target of targets) expect(paths, target).toContain(target);
    const bin = readFileSync(join(repository, packageJson.bin["mcp-tasks-gen"]!), "utf8");
    expect(bin.startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("every package the built generator imports is a dependency (typescript too: it emits JavaScript)", () => {
    const builtins = new Set(builtinModules);
    const imported = new Set<string>();
    for (const file of paths.filter((p) => p.endsWith(".js"))) {
      for (const specifier of moduleSpecifiers(file, readFileSync(join(repository, file), "utf8"))) {
        if (specifier.startsWith(".") || specifier.startsWith("node:") || builtins.has(specifier)) continue;
        imported.add(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!);
      }
    }
    expect([...imported].sort()).toEqual(["handlebars", "prettier", "typescript"]);
    for (const name of imported) expect(packageJson.dependencies, name).toHaveProperty(name);
  });
});

describe("npm pack: the packed package.json", () => {
  it("declares no install script (nor any script) and no allowScripts", () => {
    expect(REPOSITORY_ONLY_FIELDS).toEqual(["scripts", "allowScripts"]);
    expect(packed).not.toHaveProperty("scripts");
    expect(packed).not.toHaveProperty("allowScripts");
    // What the repository itself declares, so the check above is about something.
    expect(packageJson).toHaveProperty(["scripts", "prepare"]);
  });

  it("is the repository's package.json without those fields: bin, main, types, exports, files and the rest intact", () => {
    const { scripts: _scripts, allowScripts: _allow, ...rest } = JSON.parse(repositoryBytes.toString("utf8")) as Record<string, unknown>;
    expect(packed).toEqual(rest);
    for (const field of ["bin", "main", "types", "exports", "files", "dependencies", "engines", "type"]) expect(packed[field], field).toEqual(rest[field]);
  });

  it("is written as the repository's is written: same indentation, line ends and final newline", () => {
    const manifest = { name: "x", scripts: { prepare: "build" }, bin: { x: "x.js" }, allowScripts: { y: true } };
    expect(publishedManifest(`${JSON.stringify(manifest, null, 2)}\n`)).toBe(`${JSON.stringify({ name: "x", bin: { x: "x.js" } }, null, 2)}\n`);
    expect(publishedManifest(JSON.stringify(manifest, null, "\t").replace(/\n/g, "\r\n"))).toBe('{\r\n\t"name": "x",\r\n\t"bin": {\r\n\t\t"x": "x.js"\r\n\t}\r\n}');
  });

  it("two packs at once both ship the published manifest (the second waits for the first to restore package.json)", async () => {
    const destinations = [tempDir(), tempDir()];
    const packs = destinations.map(
      (destination) =>
        new Promise<number | null>((done) => {
          const child = spawn("npm", ["pack", "--pack-destination", destination], { cwd: repository, env: npmEnvironment(), stdio: "ignore", shell: process.platform === "win32" });
          child.on("close", done);
        }),
    );
    expect(await Promise.all(packs)).toEqual([0, 0]);
    for (const destination of destinations) {
      const manifest = JSON.parse(fileInTarball(join(destination, pack.filename), "package/package.json") ?? "null") as Record<string, unknown>;
      expect(manifest).toEqual(packed);
    }
    expect(await repositoryManifestBack()).toBe(true);
  }, 180_000);

  it("packing leaves the repository's package.json byte for byte as it was, and no save file", async () => {
    expect(await repositoryManifestBack(0)).toBe(true);
  });

  it("a --pack-destination that is no folder is refused before package.json is touched", () => {
    const result = runNpm("npm", ["pack", "--pack-destination", join(tempDir(), "missing")], repository);
    expect(result.status, transcript(result)).not.toBe(0);
    expect(result.stderr).toContain("package.json is unchanged");
    expect(readFileSync(PACKAGE_JSON).equals(repositoryBytes)).toBe(true);
    expect(existsSync(SAVE_FILE)).toBe(false);
  }, 180_000);

  it("a pack that fails after prepack (the tarball's name taken by a folder) leaves package.json as it was", async () => {
    const destination = tempDir();
    mkdirSync(join(destination, pack.filename));
    const result = runNpm("npm", ["pack", "--pack-destination", destination], repository);
    expect(result.status, transcript(result)).not.toBe(0);
    expect(result.stderr).toContain("EISDIR");
    expect(await repositoryManifestBack()).toBe(true);
  }, 180_000);

  it("npm publish sends the registry the published manifest and leaves package.json as it was (a local stand-in registry)", async () => {
    const received: Record<string, unknown>[] = [];
    const registry = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        if (request.method === "PUT") {
          received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
          response.writeHead(201, { "content-type": "application/json" }).end("{}");
        } else {
          response.writeHead(404, { "content-type": "application/json" }).end('{"error":"not_found"}');
        }
      });
    });
    await new Promise<void>((listening) => registry.listen(0, "127.0.0.1", listening));
    try {
      const url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/`;
      const auth = `--${url.replace(/^http:/, "")}:_authToken=test-token`;
      // Spawned asynchronously: the stand-in registry answers from this process.
      const result = await new Promise<{ status: number | null; output: string }>((done) => {
        const child = spawn("npm", ["publish", "--registry", url, auth], { cwd: repository, env: npmEnvironment(), shell: process.platform === "win32" });
        let output = "";
        child.stdout.on("data", (c: Buffer) => (output += c.toString()));
        child.stderr.on("data", (c: Buffer) => (output += c.toString()));
        child.on("close", (status) => done({ status, output }));
      });
      expect(result.status, result.output).toBe(0);
      expect(received).toHaveLength(1);
      const versions = received[0]!.versions as Record<string, Record<string, unknown>>;
      const sent = versions[packageJson.version]!;
      expect(sent).toBeDefined();
      expect(sent).not.toHaveProperty("scripts");
      expect(sent).not.toHaveProperty("allowScripts");
      expect(sent.bin).toEqual(packageJson.bin);
    } finally {
      registry.close();
    }
    expect(await repositoryManifestBack()).toBe(true);
  }, 180_000);
});
