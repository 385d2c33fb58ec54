/**
 * What many replicas on one database need: compare-and-set without lost updates across
 * separate pools, migrations that run once when replicas start together, and a pool that
 * answers UNAVAILABLE while PostgreSQL is down and recovers by itself once it is back.
 */
import { isStoreError } from "@hms/store";
import { type PostgresServer, startPostgres } from "@hms/test-support";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgEngine } from "./engine.js";
import { MIGRATIONS, SCHEMA_VERSION, schemaStatus } from "./schema.js";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.remove(), 60_000);

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe("replicas on one database", () => {
  it("16 writers × 50 compare-and-set edits of one key across 4 engines lose no update", async () => {
    const url = server.createDatabase("cas");
    const engines = await Promise.all([1, 2, 3, 4].map(() => PgEngine.open({ url, poolSize: 4 })));
    try {
      const key = "/memories/counter.md";
      await (await engines[0]?.get("default"))?.remember({ key, text: "0" });
      const writers = 16;
      const edits = 50;
      let conflicts = 0;
      // Each writer reads, adds one and writes back at the version it read, retrying on
      // VERSION_CONFLICT: a lost update would leave the counter short of writers × edits.
      const writer = async (w: number) => {
        const store = await (engines[w % 4] as PgEngine).get("default");
        for (let done = 0; done < edits; ) {
          const current = await store.get(key);
          if (current === undefined) throw new Error("the counter vanished");
          try {
            await store.remember({
              key,
              text: String(Number(current.text) + 1),
              expectedVersion: current.version,
            });
            done++;
          } catch (error) {
            if (!isStoreError(error, "VERSION_CONFLICT")) throw error;
            conflicts++;
          }
        }
      };
      await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
      const final = await (await engines[3]?.read("default"))?.get(key);
      expect(final?.text).toBe(String(writers * edits));
      // Every successful edit took a new version of the clock: 1 create + 800 edits.
      expect(final?.version).toBe(1 + writers * edits);
      // The writers did race (otherwise the test proves nothing about concurrency).
      expect(conflicts).toBeGreaterThan(0);
      // The history holds every version, each once.
      const rows = await query<{ n: number; distinct: number }>(
        url,
        "SELECT count(*)::int AS n, count(DISTINCT version)::int AS distinct FROM hms_memory_history",
      );
      expect(rows[0]).toEqual({ n: 1 + writers * edits, distinct: 1 + writers * edits });
    } finally {
      for (const engine of engines) await engine.close();
    }
  }, 300_000);

  it("replicas opening a fresh database together create the schema once", async () => {
    const url = server.createDatabase("migrate");
    expect(await schemaStatus(url)).toEqual({ current: 0, required: SCHEMA_VERSION });
    const engines = await Promise.all(Array.from({ length: 6 }, () => PgEngine.open({ url })));
    try {
      const applied = await query<{ version: number }>(
        url,
        "SELECT version FROM hms_schema_migrations ORDER BY version",
      );
      expect(applied.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(await engines[0]?.schemaStatus()).toEqual({
        current: SCHEMA_VERSION,
        required: SCHEMA_VERSION,
      });
      // Every replica works on the one schema.
      await Promise.all(
        engines.map(async (engine, i) =>
          (await engine.get("default")).remember({ key: `k${i}`, text: "x" }),
        ),
      );
      expect((await (await engines[5]?.read("default"))?.list())?.items).toHaveLength(6);
    } finally {
      for (const engine of engines) await engine.close();
    }
  }, 120_000);

  it("migrate: false leaves the schema to another process and says it is behind", async () => {
    const url = server.createDatabase("nomigrate");
    const engine = await PgEngine.open({ url, migrate: false });
    try {
      expect(await engine.schemaStatus()).toEqual({ current: 0, required: SCHEMA_VERSION });
      await engine.ping();
    } finally {
      await engine.close();
    }
  });

  it("answers UNAVAILABLE while PostgreSQL is down, and recovers by itself once it is back", async () => {
    const url = server.createDatabase("loss");
    const engine = await PgEngine.open({ url, poolSize: 3 });
    try {
      const store = await engine.get("default");
      await store.remember({ key: "/memories/a.md", text: "before" });
      // Connections are idle in the pool when the server goes away.
      server.stopServer();
      const refused = await store.get("/memories/a.md").then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({
        code: "UNAVAILABLE",
        message: expect.stringContaining("the PostgreSQL database is unreachable"),
      });
      await expect(store.remember({ key: "/memories/b.md", text: "x" })).rejects.toMatchObject({
        code: "UNAVAILABLE",
      });
      await expect(engine.ping()).rejects.toMatchObject({ code: "UNAVAILABLE" });
      server.start();
      // The same engine, no reopen: the pool connects anew.
      expect((await store.get("/memories/a.md"))?.text).toBe("before");
      await store.remember({ key: "/memories/b.md", text: "after" });
      expect((await store.list()).items.map((item) => item.key)).toEqual([
        "/memories/a.md",
        "/memories/b.md",
      ]);
      // A restart while connections are idle (terminated by the server, 57P01) too.
      server.restart();
      expect((await store.get("/memories/b.md"))?.text).toBe("after");
    } finally {
      await engine.close();
    }
  }, 120_000);
});
