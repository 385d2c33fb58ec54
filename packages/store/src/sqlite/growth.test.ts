import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MemoryStore } from "../store.js";
import { openSqlite, pragma } from "./driver.js";
import { migrate } from "./schema.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-growth-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (file: string) => (existsSync(file) ? statSync(file).size : 0);

/** db + wal + shm once the store has been idle long enough for its WAL to be trimmed. */
async function atRest(file: string): Promise<{ db: number; total: number }> {
  await vi.waitFor(() => expect(bytes(`${file}-wal`)).toBe(0), { timeout: 30_000, interval: 100 });
  const db = bytes(file);
  return { db, total: db + bytes(`${file}-wal`) + bytes(`${file}-shm`) };
}

/**
 * Whether some level of the full-text index holds 2 segments or more: FTS5's 'merge' then has
 * work to do (it counts 2 changes or more). Asked in a transaction that is rolled back.
 */
function mergePending(file: string): boolean {
  const db = openSqlite(file);
  try {
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec("INSERT INTO memories_fts (memories_fts, rank) VALUES ('usermerge', 2)");
      const changes = db.prepare("SELECT total_changes() AS n");
      const before = (changes.get() as { n: number }).n;
      db.exec("INSERT INTO memories_fts (memories_fts, rank) VALUES ('merge', 1000)");
      return (changes.get() as { n: number }).n - before >= 2;
    } finally {
      db.exec("ROLLBACK");
    }
  } finally {
    db.close();
  }
}

const text = (i: number) => `memory ${i}: ${"lorem ipsum dolor sit amet ".repeat(40)}`;

describe("growth", () => {
  it("leaves the files within 10% of where they started after 2,000 create/delete cycles", async () => {
    const file = join(dir, "store.sqlite");
    const store = MemoryStore.open(file);
    try {
      for (let i = 0; i < 200; i++) store.remember({ key: `keep/${i}`, text: text(i) });
      const start = await atRest(file);
      for (let i = 0; i < 2000; i++) {
        store.remember({ key: `cycle/${i}`, text: text(i) });
        store.forget(`cycle/${i}`);
      }
      const end = await atRest(file);
      expect(end.total).toBeLessThanOrEqual(start.total * 1.1);
    } finally {
      store.close();
    }
  });

  it("gives the space of deleted memories back to the filesystem", async () => {
    const file = join(dir, "store.sqlite");
    const store = MemoryStore.open(file);
    try {
      const before = await atRest(file);
      for (let i = 0; i < 300; i++) store.remember({ key: `bulk/${i}`, text: text(i) });
      const full = await atRest(file);
      expect(full.db).toBeGreaterThan(before.db + 300 * 1000);
      store.forgetPrefix("bulk/");
      const after = await atRest(file);
      // What stays is the full-text index's record of the deletes, until its segments merge.
      expect(after.db).toBeLessThan(before.db + (full.db - before.db) / 4);
    } finally {
      store.close();
    }
  });

  it("merges the full-text index's small segments once idle", async () => {
    const file = join(dir, "store.sqlite");
    const store = MemoryStore.open(file);
    try {
      // Each write adds a one-page segment; FTS5 merges by itself only every 64 pages written.
      for (let i = 0; i < 40; i++)
        store.remember({ key: `n/${i}`, text: `note ${i} on topic ${i % 7}` });
      expect(mergePending(file)).toBe(true);
      await atRest(file);
      expect(mergePending(file)).toBe(false);
      expect(store.recall("topic 3", { k: 10 }).hits).toHaveLength(10);
    } finally {
      store.close();
    }
  });

  it("cuts the WAL back to its limit once a long reader lets it restart", () => {
    const file = join(dir, "store.sqlite");
    const store = MemoryStore.open(file);
    // Another connection reading all along: checkpoints cannot finish, the WAL grows.
    const reader = openSqlite(file, { readOnly: true });
    try {
      reader.exec("BEGIN");
      reader.prepare("SELECT count(*) FROM memories").get();
      for (let i = 0; i < 500; i++) {
        store.remember({ key: `w/${i}`, text: text(i) });
        store.forget(`w/${i}`);
      }
      const grown = bytes(`${file}-wal`);
      expect(grown).toBeGreaterThan(4 * 1024 * 1024);
      reader.exec("COMMIT");
      // Once the reader lets go, the next commits checkpoint and restart the WAL at its limit.
      for (let i = 0; i < 300; i++) store.remember({ key: `after/${i}`, text: text(i) });
      expect(bytes(`${file}-wal`)).toBeLessThanOrEqual(2 * 1024 * 1024);
    } finally {
      reader.close();
      store.close();
    }
  });

  it("turns on incremental auto-vacuum in a store made before it, keeping its memories", () => {
    const file = join(dir, "old.sqlite");
    const old = openSqlite(file);
    pragma(old, "journal_mode = WAL");
    migrate(old);
    expect(pragma(old, "auto_vacuum")).toBe(0);
    old.close();
    const store = MemoryStore.open(file);
    try {
      store.remember({ key: "kept", text: "written after the conversion" });
    } finally {
      store.close();
    }
    const check = openSqlite(file, { readOnly: true });
    try {
      expect(pragma(check, "auto_vacuum")).toBe(2);
      expect(check.prepare("SELECT text FROM memories WHERE key = 'kept'").get()).toEqual({
        text: "written after the conversion",
      });
    } finally {
      check.close();
    }
  });
});
