// HistoryRetention on a real SQLite store: a stop ends the pass in flight before the stores
// close, so no pruning step ever runs on a closed store (on PostgreSQL, a step on the closed
// pool failed and logged a warning at every shutdown, e.g. as an in-process tool closed).
import { join } from "node:path";
import { MemoryStore } from "@hms/store";
import { openSqlite } from "@hms/store/internal";
import { tempDir } from "@hms/test-support";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { HistoryRetention } from "./retention.js";

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

/** A store whose one memory file has `versions` versions, and a count of prune steps. */
function storeWithHistory(versions: number, busyTimeoutMs?: number) {
  const dir = tempDir();
  dirs.push(dir);
  const file = join(dir.dir, "store.sqlite");
  const store = MemoryStore.open(file, { synchronous: "normal", busyTimeoutMs });
  const key = "/memories/notes.md";
  store.remember({ key, text: "0", tags: ["memory-file"] });
  for (let i = 1; i < versions; i++) store.remember({ key, text: String(i) });
  const steps = { count: 0 };
  const prune = store.history.prune.bind(store.history);
  store.history.prune = (options) => {
    steps.count++;
    return prune(options);
  };
  return { store, steps, key, file };
}

describe("HistoryRetention", () => {
  it("prunes a watched store in steps until it is within the bound", async () => {
    const { store, steps, key } = storeWithHistory(1200);
    const retention = new HistoryRetention(
      { keepVersions: 1, keepDays: 0, keepMib: 0 },
      pino({ level: "silent" }),
    );
    try {
      retention.watch("default", store);
      await retention.pruneAll(); // the pass the watch started
      expect(steps.count).toBe(4); // 1,199 rows, 500 a step, then one that finds none left
      expect(store.history.ofFile(key).entries).toHaveLength(1);
    } finally {
      await retention.stop();
      store.close();
    }
  });

  it("takes no further step once stopped, and its stop waits for the pass in flight", async () => {
    const { store, steps } = storeWithHistory(1200);
    const retention = new HistoryRetention(
      { keepVersions: 1, keepDays: 0, keepMib: 0 },
      pino({ level: "silent" }),
    );
    retention.watch("default", store); // a pass starts, and yields before its first step
    await retention.stop();
    await retention.pruneAll(); // a pass still in flight would be awaited here
    expect(steps.count).toBe(0);
    store.close();
  });

  it("waits for a store another process is writing without a warning, and prunes it later", async () => {
    const { store, key, file } = storeWithHistory(20, 50);
    const lines: { level: number; msg: string }[] = [];
    const log = pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const retention = new HistoryRetention({ keepVersions: 1, keepDays: 0, keepMib: 0 }, log);
    const other = openSqlite(file);
    other.exec("BEGIN IMMEDIATE"); // another process's write in progress
    try {
      retention.watch("default", store);
      await retention.pruneAll();
      expect(lines.filter((line) => line.level >= 40)).toEqual([]);
      expect(lines.map((line) => line.msg)).toContain(
        "history pruning waits: the store is busy; will retry",
      );
      other.exec("ROLLBACK");
      await retention.pruneAll();
      expect(store.history.ofFile(key).entries).toHaveLength(1);
    } finally {
      if (other.isTransaction) other.exec("ROLLBACK");
      other.close();
      await retention.stop();
      store.close();
    }
  });
});
