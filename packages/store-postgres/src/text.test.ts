/**
 * The full-text index reads words as SQLite's does (text.ts, migration 9): on texts full of
 * punctuation (hyphenated names, decimals, URLs, paths, addresses) and of words whose stems
 * differ between Porter's stemmer (FTS5's) and Snowball's English one, PostgreSQL ranks and
 * scores as SQLite does, and a database written before migration 9 does too once upgraded.
 */
import { MemoryStore, type StoreApi } from "@hms/store";
import { type PostgresServer, startPostgres } from "@hms/test-support";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgEngine } from "./engine.js";
import { MIGRATIONS, migrate, SCHEMA_VERSION } from "./schema.js";
import { storedText, wordsOf } from "./text.js";

let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.remove(), 60_000);

const NOTES = [
  {
    key: "assay",
    text: "IL-6 and TNF-α rose 1.5-fold (p<0.05), e.g. in mice.\nSee IL-6/IL-10 ratios.",
  },
  {
    key: "docs",
    text: "Setup: https://example.org/docs/setup_guide.html\nMail ops@example.org first.",
  },
  { key: "paths", text: "Binaries in /usr/local/bin and C:\\tools\\bin; version 2.10.3-beta." },
  { key: "plain", text: "the assay of interleukin six in mice\nthe setup guide for example tools" },
  { key: "stems", text: "the general plan\ndying under grey skies, generously" },
  { key: "short", text: "Budget review is quarterly: tell us as soon as it's due, by the 5th" },
  { key: "cjk", text: "客户喜欢通过电子邮件跟进。Mail: a.b@c.d" },
];
const QUERIES = [
  "IL-6 levels in mice",
  "setup guide",
  "example.org mail",
  "version 2.10",
  "tools bin",
  "电子邮件",
  "generous",
  "the sky is dying",
  "how should I contact that client?",
  "is it u or a, and by y?",
];

/** Each query's hits on `store`: key, score, line range. */
async function ranking(store: StoreApi) {
  const out: { query: string; hits: [string, number, number, number][] }[] = [];
  for (const query of QUERIES) {
    const { hits } = await store.recall(query, { k: 5 });
    out.push({ query, hits: hits.map((h) => [h.key, h.score, h.line_start, h.line_end]) });
  }
  return out;
}

/** `actual` has SQLite's hits in SQLite's order, with its scores to 12 digits. */
function expectSameRanking(actual: Awaited<ReturnType<typeof ranking>>, expected: typeof actual) {
  for (const [i, { query, hits }] of expected.entries()) {
    const got = actual[i]?.hits ?? [];
    expect(
      got.map(([key, , from, to]) => [key, from, to]),
      query,
    ).toEqual(hits.map(([key, , from, to]) => [key, from, to]));
    for (const [j, [, score]] of hits.entries()) {
      expect(got[j]?.[1], `${query} #${j + 1}`).toBeCloseTo(score, 12);
    }
  }
}

function sqliteRanking(notes = NOTES) {
  const lite = MemoryStore.open(":memory:");
  for (const note of notes) lite.remember(note);
  return ranking(lite);
}

async function databaseAt(version: number): Promise<string> {
  const url = server.createDatabase("words");
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

describe("the words the index reads", () => {
  it("are the text's words, one space between them, lines kept", () => {
    expect(wordsOf("IL-6 rose 1.5-fold,\r\ne.g. ops@example.org")).toBe(
      "IL 6 rose 1 5 fold \ne g ops example org",
    );
    expect(wordsOf("a\u0000b")).toBe("a b");
    // Words Porter's stemmer would change where FTS5 leaves them (see indexedWord).
    expect(wordsOf("It's as it is, by us.")).toBe("It s0 as0 it is0 by0 us0 ");
    expect(wordsOf("café naïve")).toBe("café naïve");
    expect(storedText("a\u0000b")).toEqual(['"a\\u0000b"', true, "a b"]);
  });

  it("give SQLite's ranking and scores on punctuated text", async () => {
    const engine = await PgEngine.open({ url: server.createDatabase("words") });
    try {
      const store = await engine.get("default");
      for (const note of NOTES) await store.remember(note);
      expectSameRanking(await ranking(store), await sqliteRanking());
    } finally {
      await engine.close();
    }
  });

  it("are recomputed for memories written before migration 9, and reads stay as they were", async () => {
    const url = await databaseAt(8);
    const old = await PgEngine.open({ url, migrate: false });
    const versions = new Map<string, number>();
    try {
      const store = await old.get("default");
      for (const note of NOTES) versions.set(note.key, (await store.remember(note)).version);
    } finally {
      await old.close();
    }
    // What the code before migration 9 stored: no index text for a text without CJK.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("UPDATE hms_memories SET index_text = NULL WHERE key <> 'cjk'");
    } finally {
      await client.end();
    }
    expect(await migrate(url)).toEqual({ fromVersion: 8, toVersion: SCHEMA_VERSION });
    const engine = await PgEngine.open({ url });
    try {
      const store = await engine.get("default");
      expectSameRanking(await ranking(store), await sqliteRanking());
      for (const note of NOTES) {
        const record = await store.get(note.key);
        expect([record?.text, record?.version]).toEqual([note.text, versions.get(note.key)]);
      }
      // The statistics are kept by their trigger again: a later write counts.
      const later = { key: "later", text: "IL-6 in mice, generously dosed" };
      await store.remember(later);
      expectSameRanking(await ranking(store), await sqliteRanking([...NOTES, later]));
    } finally {
      await engine.close();
    }
  });
});
