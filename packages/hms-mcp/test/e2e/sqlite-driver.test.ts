import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { MemoryStore } from "@hms/store";
import { openSqlite, pragma, type SqliteDatabase } from "@hms/store/internal";
import { ok, openWithBetterSqlite3, startStdio, storeFile, tempDir } from "@hms/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// The store ran on better-sqlite3 (a native addon) before node:sqlite. A store file either one
// wrote must open, be served and keep working with the other: memories, their history and the
// full-text index (recall). The better-sqlite3 side is the store's own code on that driver
// (@hms/test-support's openWithBetterSqlite3), as the build before this one ran it. Its addon
// is built for Node 24, so scripts/test.sh runs this file on Node 24 only.

let data: { dir: string; remove: () => void };
beforeEach(() => {
  data = tempDir();
});
afterEach(() => data.remove());

interface Change {
  key: string;
  op: string;
  version: number;
  from_key: string | null;
  command: string | null;
}

/** What a server says of the store: recall hits, a file's text and its history. */
async function served(dataDir: string) {
  const server = await startStdio({ dataDir });
  try {
    const recall = (query: string) =>
      ok<{ hits: { key: string }[] }>(server.client, "recall", { query, k: 5 });
    return {
      harbour: (await recall("harbour lighthouse")).hits.map((hit) => hit.key),
      ledger: (await recall("ledger")).hits.map((hit) => hit.key),
      text: (await ok<{ text: string }>(server.client, "get", { key: "/memories/harbour.md" }))
        .text,
      history: (
        await ok<{ changes: Change[] }>(server.client, "history", { prefix: "/memories/" })
      ).changes.map(({ key, op, from_key }) => ({ key, op, from_key })),
      // A write through the server, then a recall that must see it (the index takes writes).
      afterWrite: await (async () => {
        await ok(server.client, "remember", {
          key: "/memories/added.md",
          text: "a compass for the harbour",
          tags: ["memory-file"],
        });
        return (await recall("compass")).hits.map((hit) => hit.key);
      })(),
    };
  } finally {
    await server.close();
  }
}

/**
 * The store in `file` on better-sqlite3 (`StoreOptions.openFile` is @internal: the published
 * types leave it out, so it is passed in a variable, not a literal).
 */
function openOnBetterSqlite3(file: string): MemoryStore {
  const options = { namespace: "default", openFile: openWithBetterSqlite3 };
  return MemoryStore.open(file, options);
}

/** SQLite's own checks of the file and of its full-text index, through `db`. */
function checkFile(db: SqliteDatabase): void {
  try {
    expect(pragma(db, "integrity_check")).toBe("ok");
    // FTS5 compares its index with the memories and throws when they disagree.
    db.exec("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')");
  } finally {
    db.close();
  }
}

const HISTORY = [
  { key: "/memories/gone.md", op: "delete", from_key: null },
  { key: "/memories/ledger.md", op: "move", from_key: "/memories/books.md" },
  { key: "/memories/harbour.md", op: "update", from_key: null },
  { key: "/memories/gone.md", op: "create", from_key: null },
  { key: "/memories/books.md", op: "create", from_key: null },
  { key: "/memories/harbour.md", op: "create", from_key: null },
];

describe("a store written with better-sqlite3 (the driver before node:sqlite)", () => {
  it("is served on node:sqlite: its memories, their history and recall", async () => {
    const file = storeFile(data.dir);
    mkdirSync(dirname(file), { recursive: true });
    const store = openOnBetterSqlite3(file);
    try {
      const file = (key: string, text: string) =>
        store.remember({ key, text, tags: ["memory-file"] });
      file("/memories/harbour.md", "the harbour has a lighthouse");
      file("/memories/books.md", "the ledger of the harbour master");
      file("/memories/gone.md", "a note to delete");
      file("/memories/harbour.md", "the harbour has a red lighthouse\nand a pier");
      store.move("/memories/books.md", "/memories/ledger.md");
      store.forget("/memories/gone.md");
    } finally {
      store.close();
    }

    const seen = await served(data.dir);
    expect(seen.text).toBe("the harbour has a red lighthouse\nand a pier");
    expect(seen.harbour[0]).toBe("/memories/harbour.md");
    expect(seen.ledger).toEqual(["/memories/ledger.md"]);
    expect(seen.history).toEqual(HISTORY);
    expect(seen.afterWrite).toEqual(["/memories/added.md"]);
    checkFile(openSqlite(file));
    checkFile(openWithBetterSqlite3(file));
  });
});

describe("a store written on node:sqlite", () => {
  it("opens with better-sqlite3: its memories, their history and recall", async () => {
    const server = await startStdio({ dataDir: data.dir });
    try {
      const file = (key: string, text: string) =>
        ok(server.client, "remember", { key, text, tags: ["memory-file"] });
      await file("/memories/harbour.md", "the harbour has a lighthouse");
      await file("/memories/books.md", "the ledger of the harbour master");
      await file("/memories/gone.md", "a note to delete");
      await file("/memories/harbour.md", "the harbour has a red lighthouse\nand a pier");
      await ok(server.client, "move", { from: "/memories/books.md", to: "/memories/ledger.md" });
      await ok(server.client, "forget", { key: "/memories/gone.md" });
    } finally {
      await server.close();
    }

    const file = storeFile(data.dir);
    checkFile(openWithBetterSqlite3(file));
    const store = openOnBetterSqlite3(file);
    try {
      expect(store.get("/memories/harbour.md")?.text).toBe(
        "the harbour has a red lighthouse\nand a pier",
      );
      expect(store.recall("harbour lighthouse").hits[0]?.key).toBe("/memories/harbour.md");
      expect(store.recall("ledger").hits.map((hit) => hit.key)).toEqual(["/memories/ledger.md"]);
      expect(
        store.history
          .under("/memories/")
          .entries.map(({ key, op, from_key }) => ({ key, op, from_key })),
      ).toEqual(HISTORY);
      // It keeps working there: a write, and recall finding it.
      store.remember({ key: "/memories/added.md", text: "a compass", tags: ["memory-file"] });
      expect(store.recall("compass").hits.map((hit) => hit.key)).toEqual(["/memories/added.md"]);
    } finally {
      store.close();
    }
    checkFile(openSqlite(file));
  });
});
