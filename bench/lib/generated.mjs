// Turns a generated set (TypeScript in generated/<set>/) into importable JavaScript, the way a
// user's build would: types stripped by `ts.transpileModule`, no type-check.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";

const compilerOptions = {
  module: ts.ModuleKind.ES2022,
  target: ts.ScriptTarget.ES2022,
  verbatimModuleSyntax: true,
};

/**
 * Transpiles every `.ts` file of `setDir`, its `runtime/` subfolders included, into `outDir` (made
 * an ESM package) and returns, per path in the set (`validators.ts`, `runtime/protocol/json.ts`),
 * its TypeScript source, its JavaScript output, and that output without comments (what a bundler
 * would keep before minifying).
 */
export function transpileSet(setDir, outDir) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "package.json"), '{ "type": "module" }\n');
  const files = new Map();
  // Nested files too: validators.ts imports its runtime from runtime/protocol/json.ts.
  const names = readdirSync(setDir, { recursive: true, encoding: "utf8" }).map((n) => n.split("\\").join("/"));
  for (const name of names.filter((n) => n.endsWith(".ts") && !n.endsWith(".d.ts")).sort()) {
    const source = readFileSync(join(setDir, name), "utf8");
    mkdirSync(dirname(join(outDir, name)), { recursive: true });
    const { outputText, diagnostics } = ts.transpileModule(source, { compilerOptions, fileName: name, reportDiagnostics: true });
    if (diagnostics?.length) {
      throw new Error(`${setDir}/${name}: ${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("; ")}`);
    }
    writeFileSync(join(outDir, name.replace(/\.ts$/, ".js")), outputText);
    const bare = ts.transpileModule(source, { compilerOptions: { ...compilerOptions, removeComments: true }, fileName: name });
    files.set(name, { ts: source, js: outputText, jsBare: bare.outputText });
  }
  return files;
}
