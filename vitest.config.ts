import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // dist/ for the tests that spawn the built CLI: built once here when missing or stale (no install-time build).
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    pool: "forks",
  },
});
