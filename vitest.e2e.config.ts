import { defineConfig } from "vitest/config";

// End-to-end tests: real agent CLIs against scripted model servers (`npm ci --prefix e2e/<agent>` first).
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Each test starts a full agent CLI, which keeps about one core busy (an OpenCode run: 25 s of
    // CPU in 30 s of wall): two files at a time on CI's two cores. Each fixture has its own HOME,
    // temp tree and port; nothing rebuilds dist while they run (the packed test packs with
    // --ignore-scripts).
    fileParallelism: true,
    maxWorkers: 2,
  },
});
