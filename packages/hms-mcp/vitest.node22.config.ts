import { defineConfig } from "vitest/config";
import { e2eProject, HUNG_AFTER_MS, IN_PROCESS, MAX_WORKERS, POLL } from "./vitest.config.js";

/**
 * What of hms-mcp's suites runs again on Node 22 (`pnpm test:node22`, run by scripts/test.sh
 * with Node 22 first on PATH): the files that rest on a part of Node that differs between its
 * lines, each listed under that part. The other e2e files test hms-mcp's own code above these
 * parts (the fair order, history bounds, export pages, answer sizes, namespaces, PostgreSQL,
 * the inspector's page, hybrid recall's ranking), the same on either line: scripts/test.sh says
 * why each is left to Node 24.
 */
const ON_BOTH_LINES = [
  // stdio and child processes: what every connection sees first and each kind of answer,
  // byte for byte (over HTTP too); a message over the size bound on stdio; a start that prints
  // nothing on stderr (Node 22 prints an ExperimentalWarning when node:sqlite loads, and
  // hms-mcp must not pass it on); the one-line start errors, one of them a Node run without
  // node:sqlite (--no-experimental-sqlite).
  "test/e2e/transports.test.ts",
  "test/e2e/stdio-oversize.test.ts",
  "test/e2e/quiet-start.test.ts",
  "test/e2e/start-errors.test.ts",
  // node:sqlite and the SQLite it is built with, as a process: kill -9 and SIGTERM during
  // writes, another process holding the store's write lock, store files of older versions.
  "test/e2e/durability.test.ts",
  "test/e2e/lock-wait.test.ts",
  "test/e2e/upgrade.test.ts",
  // The HTTP stack (node:http's server, its deadlines and backpressure): tokens, Origin and
  // Host, CORS, the protocol's headers, and clients that send slowly or never finish (the
  // deadlines are node:http's own). The bounds on sessions and requests in flight
  // (http-bounds.test.ts) are hms-mcp's own counting above it, run on Node 24.
  "test/e2e/http.test.ts",
  "test/e2e/http-protocol.test.ts",
  "test/e2e/slow-clients.test.ts",
  // Change notifications between two processes on one SQLite directory, over stdio and
  // HTTP's event stream.
  "test/e2e/notify.test.ts",
  // The tokens file reloaded on change (polled with fs.stat) and on SIGHUP.
  "test/e2e/tenancy.test.ts",
  // The embedding worker thread with the real model, over HTTP.
  "test/e2e/hybrid-wait.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: HUNG_AFTER_MS,
    hookTimeout: HUNG_AFTER_MS,
    expect: { poll: POLL },
    maxWorkers: MAX_WORKERS,
    projects: [IN_PROCESS, e2eProject(ON_BOTH_LINES)],
  },
});
