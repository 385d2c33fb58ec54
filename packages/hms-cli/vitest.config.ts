import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["./test/e2e/global-setup.ts"],
    // Each `hms` run starts a real hms-mcp (node, then a server process), and a test makes a
    // dozen runs: on a loaded 2-core machine that is a minute or more. The limits only stop a
    // hung test; nothing is timed.
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
