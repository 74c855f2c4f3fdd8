import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { BUNDLED_SETS } from "../generator/init/bundled.js";
import { filesBelow, npmPack, type PackResult } from "./support/pack.js";
import { projectRoot } from "./support/paths.js";

/**
 * What `npm publish` would ship, read from `npm pack --dry-run --json`: the built generator, the
 * templates and bundled schemas it reads at run time, README, LICENSE and package.json, and
 * nothing else (no sources, tests, fixtures, generated output or tools).
 */

interface PackageJson {
  bin: Record<string, string>;
  main: string;
  types: string;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
}

const packageJson = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as PackageJson;

let pack: PackResult;
let paths: string[];

beforeAll(() => {
  pack = npmPack();
  paths = pack.files.map((f) => f.path).sort();
}, 180_000);

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
  it("holds exactly LICENSE, README.md, package.json, dist/, schemas/ and templates/ at the top", () => {
    const top = new Set(paths.map((p) => (p.includes("/") ? `${p.slice(0, p.indexOf("/"))}/` : p)));
    expect([...top].sort()).toEqual(["LICENSE", "README.md", "dist/", "package.json", "schemas/", "templates/"]);
  });

  it("ships the built generator: for each generator source its .js and .d.ts, and nothing else under dist/", () => {
    const sources = filesBelow(join(projectRoot, "generator")).filter((f) => f.endsWith(".ts"));
    const expected = sources.flatMap(compiledFrom).sort();
    const dist = paths.filter((p) => p.startsWith("dist/"));
    // A compiled file with no source left is stale output of a renamed or deleted module:
    // `rm -rf dist && npm run build` before packing.
    expect(dist).toEqual(expected);
  });

  it("ships every template and bundled schema, as in the repository", () => {
    expect(paths.filter((p) => p.startsWith("templates/"))).toEqual(filesBelow(join(projectRoot, "templates")).map((f) => `templates/${f}`).sort());
    expect(paths.filter((p) => p.startsWith("schemas/"))).toEqual(filesBelow(join(projectRoot, "schemas")).map((f) => `schemas/${f}`).sort());
    const bundledFiles = Object.values(BUNDLED_SETS).flatMap((set) => [...set.schemas, ...Object.values(set.remotes)]);
    for (const file of bundledFiles) expect(paths, file).toContain(file);
  });

  it("contains no TypeScript sources, tests, fixtures, generated output, examples or tools", () => {
    // templates/runtime.ts is a template: copied into every generated set, never compiled here.
    const typescript = paths.filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts") && p !== "templates/runtime.ts");
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
    const bin = readFileSync(join(projectRoot, packageJson.bin["mcp-tasks-gen"]!), "utf8");
    expect(bin.startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("every package the built generator imports is a dependency (typescript too: it emits JavaScript)", () => {
    const builtins = new Set(builtinModules);
    const imported = new Set<string>();
    for (const file of paths.filter((p) => p.endsWith(".js"))) {
      for (const specifier of moduleSpecifiers(file, readFileSync(join(projectRoot, file), "utf8"))) {
        if (specifier.startsWith(".") || specifier.startsWith("node:") || builtins.has(specifier)) continue;
        imported.add(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!);
      }
    }
    expect([...imported].sort()).toEqual(["handlebars", "prettier", "typescript"]);
    for (const name of imported) expect(packageJson.dependencies, name).toHaveProperty(name);
  });
});
