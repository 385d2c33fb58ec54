import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // These tests spawn real server processes and write through fsync; on a loaded 2-core
    // machine a test can take seconds. The limits only stop a hung test; nothing is timed.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a log line at most this long (vitest's 1 s is a deadline a loaded
    // machine misses); it ends as soon as the line is there.
    expect: { poll: { timeout: 30_000, interval: 50 } },
  },
});
