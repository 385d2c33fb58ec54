import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // These tests spawn real server processes and write through fsync; on a loaded 2-core
    // machine a test can take seconds. The limits only stop a hung test; nothing is timed.
    // Above the 240 s the example's own run may take (src/main.test.ts).
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
