/**
 * The same calls on SQLite (`MemoryStore`) and PostgreSQL (`PgStore`) give the same answers:
 * literal search exactly, recall's hits with their excerpts and line ranges, the history and
 * its attribution (which on PostgreSQL follows asynchronous calls), last reads, and load.
 */
import { MemoryStore, type StoreApi } from "@hms/store";
import { type PostgresServer, startPostgres } from "@hms/test-support";
import postgres from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PgEngine } from "./engine.js";

let server: PostgresServer;
const engines: PgEngine[] = [];
const FILE = ["memory-file"];

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.remove(), 60_000);
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
});

async function both(): Promise<{ lite: MemoryStore; pg: StoreApi; url: string }> {
  const url = server.createDatabase("parity");
  const engine = await PgEngine.open({ url });
  engines.push(engine);
  return { lite: MemoryStore.open(":memory:"), pg: await engine.get("default"), url };
}

/** Writes the same memories into each store. */
async function seed(stores: StoreApi[], memories: { key: string; text: string }[]) {
  for (const store of stores) {
    for (const memory of memories) await store.remember({ ...memory, tags: FILE });
  }
}

const NOTES = [
  {
    key: "/memories/acme.md",
    text: "# Acme\nContact: Jane Doe\nAcme prefers email, never phone calls.\nRenewal in March.",
  },
  {
    key: "/memories/globex.md",
    text: "# Globex\nGlobex wants weekly phone calls.\nTheir budget doubled this year.\nCEO: Hank Scorpio",
  },
  {
    key: "/memories/notes/travel.md",
    text: "Flights to Lisbon booked.\nHotel near the river.\nÉMAIL the itinerary to Jane.",
  },
  { key: "/memories/notes/empty.md", text: "" },
  {
    key: "/memories/notes/painting.md",
    text: "She painted the fence blue.\nPainting takes two coats.\nThe painter charges daily.",
  },
];

