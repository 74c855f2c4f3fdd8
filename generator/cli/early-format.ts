/**
 * Whether a run is sure to format, told before the generator is even loaded: a generating run (not
 * `init`, `lint`, `diff`) with a set whose output folder does not exist yet has nothing to reuse.
 * Then the formatting thread starts at once (output/format-helpers.ts) and loads prettier while
 * this thread loads and runs the generator. Read cheaply and forgivingly: a config this cannot read
 * is left to the command, which reports it; a wrong guess costs time, never output.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEFAULT_CONFIG_FILE } from "../config/config-file.js";

export function formattingIsSure(argv: readonly string[]): boolean {
  if (argv[0] === "init" || argv[0] === "lint" || argv[0] === "diff") return false;
  if (argv.includes("--help") || argv.includes("-h") || argv.includes("--version") || argv.includes("-v")) return false;
  const out = flagValue(argv, "--out");
  if (argv.includes("--schema")) return out !== undefined && !existsSync(resolve(out));
  try {
    const path = resolve(flagValue(argv, "--config") ?? DEFAULT_CONFIG_FILE);
    const config = JSON.parse(readFileSync(path, "utf8")) as { outDir?: unknown; sets?: unknown };
    if (!Array.isArray(config.sets)) return false;
    const outDir = resolve(path, "..", typeof config.outDir === "string" ? config.outDir : "generated");
    return config.sets.some((set: unknown) => {
      const name = typeof set === "object" && set !== null ? (set as { name?: unknown; bundled?: unknown }).name ?? (set as { bundled?: unknown }).bundled : undefined;
      return typeof name === "string" && !existsSync(join(outDir, name));
    });
  } catch {
    return false;
  }
}

/** `--flag value` or `--flag=value`. */
function flagValue(argv: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === flag) return argv[i + 1];
    if (argv[i]!.startsWith(`${flag}=`)) return argv[i]!.slice(flag.length + 1);
  }
  return undefined;
}
