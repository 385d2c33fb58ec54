/**
 * The history's byte budget on SQLite: the bytes it counts never drift from what the rows
 * take, and a store written before the budget (schema 7: every version's whole text) opens,
 * reads its old versions, and comes down to the budget.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HistoryDropEvent } from "./history-types.js";
import { openSqlite, transaction } from "./sqlite/driver.js";
import { HISTORY_ROW_COST, migrate } from "./sqlite/schema.js";
import { MemoryStore } from "./store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-history-budget-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const FILE = ["memory-file"];

/** What the store counts, and the same counted again from the rows. */
function counted(file: string) {
  const db = openSqlite(file, { readOnly: true });
  try {
    const kept = db
      .prepare("SELECT live_bytes, history_bytes, history_rows FROM history_usage")
      .get();
    const recount = db
      .prepare(
        `SELECT (SELECT coalesce(sum(bytes), 0) FROM memories) AS live_bytes,
           (SELECT coalesce(sum(${HISTORY_ROW_COST.replaceAll("%", "h")}), 0)
            FROM memory_history h) AS history_bytes,
           (SELECT count(*) FROM memory_history) AS history_rows`,
      )
      .get();
    return { kept, recount };
  } finally {
    db.close();
  }
}

describe("the bytes the budget counts", () => {
  it("stay those of the rows through every kind of write, drop and prune", () => {
    const file = join(dir, "store.sqlite");
    const store = MemoryStore.open(file, { historyBytes: 20_000 });
    try {
      for (let i = 0; i < 30; i++) {
        store.remember({ key: `/memories/d/f${i}.md`, text: `file ${i}\n`.repeat(40), tags: FILE });
        store.remember({ key: `plain:${i}`, text: `plain ${i}`.repeat(20) });
      }
      for (let i = 0; i < 30; i++) {
        store.remember({ key: `/memories/d/f${i}.md`, text: `file ${i} edited\n`.repeat(40) });
      }
      store.moveTree("/memories/d", "/memories/e");
      store.remember({ key: "/memories/untagged.md", text: "no tag ".repeat(30) });
      store.remember({ key: "/memories/untagged.md", text: "no tag, edited ".repeat(30) });
      store.move("/memories/untagged.md", "outside:f0");
      store.remember({ key: "outside:f0", text: "changed outside ".repeat(30) });
      store.move("outside:f0", "/memories/back.md");
      store.history.restoreFile("/memories/back.md", {
        version: store.history.ofFile("/memories/back.md").entries.at(-1)?.version ?? 0,
      });
      store.forgetPrefix("plain:");
      store.forget("/memories/e/f1.md");
      store.forgetTree("/memories/e");
      store.history.prune({ keepVersions: 2 });
      store.history.prune({ maxBytes: 5000 });
      const { kept, recount } = counted(file);
      expect(kept).toEqual(recount);
      expect((kept as { history_bytes: number }).history_bytes).toBeLessThanOrEqual(20_000);
    } finally {
      store.close();
    }
  });
});

describe("a store written before the budget", () => {
  /** A schema-7 store whose history holds `count` versions of 10 KB, as that version kept them. */
  function schemaSevenStore(file: string, count: number): string[] {
    const db = openSqlite(file);
    migrate(db, 7);
    const texts: string[] = [];
    const insert = db.prepare(
      `INSERT INTO memory_history (key, op, from_key, version, text, tags, metadata, hash, bytes,
         at, actor, command)
       VALUES ('/memories/old.md', ?, NULL, ?, ?, '["memory-file"]', '{}', 'sha256:x', ?, ?,
         NULL, 'remember')`,
    );
    transaction(db, () => {
      for (let v = 1; v <= count; v++) {
        const text = `version ${v}\n${"old text ".repeat(1100)}`;
        texts.push(text);
        const at = new Date(Date.UTC(2025, 0, 1, 0, 0, v)).toISOString();
        insert.run(v === 1 ? "create" : "update", v, text, text.length, at);
      }
      db.prepare(
        `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at,
           updated_at)
         VALUES ('/memories/old.md', ?, '["memory-file"]', '{}', ?, 'sha256:x', ?,
           '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
      ).run(texts[count - 1] as string, count, (texts[count - 1] as string).length);
      db.prepare("UPDATE version_clock SET value = ?").run(count);
    });
    db.close();
    return texts;
  }

  it("opens, reads its old versions, and comes down to the budget in steps", () => {
    const file = join(dir, "old.sqlite");
    const texts = schemaSevenStore(file, 60);
    const drops: HistoryDropEvent[] = [];
    const store = MemoryStore.open(file, {
      historyBytes: 100_000,
      onHistoryDropped: (event) => drops.push(event),
    });
    try {
      expect(counted(file).kept).toEqual(counted(file).recount);
      expect(store.history.version("/memories/old.md", 1)?.text).toBe(texts[0]);
      expect(store.history.version("/memories/old.md", 60)?.text).toBe(texts[59]);
      // About 600 KB of history over a 100 KB budget: prune (as retention runs it when a
      // store opens) takes it down, oldest first.
      let steps = 0;
      while (store.history.prune({ maxBytes: 100_000, limit: 10 }) > 0) steps++;
      expect(steps).toBeGreaterThan(0);
      const history = counted(file).kept as { history_bytes: number };
      expect(history.history_bytes).toBeLessThanOrEqual(100_000);
      expect(store.history.version("/memories/old.md", 1)).toBeUndefined();
      expect(store.history.version("/memories/old.md", 60)?.text).toBe(texts[59]);
      expect(drops.every((drop) => drop.reason === "bytes")).toBe(true);
      expect(drops.reduce((sum, drop) => sum + drop.changes, 0)).toBe(
        60 - (counted(file).kept as { history_rows: number }).history_rows,
      );
      // New edits of the file are kept as splices from now on.
      store.remember({ key: "/memories/old.md", text: `${texts[59]}\none more line` });
      expect(store.history.version("/memories/old.md", 60)?.text).toBe(texts[59]);
    } finally {
      store.close();
    }
  });

  it("brings a store over the budget down with its next write", () => {
    const file = join(dir, "old.sqlite");
    schemaSevenStore(file, 60);
    const store = MemoryStore.open(file, { historyBytes: 100_000 });
    try {
      store.remember({ key: "/memories/new.md", text: "new", tags: FILE });
      const history = counted(file).kept as { history_bytes: number };
      expect(history.history_bytes).toBeLessThanOrEqual(100_000);
      const [drop] = store.history.ofFile("/memories/old.md").dropped;
      expect(drop).toMatchObject({
        reason: "bytes",
        through: expect.stringMatching(/^2025-01-01/),
      });
    } finally {
      store.close();
    }
  });
});