describe("parity with SQLite", () => {
  it("search gives exactly SQLite's hits", async () => {
    const { lite, pg } = await both();
    await seed([lite, pg], NOTES);
    for (const [text, options] of [
      ["jane", {}],
      ["E", { limit: 3 }],
      ["émail", {}],
      ["phone calls", { prefix: "/memories/g" }],
      ["nothing like this", {}],
      [".", { tag: "memory-file" }],
    ] as const) {
      expect(await pg.search(text, options), text).toEqual(lite.search(text, options));
    }
  });

  it("recall finds the same memories, best first, with SQLite's excerpts and line ranges", async () => {
    const { lite, pg } = await both();
    await seed([lite, pg], NOTES);
    for (const [query, options] of [
      ["how does Acme like to be contacted? email", {}],
      ["phone calls", {}],
      ["painting", { k: 2 }],
      ["Jane", { prefix: "/memories/notes/" }],
      ["budget", { tag: "memory-file" }],
      ["the of and", {}],
      ["!!!", {}],
    ] as const) {
      const expected = lite.recall(query, options);
      const actual = await pg.recall(query, options);
      const shape = (hits: typeof expected.hits) =>
        hits.map(({ key, excerpt, line_start, line_end }) => ({
          key,
          excerpt,
          line_start,
          line_end,
        }));
      expect(shape(actual.hits), query).toEqual(shape(expected.hits));
      expect(actual.build).toBe("lexical");
      // The same absolute scores: each hit's BM25 as a share of the query's ceiling.
      expect(actual.hits.map((hit) => hit.score).length, query).toBe(expected.hits.length);
      for (const [i, hit] of actual.hits.entries()) {
        expect(hit.score, `${query} #${i + 1}`).toBeCloseTo(expected.hits[i]?.score ?? -1, 12);
      }
      for (const hit of actual.hits) expect(hit.score).toBeGreaterThan(0);
    }
  });

  it("keeps the same history, and attributes every write an async body awaits", async () => {
    const { lite, pg } = await both();
    for (const store of [lite, pg]) {
      await store.history.attributed({ actor: "bot", command: "create" }, async () => {
        await store.remember({ key: "/memories/a.md", text: "one", tags: FILE });
        // A pause between two writes of one attributed body: the attribution must last.
        await new Promise((resolve) => setTimeout(resolve, 20));
        await store.remember({ key: "/memories/a.md", text: "two" });
      });
      await store.move("/memories/a.md", "/memories/b.md");
      await store.history.attributed({ actor: "ops" }, async () => {
        await store.history.attributed({ command: "delete" }, () => store.forget("/memories/b.md"));
      });
    }
    const entries = async (store: StoreApi, key: string) =>
      (await store.history.ofFile(key)).entries.map(({ op, key, from_key, actor, command }) => ({
        op,
        key,
        from_key,
        actor,
        command,
      }));
    // The same changes; on SQLite only the synchronous part of an attributed body (the first
    // write) is attributed, on PostgreSQL every write the body awaits (engine.ts says so).
    const changes = async (store: StoreApi, key: string) =>
      (await entries(store, key)).map(({ op, key, from_key }) => ({ op, key, from_key }));
    expect(await changes(pg, "/memories/a.md")).toEqual(await changes(lite, "/memories/a.md"));
    expect(await changes(pg, "/memories/b.md")).toEqual(await changes(lite, "/memories/b.md"));
    expect((await entries(pg, "/memories/a.md")).slice(1)).toEqual([
      { op: "update", key: "/memories/a.md", from_key: null, actor: "bot", command: "create" },
      { op: "create", key: "/memories/a.md", from_key: null, actor: "bot", command: "create" },
    ]);
    expect((await entries(pg, "/memories/b.md"))[0]).toMatchObject({
      op: "delete",
      actor: "ops",
      command: "delete",
    });
    const first = (await pg.history.ofFile("/memories/a.md")).entries.at(-1);
    expect((await pg.history.version("/memories/a.md", first?.version as number))?.text).toBe(
      "one",
    );
  });

  it("restores a file and a directory as SQLite does", async () => {
    const { lite, pg } = await both();
    const at: Record<string, string> = {};
    for (const [name, store] of [
      ["lite", lite],
      ["pg", pg],
    ] as const) {
      await store.remember({ key: "/memories/d/x.md", text: "x1", tags: FILE });
      await new Promise((resolve) => setTimeout(resolve, 5));
      at[name] = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.remember({ key: "/memories/d/x.md", text: "x2" });
      await store.remember({ key: "/memories/d/y.md", text: "y", tags: FILE });
    }
    const liteTree = lite.history.restoreTree("/memories/d", at.lite as string, { actor: "me" });
    const pgTree = await pg.history.restoreTree("/memories/d", at.pg as string, { actor: "me" });
    expect({ ...pgTree, restored: pgTree.restored.map((r) => r.key) }).toEqual({
      ...liteTree,
      restored: liteTree.restored.map((r) => r.key),
    });
    expect((await pg.list()).items.map((i) => i.key)).toEqual(lite.list().items.map((i) => i.key));
    expect((await pg.get("/memories/d/x.md"))?.text).toBe("x1");
    const [last] = (await pg.history.ofFile("/memories/d/x.md")).entries;
    expect(last).toMatchObject({ actor: "me", command: "restore" });
    await expect(
      pg.history.restoreFile("/memories/d/x.md", { version: 999 }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await pg.history.prune({ keepVersions: 1 })).toBe(
      lite.history.prune({ keepVersions: 1 }),
    );
  });

  it("notes reads to the day and finds unused files as SQLite does", async () => {
    const { lite, pg, url } = await both();
    await seed([lite, pg], NOTES);
    const client = new postgres.Client({ connectionString: url });
    await client.connect();
    await client.query(
      "UPDATE hms_memories SET updated_at = '2020-01-01T00:00:00.000Z' WHERE key <> '/memories/acme.md'",
    );
    await client.end();
    pg.access.noteRead("/memories/globex.md");
    pg.access.noteRead("/memories/globex.md");
    expect(await pg.access.flush()).toBe(1);
    pg.access.noteRead("/memories/globex.md");
    expect(await pg.access.flush()).toBe(0);
    const unused = await pg.access.unused("2025-01-01T00:00:00Z");
    expect(unused.map((file) => file.key)).toEqual([
      "/memories/notes/empty.md",
      "/memories/notes/painting.md",
      "/memories/notes/travel.md",
    ]);
    expect(unused[0]).toMatchObject({ last_used: "2020-01-01T00:00:00.000Z", bytes: 0 });
    await expect(pg.access.unused("90 days ago")).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
  });

  it("loads SQLite's records keeping versions and times, then writes above them", async () => {
    const { lite, pg } = await both();
    await seed([lite], NOTES);
    lite.remember({ key: "note", text: "n", tags: ["x"], metadata: { by: "me", n: [1] } });
    lite.remember({ key: "note", text: "n2" });
    const records = lite.export().memories;
    expect(await pg.load(records)).toEqual({ loaded: records.length });
    expect((await pg.export()).memories).toEqual(records);
    const largest = Math.max(...records.map((r) => r.version));
    expect((await pg.remember({ key: "other", text: "o" })).version).toBe(largest + 1);
    // A present key: EXISTS, and nothing loaded.
    const note = records.find((r) => r.key === "note") as (typeof records)[number];
    await expect(pg.load([{ ...note, key: "fresh" }, note])).rejects.toMatchObject({
      code: "EXISTS",
      message: `note already exists (at version ${note.version}); load copies into keys that are free`,
    });
    expect(await pg.get("fresh")).toBeUndefined();
    // The history records each loaded memory file as created.
    expect((await pg.history.ofFile("/memories/acme.md")).entries.map((e) => e.op)).toEqual([
      "create",
    ]);
  });

  it("stats count the namespace's memories and bytes", async () => {
    const { lite, pg } = await both();
    await seed([lite, pg], NOTES);
    const stats = await pg.stats();
    expect({ memories: stats.memories, bytes: stats.bytes }).toEqual({
      memories: lite.stats().memories,
      bytes: lite.stats().bytes,
    });
    expect(stats.recall).toEqual({ build: "lexical", model: null, pending: 0 });
  });
});
