/**
 * A store made by an older hms-mcp is upgraded when the server opens it, which on a big store
 * takes a while: the server says so on stderr (info level), with progress and the time taken,
 * rather than sit silent.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { migrate, openSqlite, transaction } from "@hms/store/internal";
import {
  ok,
  startHttpServer,
  startStdio,
  storeFile,
  tempDir,
  testStoreBytes,
} from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";

const MEMORIES = 3000;

/** The default namespace's store as a version-4 hms-mcp left it: no auto-vacuum, old index. */
function writeOldStore(dataDir: string): void {
  const file = storeFile(dataDir);
  mkdirSync(dirname(file), { recursive: true });
  const db = openSqlite(file);
  try {
    migrate(db, 4);
    const insert = db.prepare(
      `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
       VALUES (?, ?, '[]', '{}', 1, 'sha256:x', 1, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
    );
    transaction(db, () => {
      for (let i = 0; i < MEMORIES; i++) insert.run(`/memories/n${i}.md`, `note ${i} term${i}`);
    });
  } finally {
    db.close();
  }
}

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

describe("a server opening a store from an older version", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it("logs the upgrade's start, its progress and its end at info level on stderr", async () => {
    writeOldStore(data.dir);
    const server = await startHttpServer({ dataDir: data.dir, args: ["--log-level", "info"] });
    try {
      const lines = server
        .stderr()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as LogLine)
        .filter((line) => line.msg.startsWith("store upgrade:"));
      // pino's info level is 30.
      expect(lines.every((line) => line.level === 30)).toBe(true);
      const [start] = lines;
      expect(start).toMatchObject({ namespace: "default", fromVersion: 4, memories: MEMORIES });
      expect(start?.msg).toMatch(
        /namespace default is upgraded from schema 4 to \d+ \(3,000 memories\): compact the file, rebuild the full-text index, measure the history of memory files; this can take a while/,
      );
      const msgs = lines.map((line) => line.msg);
      expect(msgs).toContainEqual(expect.stringMatching(/^store upgrade: compacting the file/));
      expect(msgs).toContain("store upgrade: rebuilding the full-text index of 3,000 memories");
      const progress = lines.filter((line) =>
        /^store upgrade: rebuilding the full-text index of 3,000 memories: /.test(line.msg),
      );
      expect(progress.map((line) => line.done)).toEqual([1000, 2000, 3000]);
      expect(progress.at(-1)?.msg).toMatch(/3,000 of 3,000 \(100%\)$/);
      expect(lines.at(-1)?.msg).toMatch(
        /^store upgrade: namespace default is at schema \d+, upgraded in \d+\.\d s$/,
      );
      // The upgrade comes before the server listens, and is logged once.
      const all = server.stderr();
      expect(all.indexOf("store upgrade: namespace default is at schema")).toBeLessThan(
        all.indexOf("listening on"),
      );
      expect(lines.filter((line) => line.fromVersion !== undefined)).toHaveLength(2);
    } finally {
      await server.stop();
    }

    // Opened again, the store is current: nothing to say.
    const again = await startHttpServer({ dataDir: data.dir, args: ["--log-level", "info"] });
    try {
      expect(again.stderr()).not.toContain("store upgrade");
    } finally {
      await again.stop();
    }
  });
});

/**
 * The default namespace's store as the version before the history's budget left it after
 * churn: schema 7, and `count` deleted files of 25 KB, each kept whole twice (created, deleted).
 */
function writeStoreWithHistory(dataDir: string, count: number): void {
  const file = storeFile(dataDir);
  mkdirSync(dirname(file), { recursive: true });
  const db = openSqlite(file);
  try {
    db.exec("PRAGMA auto_vacuum = INCREMENTAL");
    migrate(db, 7);
    const insert = db.prepare(
      `INSERT INTO memory_history (key, op, from_key, version, text, tags, metadata, hash, bytes,
         at, actor, command)
       VALUES (?, ?, NULL, ?, ?, '["memory-file"]', '{}', 'sha256:x', ?, ?, NULL, ?)`,
    );
    transaction(db, () => {
      for (let i = 0; i < count; i++) {
        const text = `file ${i}: ${"words of a deleted file ".repeat(1050)}`;
        const at = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
        insert.run(`/memories/c${i}.md`, "create", 2 * i + 1, text, text.length, at, "remember");
        insert.run(`/memories/c${i}.md`, "delete", 2 * i + 1, text, text.length, at, "forget");
      }
      db.prepare("UPDATE version_clock SET value = ?").run(2 * count);
    });
  } finally {
    db.close();
  }
}

describe("a server opening a store whose history grew without bound", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it("brings it within 16 MiB + 4x its live text, keeping the newest changes", async () => {
    writeStoreWithHistory(data.dir, 800);
    expect(testStoreBytes(data.dir).total).toBeGreaterThan(32 * 1024 * 1024);
    const server = await startStdio({ dataDir: data.dir, args: ["--log-level", "warn"] });
    try {
      // Retention prunes the store when it opens, a step at a time between calls; the file
      // shrinks as each step's pages go back and the WAL is checkpointed.
      const bound = 16 * 1024 * 1024;
      for (let wait = 0; testStoreBytes(data.dir).total >= bound && wait < 300; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(testStoreBytes(data.dir).total).toBeLessThan(bound);
      const newest = await ok<{ changes: { op: string; version: number }[] }>(
        server.client,
        "history",
        { key: "/memories/c799.md" },
      );
      expect(newest.changes.map((change) => change.op)).toEqual(["delete", "create"]);
      const oldest = await ok<{ changes: unknown[]; dropped: { reason: string }[] }>(
        server.client,
        "history",
        { key: "/memories/c0.md" },
      );
      expect([oldest.changes, oldest.dropped.map((drop) => drop.reason)]).toEqual([[], ["bytes"]]);
      await ok(server.client, "restore", { key: "/memories/c799.md", version: 1599 });
    } finally {
      await server.close();
    }
  });
});
