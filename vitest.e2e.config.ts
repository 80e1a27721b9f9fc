import { defineConfig } from "vitest/config";

// End-to-end tests: real agent CLIs against scripted model servers (`npm ci --prefix e2e/<agent>` first).
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Each test starts a full agent CLI; on small CI machines run the files one at a time.
    fileParallelism: false,
  },
});
