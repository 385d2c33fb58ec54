import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // These tests spawn real server processes and write through fsync; on a loaded 2-core
    // machine a test can take seconds. The limits only stop a hung test; nothing is timed.
    // The example's run may take up to its own 240 s limit (src/main.test.ts; the history example took 80 s
    // while every package's tests ran at once), so the test's limit is above that.
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
