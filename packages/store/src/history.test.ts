/**
 * The history of memory files: every change is kept with the file it left behind, whichever
 * operation made it, and any version (or any moment) can be brought back.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "./store.js";
import { refusal } from "./test-support.js";

let dir: string;
let store: MemoryStore;
const FILE = ["memory-file"];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-history-"));
  store = MemoryStore.open(join(dir, "store.sqlite"));
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ops = (key: string) =>
  store.history.ofFile(key).entries.map((entry) => [entry.op, entry.key, entry.from_key]);

/** Waits until the clock has moved on, so that two changes have different times. */
async function tick(): Promise<string> {
  const before = new Date().toISOString();
  await new Promise((resolve) => setTimeout(resolve, 5));
  return before;
}

describe("what is recorded", () => {
  it("keeps every create, edit, move and delete of a memory file, newest first", () => {
    const created = store.remember({ key: "/memories/a.md", text: "one", tags: FILE });
    const edited = store.remember({ key: "/memories/a.md", text: "two" });
    store.move("/memories/a.md", "/memories/b.md");
    store.forget("/memories/b.md");
    expect(ops("/memories/b.md")).toEqual([
      ["delete", "/memories/b.md", null],
      ["move", "/memories/b.md", "/memories/a.md"],
    ]);
    // The source's history shows the move away, then its own life before it.
    expect(ops("/memories/a.md")).toEqual([
      ["move", "/memories/b.md", "/memories/a.md"],
      ["update", "/memories/a.md", null],
      ["create", "/memories/a.md", null],
    ]);
    expect(store.history.version("/memories/a.md", created.version)?.text).toBe("one");
    expect(store.history.version("/memories/a.md", edited.version)?.text).toBe("two");
  });

  it("records tree deletes and moves file by file, and nothing for keys outside /memories", () => {
    store.remember({ key: "/memories/d/x.md", text: "x", tags: FILE });
    store.remember({ key: "/memories/d/y.md", text: "y", tags: FILE });
    store.remember({ key: "notes:1", text: "not a memory file" });
    store.moveTree("/memories/d", "/memories/e");
    store.forgetTree("/memories/e");
    const changes = store.history.under("/memories/").entries.map((e) => `${e.op} ${e.key}`);
    expect(changes).toEqual([
      "delete /memories/e/y.md",
      "delete /memories/e/x.md",
      "move /memories/e/y.md",
      "move /memories/e/x.md",
      "create /memories/d/y.md",
      "create /memories/d/x.md",
    ]);
    expect(store.history.ofFile("notes:1").entries).toEqual([]);
  });

  it("records who and what made a change when the caller says so", () => {
    store.history.attributed({ actor: "support-bot", command: "str_replace" }, () =>
      store.remember({ key: "/memories/a.md", text: "x", tags: FILE }),
    );
    store.remember({ key: "/memories/a.md", text: "y" });
    const [plain, attributed] = store.history.ofFile("/memories/a.md").entries;
    expect(attributed).toMatchObject({ actor: "support-bot", command: "str_replace" });
    expect(plain).toMatchObject({ actor: null, command: null });
  });

  it("keeps nothing of a write that failed", () => {
    store.remember({ key: "/memories/a.md", text: "x", tags: FILE });
    refusal(() => store.remember({ key: "/memories/a.md", text: "y", expectedVersion: 999 }));
    expect(ops("/memories/a.md")).toHaveLength(1);
  });

  it("pages through a long history", () => {
    store.remember({ key: "/memories/a.md", text: "0", tags: FILE });
    for (let i = 1; i < 25; i++) store.remember({ key: "/memories/a.md", text: String(i) });
    const first = store.history.ofFile("/memories/a.md", { limit: 10 });
    const second = store.history.ofFile("/memories/a.md", {
      limit: 10,
      before: first.next_before ?? 0,
    });
    const third = store.history.ofFile("/memories/a.md", {
      limit: 10,
      before: second.next_before ?? 0,
    });
    const seqs = [...first.entries, ...second.entries, ...third.entries].map((e) => e.seq);
    expect(seqs).toHaveLength(25);
    expect(new Set(seqs).size).toBe(25);
    expect(third.next_before).toBeNull();
  });
});

