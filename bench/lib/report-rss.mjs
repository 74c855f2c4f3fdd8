// Preloaded into a measured child process (`node --import`): when it exits, writes its peak
// resident set size in kB and the CPU time it used in ms (every thread of the process counts), as
// JSON, to the file named by BENCH_RSS_FILE.
import { writeFileSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

const file = process.env.BENCH_RSS_FILE;
if (file && isMainThread) {
  process.on("exit", () => {
    const usage = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ rssKb: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }));
  });
}
