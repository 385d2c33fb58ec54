import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["./test/e2e/global-setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    // Two files at a time even on 2 cores (vitest's default there is one), as in hms-mcp's
    // vitest.config.ts: each test runs `hms` and the hms-mcp it starts as processes and waits
    // on them, and every file keeps to its own directories, servers and ports. One at a time,
    // edges.test.ts and then cli.test.ts made this the last suite to end in scripts/test.sh's
    // Node 24 run (384 s, the others by 361 s, at load 8-10).
    maxWorkers: 2,
  },
});
