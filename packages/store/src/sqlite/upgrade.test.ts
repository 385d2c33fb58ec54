import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../store.js";
import type { UpgradeEvent } from "../types.js";
import { openSqlite, pragma, transaction } from "./driver.js";
import { MIGRATION_BATCH, migrate, SCHEMA_VERSION } from "./schema.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-upgrade-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A version-4 file holding `count` memories, as a store made before migration 5 left it. */
function versionFourFile(count: number, autoVacuum = true): string {
  const file = join(dir, "v4.sqlite");
  const old = openSqlite(file);
  // Stores made before incremental auto-vacuum had none: the open compacts them once.
  if (autoVacuum) old.exec("PRAGMA auto_vacuum = INCREMENTAL");
  migrate(old, 4);
  const insert = old.prepare(
    `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
     VALUES (?, ?, '[]', '{}', 1, 'sha256:x', 1, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
  );
  transaction(old, () => {
    for (let i = 0; i < count; i++) insert.run(`/memories/m${i}.md`, `note ${i} 电子邮件 word${i}`);
  });
  old.close();
  return file;
}

function openRecording(file: string): { store: MemoryStore; events: UpgradeEvent[] } {
  const events: UpgradeEvent[] = [];
  const store = MemoryStore.open(file, { namespace: "ns1", onUpgrade: (e) => events.push(e) });
  return { store, events };
}

describe("upgrade reports", () => {
  it("reports start, steps, progress with correct totals, and end, in order, for a version-4 file", () => {
    const count = 2 * MIGRATION_BATCH + 500;
    const file = versionFourFile(count, false);
    const { store, events } = openRecording(file);
    try {
      expect(events[0]).toEqual({
        type: "start",
        file,
        namespace: "ns1",
        fromVersion: 4,
        toVersion: SCHEMA_VERSION,
        memories: count,
        work: [
          "compact the file",
          "rebuild the full-text index",
          "measure the history of memory files",
        ],
      });
      expect(events.at(-1)).toMatchObject({
        type: "end",
        file,
        namespace: "ns1",
        fromVersion: 4,
        toVersion: SCHEMA_VERSION,
      });
      const end = events.at(-1) as { ms: number };
      expect(end.ms).toBeGreaterThanOrEqual(0);
      expect(events.filter((e) => e.type === "start" || e.type === "end")).toHaveLength(2);

      const steps = events.filter((e) => e.type === "step").map((e) => e.task);
      expect(steps).toEqual([
        expect.stringMatching(/^compacting the file/),
        "finding Chinese and Japanese text in 2,500 memories",
        "rebuilding the full-text index of 2,500 memories",
        "measuring the history of memory files",
      ]);
      const rebuild = "rebuilding the full-text index of 2,500 memories";
      const progress = events.filter((e) => e.type === "progress" && e.task === rebuild);
      expect(progress.map((e) => (e.type === "progress" ? [e.done, e.total] : []))).toEqual([
        [1000, count],
        [2000, count],
        [2500, count],
      ]);
      // Each task's progress comes after its step and before the next step.
      const rebuildAt = events.findIndex((e) => e.type === "step" && e.task === rebuild);
      expect(events.findIndex((e) => e.type === "progress" && e.task === rebuild)).toBe(
        rebuildAt + 1,
      );
      const finding = events.filter((e) => e.type === "progress" && e.task !== rebuild);
      expect(finding.at(-1)).toMatchObject({ done: count, total: count });

      // The batched rebuild indexed every memory, as the single 'rebuild' did.
      expect(store.recall("电子邮件", { k: 5 }).hits).toHaveLength(5);
      expect(store.recall("word2499").hits.map((hit) => hit.key)).toEqual(["/memories/m2499.md"]);
      expect(store.recall("word0").hits.map((hit) => hit.key)).toEqual(["/memories/m0.md"]);
    } finally {
      store.close();
    }
    const check = openSqlite(file);
    try {
      expect(pragma(check, "auto_vacuum")).toBe(2);
      check.exec("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')");
    } finally {
      check.close();
    }
  });

  it("does not announce a compaction the file does not need", () => {
    const file = versionFourFile(3);
    const { store, events } = openRecording(file);
    store.close();
    expect(events[0]).toMatchObject({
      type: "start",
      work: ["rebuild the full-text index", "measure the history of memory files"],
    });
    expect(events.filter((e) => e.type === "step").map((e) => e.task)).not.toContainEqual(
      expect.stringMatching(/compacting/),
    );
  });

  it("reports nothing for a current store, nor for a new one", () => {
    const file = join(dir, "current.sqlite");
    const created = openRecording(file);
    created.store.remember({ key: "k", text: "x" });
    created.store.close();
    expect(created.events).toEqual([]);
    const reopened = openRecording(file);
    reopened.store.close();
    expect(reopened.events).toEqual([]);
  });

  it("refuses an onUpgrade that is not a function, saying why", () => {
    const file = join(dir, "bad.sqlite");
    const options = { onUpgrade: "log" } as unknown as Parameters<typeof MemoryStore.open>[1];
    expect(() => MemoryStore.open(file, options)).toThrow(/onUpgrade must be a function/);
  });
});
