/**
 * The store's conformance suite (@hms/store/conformance) on PgEngine: a real PostgreSQL
 * cluster, a new database per test.
 */
import { runStoreConformance } from "@hms/store/conformance";
import { type PostgresServer, startPostgres } from "@hms/test-support";
import { afterAll, beforeAll, describe, it } from "vitest";
import { PgEngine } from "./engine.js";

const MAX_NAMESPACES = 3;
let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.remove(), 60_000);

runStoreConformance(
  {
    name: "postgres",
    open: async (engineOptions) =>
      await PgEngine.open({
        url: server.createDatabase("conf"),
        maxNamespaces: MAX_NAMESPACES,
        historyBytes: engineOptions?.historyBytes,
      }),
    maxNamespaces: MAX_NAMESPACES,
  },
  { describe, it },
);
