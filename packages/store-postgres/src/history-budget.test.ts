/**
 * The history's byte budget on PostgreSQL (migration 6): the bytes each namespace counts never
 * drift from what its rows cost, and a database whose history was written before (schema 5:
 * every version's whole text) upgrades, reads its old versions, and comes down to the budget.
 */
import { spliceOf } from "@hms/store/internal";
import { type PostgresServer, startPostgres } from "@hms/test-support";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgEngine } from "./engine.js";
import { MIGRATIONS } from "./schema.js";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.remove(), 60_000);

const FILE = ["memory-file"];

async function query<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Each namespace's counted bytes and rows, and the same counted again from the rows. */
async function counted(url: string) {
  const kept = await query(
    url,
    "SELECT name, live_bytes, history_bytes, history_rows FROM hms_namespaces ORDER BY name",
  );
  const recount = await query(
    url,
    `SELECT n.name,
       coalesce((SELECT sum(m.bytes) FROM hms_memories m WHERE m.ns = n.id), 0)::bigint
         AS live_bytes,
       coalesce((SELECT sum(hms_history_cost(h)) FROM hms_memory_history h WHERE h.ns = n.id), 0)::bigint
         AS history_bytes,
       (SELECT count(*) FROM hms_memory_history h WHERE h.ns = n.id) AS history_rows
     FROM hms_namespaces n ORDER BY n.name`,
  );
  return { kept, recount };
}

describe("the bytes the budget counts", () => {
  it("stay those of each namespace's rows through every kind of write, drop and prune", async () => {
    const url = server.createDatabase("budget");
    const engine = await PgEngine.open({ url, historyBytes: 20_000 });
    try {
      for (const name of ["a", "b"]) {
        const store = await engine.get(name);
        for (let i = 0; i < 20; i++) {
          await store.remember({
            key: `/memories/d/f${i}.md`,
            text: `file ${i}\n`.repeat(40),
            tags: FILE,
          });
          await store.remember({ key: `plain:${i}`, text: `plain ${i}`.repeat(20) });
        }
        for (let i = 0; i < 20; i++) {
          await store.remember({
            key: `/memories/d/f${i}.md`,
            text: `file ${i} edited\n`.repeat(40),
          });
        }
        await store.moveTree("/memories/d", "/memories/e");
        await store.remember({ key: "/memories/untagged.md", text: "no tag ".repeat(30) });
        await store.move("/memories/untagged.md", "outside:f0");
        await store.remember({ key: "outside:f0", text: "changed outside ".repeat(30) });
        await store.move("outside:f0", "/memories/back.md");
        await store.forgetPrefix("plain:");
        await store.forget("/memories/e/f1.md");
        await store.forgetTree("/memories/e");
        await store.history.prune({ keepVersions: 2 });
        if (name === "a") await store.history.prune({ maxBytes: 5000 });
      }
      const { kept, recount } = await counted(url);
      expect(kept).toEqual(recount);
      for (const row of kept as { history_bytes: number }[]) {
        expect(Number(row.history_bytes)).toBeLessThanOrEqual(20_000);
      }
    } finally {
      await engine.close();
    }
  });
});

describe("a database written before the budget", () => {
  it("upgrades, reads its old versions, and comes down to the budget", async () => {
    const url = server.createDatabase("old");
    // Schema 5, and a history written by its trigger: every version's whole text.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const texts: string[] = [];
    try {
      await client.query(
        "CREATE TABLE hms_schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      for (const migration of MIGRATIONS.filter((m) => m.version <= 5)) {
        await client.query(migration.sql);
        await client.query(
          "INSERT INTO hms_schema_migrations (version, description) VALUES ($1, $2)",
          [migration.version, migration.description],
        );
      }
      await client.query("INSERT INTO hms_namespaces (name, clock) VALUES ('default', 60)");
      for (let v = 1; v <= 60; v++) {
        const text = `version ${v}\n${"old text ".repeat(1100)}`;
        texts.push(text);
        const at = new Date(Date.UTC(2025, 0, 1, 0, 0, v)).toISOString();
        await client.query(
          v === 1
            ? `INSERT INTO hms_memories (ns, key, text, tags, metadata, version, hash, bytes,
                 created_at, updated_at)
               VALUES (1, '/memories/old.md', $1, ARRAY['memory-file'], '{}', $2, 'sha256:x', $3, $4, $4)`
            : `UPDATE hms_memories SET text = $1, version = $2, bytes = $3, updated_at = $4
               WHERE key = '/memories/old.md'`,
          [text, v, text.length, at],
        );
      }
    } finally {
      await client.end();
    }
    const engine = await PgEngine.open({ url, historyBytes: 100_000 });
    try {
      const store = await engine.get("default");
      const before = await counted(url);
      expect(before.kept).toEqual(before.recount);
      expect((await store.history.version("/memories/old.md", 1))?.text).toBe(texts[0]);
      expect((await store.history.version("/memories/old.md", 60))?.text).toBe(texts[59]);
      while ((await store.history.prune({ maxBytes: 100_000, limit: 10 })) > 0);
      const after = await counted(url);
      expect(after.kept).toEqual(after.recount);
      expect(
        Number((after.kept[0] as { history_bytes: number }).history_bytes),
      ).toBeLessThanOrEqual(100_000);
      expect(await store.history.version("/memories/old.md", 1)).toBeUndefined();
      expect((await store.history.version("/memories/old.md", 60))?.text).toBe(texts[59]);
      const [drop] = (await store.history.ofFile("/memories/old.md")).dropped;
      expect(drop).toMatchObject({
        reason: "bytes",
        through: expect.stringMatching(/^2025-01-01/),
      });
      // New edits are kept as splices from now on, and the old version stays readable.
      await store.remember({ key: "/memories/old.md", text: `${texts[59]}\none more line` });
      expect((await store.history.version("/memories/old.md", 60))?.text).toBe(texts[59]);
    } finally {
      await engine.close();
    }
  });
});

describe("splices", () => {
  it("are the ones @hms/store computes, counted in characters, whatever the texts", async () => {
    const url = server.createDatabase("splices");
    const engine = await PgEngine.open({ url });
    await engine.close();
    // Pieces of one to four UTF-8 bytes, so shared bytes can end inside a character.
    const pieces = ["a", "b", "\n", "é", "è", "東", "未", "😀", "😁", " "];
    let state = 9;
    const random = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    const text = (length: number) =>
      Array.from({ length }, () => pieces[Math.floor(random() * pieces.length)] as string);
    const pairs: [string, string][] = [];
    for (let i = 0; i < 300; i++) {
      const older = text(Math.floor(random() * 30));
      // An edit of a few characters somewhere, or another text altogether.
      const newer = i % 4 === 0 ? text(Math.floor(random() * 30)) : [...older];
      if (i % 4 !== 0) newer.splice(Math.floor(random() * (older.length + 1)), 2, ...text(3));
      pairs.push([older.join(""), newer.join("")]);
    }
    const rows = await query<{ head: number; tail: number }>(
      url,
      `SELECT e.head, e.tail FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS p (a, b, n),
         hms_common_ends(p.a, p.b) AS e ORDER BY p.n`,
      [pairs.map((pair) => pair[0]), pairs.map((pair) => pair[1])],
    );
    expect(rows.map((row) => [row.head, row.tail])).toEqual(
      pairs.map(([older, newer]) => {
        const splice = spliceOf(older, newer);
        return [splice.head, splice.tail];
      }),
    );
  });
});
