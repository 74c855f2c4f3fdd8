// The json-schema-to-typescript side of `npm run bench:generate`, run as a fresh process per
// measurement so its module loading and JIT warm-up count, as ours do.
//
// Usage: node bench/jsts-runner.mjs CONFIG OUT_DIR
// Compiles every set of CONFIG (an mcp-tasks-gen config) to OUT_DIR/<set>/types.ts: the same
// inputs, with the same remote-$ref map, as mcp-tasks-gen reads.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { compile } from "json-schema-to-typescript";

const [configPath, outDir] = process.argv.slice(2);
if (!configPath || !outDir) throw new Error("usage: node bench/jsts-runner.mjs CONFIG OUT_DIR");
const rootDir = dirname(resolve(configPath));
const config = JSON.parse(readFileSync(configPath, "utf8"));

for (const set of config.sets) {
  const remotes = new Map(Object.entries(set.remotes ?? {}).map(([url, file]) => [url, resolve(rootDir, file)]));
  const $refOptions = {
    resolve: {
      // Remote $refs read their configured local file, as in mcp-tasks-gen; with http off, an
      // unmapped URL fails instead of fetching, so the timing never includes the network.
      local: { order: 1, canRead: (file) => remotes.has(file.url), read: (file) => readFileSync(remotes.get(file.url), "utf8") },
      http: false,
    },
  };
  const declarations = [];
  for (const schemaFile of set.schemas) {
    const path = resolve(rootDir, schemaFile);
    const schema = JSON.parse(readFileSync(path, "utf8"));
    // unreachableDefinitions: one declaration per definition, as mcp-tasks-gen emits.
    declarations.push(await compile(schema, set.name, { cwd: dirname(path), $refOptions, unreachableDefinitions: true, bannerComment: "" }));
  }
  mkdirSync(join(outDir, set.name), { recursive: true });
  writeFileSync(join(outDir, set.name, "types.ts"), declarations.join("\n"));
}
