// Installs the conformance runner (tools/conformance/node_modules) from its own lockfile, once:
// `npm install`/`npm ci` of the project run this through `prepare`, and so does `npm pack`, which
// must not wipe a runner a test is using. It reinstalls only when the lockfile changed.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const stamp = join(here, "node_modules", ".installed-lock-sha256");
const lock = createHash("sha256").update(readFileSync(join(here, "package-lock.json"))).digest("hex");
if (existsSync(stamp) && readFileSync(stamp, "utf8") === lock) process.exit(0);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
execFileSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: here, stdio: "inherit" });
writeFileSync(stamp, lock);
