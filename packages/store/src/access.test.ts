/** Last reads, to the day, and the memory files nobody has used since a time. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "./sqlite/driver.js";
import { MemoryStore } from "./store.js";
import { refusal } from "./test-support.js";

let dir: string;
let file: string;
let store: MemoryStore;
const FILE = ["memory-file"];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-access-"));
  file = join(dir, "store.sqlite");
  store = MemoryStore.open(file);
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Moves a memory's last write back in time, as if it had been written then. */
function writtenAt(key: string, at: string): void {
  const db = openSqlite(file);
  db.prepare("UPDATE memories SET updated_at = ? WHERE key = ?").run(at, key);
  db.close();
}

describe("unused memory files", () => {
  it("finds files neither written nor read since a time, oldest first", () => {
    for (const name of ["old.md", "read.md", "recent.md"]) {
      store.remember({ key: `/memories/${name}`, text: name, tags: FILE });
    }
    store.remember({ key: "app:setting", text: "not a memory file" });
    writtenAt("/memories/old.md", "2026-01-01T00:00:00.000Z");
    writtenAt("/memories/read.md", "2025-06-01T00:00:00.000Z");
    writtenAt("app:setting", "2020-01-01T00:00:00.000Z");
    store.access.noteRead("/memories/read.md");
    expect(store.access.flush()).toBe(1);

    const cutoff = "2026-06-01T00:00:00.000Z";
    expect(store.access.unused(cutoff).map((unused) => unused.key)).toEqual(["/memories/old.md"]);
    expect(store.access.unused("2100-01-01T00:00:00Z").map((unused) => unused.key)).toEqual([
      "/memories/old.md",
      "/memories/recent.md",
      // Read today: a read counts until the end of its day.
      "/memories/read.md",
    ]);
  });

  it("costs one row per key a day: a re-read is not written again", () => {
    store.remember({ key: "/memories/a.md", text: "a", tags: FILE });
    store.access.noteRead("/memories/a.md");
    store.access.noteRead("/memories/a.md");
    expect(store.access.flush()).toBe(1);
    store.access.noteRead("/memories/a.md");
    expect(store.access.flush()).toBe(0);
  });

  it("keeps noted reads across close, and forgets them with the memory", () => {
    store.remember({ key: "/memories/a.md", text: "a", tags: FILE });
    writtenAt("/memories/a.md", "2020-01-01T00:00:00.000Z");
    store.access.noteRead("/memories/a.md");
    store.close();
    store = MemoryStore.open(file);
    expect(store.access.unused("2026-01-01T00:00:00Z")).toEqual([]);
    store.forget("/memories/a.md");
    const db = openSqlite(file);
    expect(db.prepare("SELECT count(*) AS n FROM memory_access").get()).toEqual({ n: 0 });
    db.close();
  });

  it("refuses a time that is not one", () => {
    expect(refusal(() => store.access.unused("90 days ago")).message).toContain(
      "before must be an ISO 8601 time",
    );
  });
});
