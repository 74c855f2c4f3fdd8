import { defineConfig } from "vitest/config";
import SummaryLineReporter from "./test/support/summary-reporter.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", new SummaryLineReporter()],
  },
});