describe("restore", () => {
  it("brings a version back as a new version, with compare-and-set", () => {
    const first = store.remember({ key: "/memories/a.md", text: "good", tags: FILE });
    const second = store.remember({ key: "/memories/a.md", text: "bad" });
    const stale = refusal(() =>
      store.history.restoreFile(
        "/memories/a.md",
        { version: first.version },
        { expectedVersion: first.version },
      ),
    );
    expect(stale.code).toBe("VERSION_CONFLICT");
    expect(store.get("/memories/a.md")?.text).toBe("bad");

    const restored = store.history.restoreFile(
      "/memories/a.md",
      { version: first.version },
      { expectedVersion: second.version },
    );
    expect(restored.version).toBeGreaterThan(second.version);
    expect(store.get("/memories/a.md")).toMatchObject({ text: "good", tags: FILE });
    expect(store.history.ofFile("/memories/a.md").entries[0]).toMatchObject({
      op: "update",
      command: "restore",
    });
  });

  it("brings a deleted file back, and refuses a version the history does not hold", () => {
    const made = store.remember({ key: "/memories/a.md", text: "keep me", tags: FILE });
    store.forget("/memories/a.md");
    store.history.restoreFile("/memories/a.md", { version: made.version });
    expect(store.get("/memories/a.md")?.text).toBe("keep me");
    const missing = refusal(() => store.history.restoreFile("/memories/a.md", { version: 12345 }));
    expect(missing.code).toBe("NOT_FOUND");
    expect(missing.message).toContain("has no version 12345");
  });

  it("brings a file back to a moment, deleting it if it did not exist then", async () => {
    const beforeAll = await tick();
    store.remember({ key: "/memories/a.md", text: "v1", tags: FILE });
    const afterFirst = await tick();
    store.remember({ key: "/memories/a.md", text: "v2" });
    expect(store.history.stateAt("/memories/a.md", afterFirst)).toMatchObject({ text: "v1" });
    expect(store.history.stateAt("/memories/a.md", beforeAll)).toBeNull();

    store.history.restoreFile("/memories/a.md", { at: afterFirst });
    expect(store.get("/memories/a.md")?.text).toBe("v1");
    store.history.restoreFile("/memories/a.md", { at: beforeAll });
    expect(store.get("/memories/a.md")).toBeUndefined();
  });

  it("brings a directory back to a moment in one transaction", async () => {
    store.remember({ key: "/memories/d/keep.md", text: "original", tags: FILE });
    store.remember({ key: "/memories/d/gone.md", text: "deleted later", tags: FILE });
    const moment = await tick();
    store.remember({ key: "/memories/d/keep.md", text: "vandalized" });
    store.forget("/memories/d/gone.md");
    store.remember({ key: "/memories/d/new.md", text: "made later", tags: FILE });

    const result = store.history.restoreTree("/memories/d", moment);
    expect(result).toEqual({
      restored: [
        { key: "/memories/d/gone.md", version: expect.any(Number) },
        { key: "/memories/d/keep.md", version: expect.any(Number) },
      ],
      deleted: ["/memories/d/new.md"],
      unknown: [],
    });
    expect(store.get("/memories/d/keep.md")?.text).toBe("original");
    expect(store.get("/memories/d/gone.md")?.text).toBe("deleted later");
    expect(store.get("/memories/d/new.md")).toBeUndefined();
  });

  it("refuses a time that is not a time", () => {
    const error = refusal(() => store.history.restoreFile("/memories/a.md", { at: "yesterday" }));
    expect(error.code).toBe("INVALID_ARGUMENT");
    expect(error.message).toContain("must be an ISO 8601 time");
  });
});

describe("retention", () => {
  it("keeps the newest N versions of each file, in bounded steps", () => {
    store.remember({ key: "/memories/a.md", text: "0", tags: FILE });
    store.remember({ key: "/memories/b.md", text: "0", tags: FILE });
    for (let i = 1; i < 10; i++) store.remember({ key: "/memories/a.md", text: String(i) });
    expect(store.history.prune({ keepVersions: 3, limit: 4 })).toBe(4);
    expect(store.history.prune({ keepVersions: 3, limit: 4 })).toBe(3);
    expect(store.history.prune({ keepVersions: 3, limit: 4 })).toBe(0);
    expect(ops("/memories/a.md")).toHaveLength(3);
    expect(ops("/memories/b.md")).toHaveLength(1);
    expect(store.history.ofFile("/memories/a.md").entries[0]?.version).toBe(
      store.get("/memories/a.md")?.version,
    );
  });

  it("drops rows older than the days kept", () => {
    store.remember({ key: "/memories/a.md", text: "0", tags: FILE });
    expect(store.history.prune({ keepDays: 1 })).toBe(0);
    // keepDays 0 drops what is older than now: a prune in the write's own millisecond would
    // find it no older (1 run in 3 did), so the clock moves on first.
    const written = Date.now();
    while (Date.now() <= written) {}
    expect(store.history.prune({ keepDays: 0 })).toBe(1);
    expect(ops("/memories/a.md")).toEqual([]);
  });
});
