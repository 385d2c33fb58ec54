import { defineConfig } from "vitest/config";
import { MAX_WORKERS, POLL } from "./vitest.config.js";

/**
 * The e2e suite on PostgreSQL (`pnpm test:e2e:postgres`): the same files as the e2e project,
 * each server started with --database-url on a fresh database of one cluster (see
 * test/e2e/global-setup-postgres.ts), except the files about SQLite itself, those already on
 * PostgreSQL, and those about a layer above the store that no call of theirs reaches the
 * engine differently through, listed here with the reason.
 */
const SQLITE_ONLY = [
  // SQLite's own file: waiting for another process's lock, fsync and kill -9 of the file,
  // the SQLITE_BUSY retry.
  "test/e2e/lock-wait.test.ts",
  "test/e2e/durability.test.ts",
  // hms-mcp backup and restore of SQLite store files (on PostgreSQL: backup-postgres.test.ts).
  "test/e2e/backup.test.ts",
  // Upgrades of SQLite store files made by older versions.
  "test/e2e/upgrade.test.ts",
  // Store files written by one SQLite driver (better-sqlite3, node:sqlite) opened by the other.
  "test/e2e/sqlite-driver.test.ts",
  // A full disk under a SQLite store, counted in the metrics.
  "test/e2e/metrics-disk-full.test.ts",
  // Hybrid recall on SQLite: these read and write store files' vectors and model directly
  // (hybrid recall on PostgreSQL has its own file, hybrid-postgres.test.ts).
  "test/e2e/hybrid.test.ts",
  "test/e2e/hybrid-wait.test.ts",
  // Fusion among distractors on SQLite's hybrid build; it needs the model that the e2e
  // project's global setup provides (hybrid recall on PostgreSQL: hybrid-postgres.test.ts).
  "test/e2e/hybrid-distractors.test.ts",
];
const ALREADY_ON_POSTGRES = [
  // Start their own clusters (they stop and start them) and run on both engines already.
  "test/e2e/postgres.test.ts",
  "test/e2e/copy.test.ts",
  "test/e2e/backup-postgres.test.ts",
  "test/e2e/rolling-upgrade.test.ts",
  "test/e2e/hybrid-postgres.test.ts",
  // The pg-replicas suites start their own clusters and replicas.
  "test/e2e/postgres-replicas*.test.ts",
  // Starts its own cluster (and restarts it) for its replicas.
  "test/e2e/notify-postgres.test.ts",
  // Seeds a cluster of its own with the benchmarks' bulk loader.
  "test/e2e/bench-bulk-load.test.ts",
  // The docs' commands: their PostgreSQL lines run on a cluster of its own, the rest on SQLite.
  "test/e2e/docs-commands.test.ts",
];
/**
 * What these test sits above the store, and their calls reach it as any other call does (the
 * files kept reach every tool, history, namespaces, tokens and notifications on PostgreSQL):
 */
const ABOVE_THE_STORE = [
  // The web inspector's page in chromium: it calls the same tools over HTTP as any client
  // (inspector-details.test.ts also checks that the page names a SQLite store's directory).
  "test/e2e/inspector.test.ts",
  "test/e2e/inspector-first-run.test.ts",
  "test/e2e/inspector-details.test.ts",
  "test/e2e/inspector-preview.test.ts",
  "test/e2e/http-browser.test.ts",
  // node:http and the HTTP layer: deadlines, slow and partial bodies, connections per peer,
  // session and in-flight bounds, the protocol's headers, Origin, Host and tokens at the door.
  "test/e2e/slow-clients.test.ts",
  "test/e2e/http-bounds.test.ts",
  "test/e2e/http-protocol.test.ts",
  "test/e2e/http.test.ts",
  // stdio's framing, its size bound, the end of its input, a quiet start.
  "test/e2e/stdio-oversize.test.ts",
  "test/e2e/stdio-end.test.ts",
  "test/e2e/quiet-start.test.ts",
  // The command line's flags, --help and the one-line start errors (PostgreSQL's own start
  // errors are postgres.test.ts's).
  "test/e2e/cli.test.ts",
  "test/e2e/start-errors.test.ts",
];
const NOT_A_STORE = [
  // The deployment's files (a container image, a unit, a proxy in front): the same on either
  // engine.
  "test/e2e/deploy-nginx.test.ts",
  "test/e2e/deploy-podman.test.ts",
  // The token from a file: configuration read before any store is opened.
  "test/e2e/token-file.test.ts",
  // What the npm package holds: no server on a store, the same on either engine.
  "test/e2e/package-contents.test.ts",
  // The benchmarks' argument checks: they refuse before opening any store.
  "test/e2e/bench-arguments.test.ts",
];

export default defineConfig({
  test: {
    // As the e2e project, only a hung test is stopped and nothing is timed; longer, because a
    // write on PostgreSQL is a network round trip and a commit, and 16 clients contending for
    // one key (concurrency.test.ts) take about 50 s on a loaded 2-core machine.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    expect: { poll: POLL },
    // Two files at a time even on 2 cores, as in vitest.config.ts: a file mostly waits on
    // PostgreSQL's round trips and its servers.
    maxWorkers: MAX_WORKERS,
    include: ["test/e2e/**/*.test.ts"],
    exclude: [...SQLITE_ONLY, ...ALREADY_ON_POSTGRES, ...NOT_A_STORE, ...ABOVE_THE_STORE],
    globalSetup: ["./test/e2e/global-setup-postgres.ts"],
  },
});
