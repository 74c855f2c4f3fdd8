// `npm run example:ext-tasks-server`: runs the example on Node 20 without a TypeScript loader.
// The example's .ts files and the generated set they use are transpiled (types stripped, no
// type-check; `npm run typecheck` does that) into a temporary folder, keeping their relative
// layout, and main.js is imported from there. The folder is removed on exit (the link to
// node_modules only, not what it points to).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const folders = ["examples/ext-tasks-server", "generated/ext-tasks-draft"];

const work = mkdtempSync(join(tmpdir(), "mcp-tasks-gen-example-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

writeFileSync(join(work, "package.json"), '{ "type": "module" }\n');
// The stores' peers (better-sqlite3, ioredis, pg) resolve from the project's node_modules.
symlinkSync(join(root, "node_modules"), join(work, "node_modules"), "dir");
for (const folder of folders) {
  const from = join(root, folder);
  const to = join(work, relative(root, from));
  mkdirSync(to, { recursive: true });
  // A generated set's static runtime sits in its runtime/ subfolder; the example's own folder is flat.
  for (const name of readdirSync(from, { recursive: true, encoding: "utf8" }).filter((n) => n.endsWith(".ts"))) {
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(join(from, name), "utf8"), {
      fileName: name,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    if (diagnostics?.length) {
      throw new Error(`${folder}/${name}: ${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("; ")}`);
    }
    mkdirSync(dirname(join(to, name)), { recursive: true });
    writeFileSync(join(to, name.replace(/\.ts$/, ".js")), outputText);
  }
}

await import(pathToFileURL(join(work, "examples/ext-tasks-server/main.js")).href);
