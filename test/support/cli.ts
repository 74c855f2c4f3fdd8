import { Writable } from "node:stream";
import { main } from "../../generator/cli/main.js";

/** A writable stream that keeps what is written, as text. */
export function collector(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join("") };
}

/** Runs the CLI in-process, as `mcp-tasks-gen ...argv`, with its output collected. */
export async function runCli(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = collector();
  const err = collector();
  const code = await main(argv, out.stream, err.stream);
  return { code, stdout: out.text(), stderr: err.text() };
}

/** A lint finding on stderr: `file#/pointer: [rule-id] message`. */
const LINT_LINE = /^[^\s]+#[^\s:]*: \[[a-z-]+\] /;

/** stderr without lint findings, which the bundled schemas have by design. */
export function beyondLint(stderr: string): string {
  return stderr
    .split("\n")
    .filter((line) => line !== "" && !LINT_LINE.test(line))
    .join("\n");
}
