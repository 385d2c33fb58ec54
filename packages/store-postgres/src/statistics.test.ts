/**
 * BM25's statistics (hms_namespaces.docs and doc_tokens, hms_terms.df) stay exact: across the
 * upgrade to migration 3, under concurrent writers on separate engines, and an update touches
 * only the document frequencies of the lexemes it gains or loses. A lexeme no memory holds has
 * no row (migration 7), so hms_terms holds exactly what is counted from the memories.
 */
import { isStoreError } from "@hms/store";
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

async function query<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A database at schema `version`: the migrations up to it, applied as `migrate` applies them. */
async function databaseAt(version: number): Promise<string> {
  const url = server.createDatabase("stats");
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

/** The kept statistics and the same ones counted from the memories, per namespace. */
async function statistics(url: string) {
  const kept = await query<{ ns: string; lexeme: string; df: string }>(
    url,
    "SELECT ns, lexeme, df FROM hms_terms ORDER BY ns, lexeme",
  );
  const counted = await query<{ ns: string; lexeme: string; df: string }>(
    url,
    `SELECT ns, lexeme, count(*) AS df
     FROM hms_memories, unnest(tsvector_to_array(tsv)) AS lexeme
     GROUP BY ns, lexeme ORDER BY ns, lexeme COLLATE "C"`,
  );
  const totals = await query<{ kept: string; counted: string }>(
    url,
    `SELECT n.id, n.docs || '/' || n.doc_tokens AS kept,
       (SELECT count(*) || '/' || coalesce(sum(doc_len), 0) FROM hms_memories m WHERE m.ns = n.id)
         AS counted
     FROM hms_namespaces n ORDER BY n.id`,
  );
  return { kept, counted, totals };
}

function expectExact(stats: Awaited<ReturnType<typeof statistics>>) {
  expect(stats.kept.length).toBeGreaterThan(0);
  expect(stats.kept).toEqual(stats.counted);
  for (const { kept, counted } of stats.totals) expect(kept).toBe(counted);
}

const WORDS = "acme email phone invoice contract renewal budget meeting travel office".split(" ");

/** A text of `n` words picked by `seed`, so that edits gain and lose some words. */
function textOf(seed: number, n = 6): string {
  return Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 3) % WORDS.length]).join(" ");
}

describe("BM25 statistics", () => {
  it("an edit of one word changes the rows of the word lost (gone: no memory holds it) and the word gained, no other", async () => {
    const url = await databaseAt(SCHEMA_VERSION);
    const engine = await PgEngine.open({ url });
    try {
      const store = await engine.get("default");
      await store.remember({ key: "/memories/a.md", text: "acme prefers email over phone" });
      await store.remember({ key: "/memories/b.md", text: "acme pays by invoice" });
      const before = await query<{ lexeme: string; xmin: string; df: string }>(
        url,
        "SELECT lexeme, xmin::text AS xmin, df FROM hms_terms ORDER BY lexeme",
      );
      await store.remember({ key: "/memories/a.md", text: "acme prefers email over letters" });
      const after = await query<{ lexeme: string; xmin: string; df: string }>(
        url,
        "SELECT lexeme, xmin::text AS xmin, df FROM hms_terms ORDER BY lexeme",
      );
      const changed = after
        .filter((row) => before.find((old) => old.lexeme === row.lexeme)?.xmin !== row.xmin)
        .map(({ lexeme, df }) => [lexeme, Number(df)]);
      expect(changed).toEqual([["letter", 1]]);
      expect(before.map((row) => row.lexeme)).toContain("phone");
      expect(after.map((row) => row.lexeme)).not.toContain("phone");
      expect(after).toHaveLength(before.length);
      expectExact(await statistics(url));
    } finally {
      await engine.close();
    }
  });

  it("stay exact across the upgrade from schema 2, for writes before and after it", async () => {
    const url = await databaseAt(2);
    // An engine of this code on the schema-2 database (migrate: false) writes through the old
    // trigger, as the previous release did.
    const old = await PgEngine.open({ url, migrate: false });
    try {
      const store = await old.get("default");
      for (let i = 0; i < 30; i++) await store.remember({ key: `/notes/${i}.md`, text: textOf(i) });
      for (let i = 0; i < 10; i++)
        await store.remember({ key: `/notes/${i}.md`, text: textOf(i + 3) });
      await store.forget("/notes/29.md");
    } finally {
      await old.close();
    }
    expectExact(await statistics(url));
    expect(await migrate(url)).toEqual({ fromVersion: 2, toVersion: SCHEMA_VERSION });
    const engine = await PgEngine.open({ url });
    try {
      const store = await engine.get("default");
      const other = await engine.get("other");
      for (let i = 0; i < 30; i++) {
        await store.remember({ key: `/notes/${i}.md`, text: textOf(i * 5, 4 + (i % 5)) });
        await other.remember({ key: `/notes/${i}.md`, text: textOf(i * 2) });
      }
      // Same text again (no lexeme gained or lost), a move (the text is kept), deletes.
      await store.remember({ key: "/notes/3.md", text: textOf(15, 7) });
      await store.remember({ key: "/notes/3.md", text: textOf(15, 7) });
      await store.move("/notes/4.md", "/notes/40.md");
      await store.forget("/notes/5.md");
      await store.forgetPrefix("/notes/6");
    } finally {
      await engine.close();
    }
    expectExact(await statistics(url));
  });

  it("stay exact with 4 engines editing one namespace at once", async () => {
    const url = await databaseAt(SCHEMA_VERSION);
    const engines = await Promise.all([1, 2, 3, 4].map(() => PgEngine.open({ url, poolSize: 4 })));
    try {
      const writer = async (w: number) => {
        const store = await (engines[w % 4] as PgEngine).get("default");
        for (let i = 0; i < 15; i++) {
          const key = `/notes/${(w * 3 + i) % 20}.md`;
          // Another writer may have deleted the key already.
          if (i % 7 === 6) {
            await store.forget(key).catch((error: unknown) => {
              if (!isStoreError(error) || error.code !== "NOT_FOUND") throw error;
            });
          } else await store.remember({ key, text: textOf(w * 11 + i, 3 + ((w + i) % 6)) });
        }
      };
      await Promise.all(Array.from({ length: 12 }, (_, w) => writer(w)));
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
    }
    expectExact(await statistics(url));
  });
});
