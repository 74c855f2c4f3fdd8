// Preloaded into a measured child process (`node --import`): when it exits, writes its peak
// resident set size in kB (every thread of the process counts) to the file named by BENCH_RSS_FILE.
import { writeFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const file = process.env.BENCH_RSS_FILE;
if (file && isMainThread) process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
