/**
 * Recall by time on a database written before migration 8 (the index on updated_at): the
 * upgrade adds the index, which a time range is read through, and the memories written before
 * it are found by time. The behaviour itself is the conformance suite's (conformance.test.ts).
 */
import { type PostgresServer, startPostgres } from "@hms/test-support";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgEngine } from "./engine.js";
import { MIGRATIONS, migrate, SCHEMA_VERSION } from "./schema.js";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.remove(), 60_000);

/** A database at schema `version`, its migrations applied as `migrate` applies them. */
async function databaseAt(version: number): Promise<string> {
  const url = server.createDatabase("time");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      "CREATE TABLE hms_schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    for (const migration of MIGRATIONS.filter((m) => m.version <= version)) {
      await client.query(migration.sql);
      await client.query(
        "INSERT INTO hms_schema_migrations (version, description) VALUES ($1, $2)",
        [migration.version, migration.description],
      );
    }
  } finally {
    await client.end();
  }
  return url;
}

async function plan(url: string, sql: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Only whether the index can serve the range is asked, not whether it is cheapest here.
    await client.query("SET enable_seqscan = off");
    const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`);
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  } finally {
    await client.end();
  }
}

const at = (key: string, time: string) => ({
  key,
  text: "the launch plan",
  tags: [],
  metadata: {},
  version: 1,
  hash: "",
  bytes: 0,
  created_at: time,
  updated_at: time,
});

describe("recall by time on an upgraded database", () => {
  it("indexes updated_at on the upgrade from schema 7, and finds older memories by time", async () => {
    const url = await databaseAt(7);
    const old = await PgEngine.open({ url, migrate: false });
    try {
      await (await old.get("default")).load([
        at("march", "2026-03-01T00:00:00.000Z"),
        at("june", "2026-06-01T00:00:00.000Z"),
      ]);
    } finally {
      await old.close();
    }
    const range = "ns = 1 AND updated_at >= '2026-05-01' AND updated_at < '2026-07-01'";
    expect(await plan(url, `SELECT id FROM hms_memories WHERE ${range}`)).not.toMatch(
      /hms_memories_updated_at/,
    );
    expect(await migrate(url)).toEqual({ fromVersion: 7, toVersion: SCHEMA_VERSION });
    expect(await plan(url, `SELECT id FROM hms_memories WHERE ${range}`)).toMatch(
      /Index (Only )?Scan using hms_memories_updated_at|Bitmap Index Scan on hms_memories_updated_at/,
    );
    const engine = await PgEngine.open({ url });
    try {
      const store = await engine.get("default");
      const found = async (options: { modifiedAfter?: string; modifiedBefore?: string }) =>
        (await store.recall("launch", options)).hits.map((hit) => [hit.key, hit.updated_at]);
      expect(await found({ modifiedAfter: "2026-05-01T00:00:00Z" })).toEqual([
        ["june", "2026-06-01T00:00:00.000Z"],
      ]);
      expect(await found({ modifiedBefore: "2026-05-01T00:00:00+02:00" })).toEqual([
        ["march", "2026-03-01T00:00:00.000Z"],
      ]);
    } finally {
      await engine.close();
    }
  });
});
