import { afterAll, beforeAll, expect, it } from "vitest";
import { type PostgresServer, startPostgres } from "./postgres.js";

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.remove());

it("starts a cluster whose databases keep their rows across a restart", () => {
  const url = server.createDatabase("keeps");
  const db = new URL(url).pathname.slice(1);
  server.psql("CREATE TABLE t (n int); INSERT INTO t VALUES (41), (1)", db);
  server.restart();
  expect(server.psql("SELECT sum(n) FROM t", db).trim()).toBe("42");
}, 120_000);

it("refuses queries while stopped and serves them again once started", () => {
  server.stopServer();
  expect(() => server.psql("SELECT 1")).toThrow();
  server.start();
  expect(server.psql("SELECT 1").trim()).toBe("1");
}, 120_000);
