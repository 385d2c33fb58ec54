import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Property tests run thousands of cases, and turbo runs every package's tests at once on
    // CI's 2 cores: a test may take several times its quiet-machine time. The limit only stops
    // a hung test; nothing is timed.
    testTimeout: 60_000,
  },
});
