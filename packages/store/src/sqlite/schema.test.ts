import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LexicalRanker } from "../recall/lexical.js";
import { MemoryStore } from "../store.js";
import { openSqlite, pragma } from "./driver.js";
import { MIGRATIONS, migrate, SCHEMA_VERSION, schemaVersion } from "./schema.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-schema-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("schema migrations", () => {
  it("numbers migrations 1, 2, ... and ends at SCHEMA_VERSION", () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it("upgrades a version-1 file with data to the current schema, indexing old rows", () => {
    const file = join(dir, "old.sqlite");
    const old = openSqlite(file);
    migrate(old, 1);
    expect(schemaVersion(old)).toBe(1);
    old
      .prepare(
        `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
         VALUES ('legacy', 'written before recall existed', '["old"]', '{}', 3, 'sha256:x', 29,
                 '2025-01-01T00:00:00.000Z', '2025-01-02T00:00:00.000Z')`,
      )
      .run();
    old.prepare("INSERT INTO memory_tags (tag, memory_id) VALUES ('old', 1)").run();
    old.close();

    const store = MemoryStore.open(file);
    try {
      expect(store.stats().schema_version).toBe(SCHEMA_VERSION);
      expect(store.get("legacy")).toMatchObject({ version: 3, tags: ["old"] });
      expect(store.recall("recall", { tag: "old" }).hits.map((hit) => hit.key)).toEqual(["legacy"]);
      store.remember({ key: "legacy", text: "rewritten" });
      expect(store.recall("recall").hits).toEqual([]);
      expect(store.recall("rewritten").hits.map((hit) => hit.key)).toEqual(["legacy"]);
    } finally {
      store.close();
    }
  });

  it("upgrades a version-2 file to hold vectors, and queues its memories once a model comes", () => {
    const file = join(dir, "v2.sqlite");
    const old = openSqlite(file);
    migrate(old, 2);
    old
      .prepare(
        `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
         VALUES (?, ?, '[]', '{}', 1, 'sha256:x', 5, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
      )
      .run("/memories/a.md", "alpha");
    old.close();

    const lexical = MemoryStore.open(file);
    expect(lexical.stats()).toMatchObject({
      schema_version: SCHEMA_VERSION,
      recall: { build: "lexical", model: null, pending: 0 },
    });
    lexical.close();

    const model = { id: "test-model", dimensions: 2 };
    const store = MemoryStore.open(file, { embeddings: { model } });
    try {
      expect(store.stats().recall).toEqual({ build: "hybrid", model: "test-model", pending: 1 });
      const [pending] = store.embeddings?.pending(1) ?? [];
      expect(pending).toMatchObject({ text: "alpha" });
      if (pending === undefined) throw new Error("nothing pending");
      const vectors = Float32Array.from([1, 0]);
      store.embeddings?.save([{ ...pending, spans: [{ lineStart: 1, lineEnd: 1 }], vectors }]);
      expect(store.recall("unrelated words", { vector: vectors }).hits[0]?.key).toBe(
        "/memories/a.md",
      );
    } finally {
      store.close();
    }
  });

  it("upgrades a version-3 file to a version clock that starts above every stored version", () => {
    const file = join(dir, "v3.sqlite");
    const old = openSqlite(file);
    migrate(old, 3);
    const insert = old.prepare(
      `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
       VALUES (?, ?, '[]', '{}', ?, 'sha256:x', 1, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
    );
    insert.run("/memories/often-edited.md", "a", 7);
    insert.run("/memories/new.md", "b", 1);
    old.close();

    const store = MemoryStore.open(file);
    try {
      expect(store.stats().schema_version).toBe(SCHEMA_VERSION);
      // Stored versions are kept as they were.
      expect(store.get("/memories/often-edited.md")?.version).toBe(7);
      expect(store.get("/memories/new.md")?.version).toBe(1);
      // A deleted and re-created key continues above every version in the store, so a
      // writer holding version 1 of the deleted file cannot overwrite the new one.
      store.forget("/memories/new.md");
      const again = store.remember({ key: "/memories/new.md", text: "c" });
      expect(again.version).toBeGreaterThan(7);
      expect(() =>
        store.remember({ key: "/memories/new.md", text: "stale", expectedVersion: 1 }),
      ).toThrow(/is at version \d+, not the expected version 1/);
      expect(store.remember({ key: "/memories/often-edited.md", text: "d" }).version).toBe(
        again.version + 1,
      );
    } finally {
      store.close();
    }
  });

  it("upgrades an empty version-3 file, whose first write is version 1", () => {
    const file = join(dir, "empty-v3.sqlite");
    const old = openSqlite(file);
    migrate(old, 3);
    old.close();
    const store = MemoryStore.open(file);
    try {
      expect(store.remember({ key: "k", text: "x" }).version).toBe(1);
    } finally {
      store.close();
    }
  });

  it("upgrades a version-4 file so its Chinese and Japanese memories are found by a word", () => {
    const file = join(dir, "v4.sqlite");
    const old = openSqlite(file);
    migrate(old, 4);
    const insert = old.prepare(
      `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
       VALUES (?, ?, '[]', '{}', 1, 'sha256:x', 1, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
    );
    insert.run("zh", "标题\n客户喜欢通过电子邮件跟进");
    insert.run("ja", "アクメ社はメールでのフォローアップを好む");
    insert.run("en", "Acme prefers email follow-ups");
    // Before: a CJK sentence is one token, found only by the whole sentence.
    const match = old.prepare("SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?");
    expect(match.all('"电子邮件"')).toEqual([]);
    old.close();

    const store = MemoryStore.open(file);
    try {
      const keys = (query: string) => store.recall(query).hits.map((hit) => hit.key);
      expect(keys("电子邮件")).toEqual(["zh"]);
      expect(keys("メール")).toEqual(["ja"]);
      expect(keys("email")).toEqual(["en"]);
      expect(store.recall("电子邮件").hits[0]).toMatchObject({ line_start: 1, line_end: 2 });
      // Only text with a CJK run keeps a second, indexed form.
      const db = openSqlite(file, { readOnly: true });
      try {
        const forms = db.prepare("SELECT key, index_text IS NOT NULL AS spelled FROM memories");
        expect(forms.all()).toEqual([
          { key: "zh", spelled: 1 },
          { key: "ja", spelled: 1 },
          { key: "en", spelled: 0 },
        ]);
      } finally {
        db.close();
      }
      // Writes keep the index in step: the old words go, the new ones come.
      store.remember({ key: "zh", text: "每周五开会" });
      expect(keys("电子邮件")).toEqual([]);
      expect(keys("开会")).toEqual(["zh"]);
    } finally {
      store.close();
    }
  });

  it("upgrades a version-8 file (main's before recall by time) with an index on updated_at that recall by time reads", () => {
    const file = join(dir, "v8.sqlite");
    const old = openSqlite(file);
    migrate(old, 8);
    expect(schemaVersion(old)).toBe(8);
    const insert = old.prepare(
      `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
       VALUES (?, 'the launch plan', '[]', '{}', 1, 'sha256:x', 15, ?, ?)`,
    );
    insert.run("march", "2026-03-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z");
    insert.run("june", "2026-06-01T00:00:00.000Z", "2026-06-01T00:00:00.000Z");
    old.close();

    const store = MemoryStore.open(file);
    try {
      expect(store.stats().schema_version).toBe(SCHEMA_VERSION);
      const keys = (options: { modifiedAfter?: string; modifiedBefore?: string }) =>
        store.recall("launch", options).hits.map((hit) => [hit.key, hit.updated_at]);
      expect(keys({ modifiedAfter: "2026-05-01T00:00:00Z" })).toEqual([
        ["june", "2026-06-01T00:00:00.000Z"],
      ]);
      expect(keys({ modifiedBefore: "2026-05-01T00:00:00Z" })).toEqual([
        ["march", "2026-03-01T00:00:00.000Z"],
      ]);
    } finally {
      store.close();
    }
    const db = openSqlite(file, { readOnly: true });
    try {
      const plan = db
        .prepare(
          "EXPLAIN QUERY PLAN SELECT id FROM memories WHERE updated_at >= ? AND updated_at < ?",
        )
        .all("a", "b") as { detail: string }[];
      expect(plan.map((step) => step.detail).join("\n")).toMatch(
        /USING COVERING INDEX memories_by_updated_at \(updated_at>\? AND updated_at<\?\)/,
      );
    } finally {
      db.close();
    }
  });

  it("upgrades a version-9 file with the index on (id, updated_at) that recall by time checks candidates in", () => {
    const file = join(dir, "v9.sqlite");
    const old = openSqlite(file);
    migrate(old, 9);
    const insert = old.prepare(
      `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
       VALUES (?, ?, '[]', '{}', 1, 'sha256:x', 15, ?, ?)`,
    );
    // More "launch" memories than a candidate step of the budget below holds, so that recall
    // runs one, and checks the range in it.
    for (let i = 0; i < 60; i++) {
      const at = new Date(Date.UTC(2026, 0, 1 + i)).toISOString();
      insert.run(`m${i}`, i % 20 === 0 ? "launch window" : "launch plan", at, at);
    }
    old.close();
    const store = MemoryStore.open(file, { ranker: (db) => new LexicalRanker(db, 10) });
    try {
      expect(store.stats().schema_version).toBe(SCHEMA_VERSION);
      const hits = store.recall("launch window", { k: 2, modifiedAfter: "2026-01-15T00:00:00Z" });
      expect(hits.hits.map((hit) => hit.key)).toEqual(["m20", "m40"]);
    } finally {
      store.close();
    }
    const db = openSqlite(file, { readOnly: true });
    try {
      const indexes = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'memories'")
        .all() as { name: string }[];
      expect(indexes.map((index) => index.name)).toContain("memories_by_id_updated_at");
    } finally {
      db.close();
    }
  });

  it("refuses a file from a newer schema instead of guessing", () => {
    const file = join(dir, "new.sqlite");
    const db = openSqlite(file);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => MemoryStore.open(file)).toThrow(/newer than/);
  });

  it("leaves the file in WAL mode", () => {
    const file = join(dir, "mode.sqlite");
    MemoryStore.open(file).close();
    const db = openSqlite(file);
    expect(pragma(db, "journal_mode")).toBe("wal");
    db.close();
  });
});
