import { execFileSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HistoryDropEvent } from "../history-types.js";
import { MemoryStore } from "../store.js";
import { refusal } from "../test-support.js";
import { RESERVE_BYTES, reserveFileOf } from "./disk-full.js";

// A real full disk: a small tmpfs. Mounting needs root, as CI and the dev machines run tests;
// where it is refused the test fails with mount's reason, it never skips.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-disk-full-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=12m", "tmpfs", dir]);
});
afterEach(() => {
  execFileSync("umount", [dir]);
  rmSync(dir, { recursive: true, force: true });
});

/** A text of about 28 KB whose words differ from memory to memory (so FTS5 grows too). */
const big = (i: number) =>
  Array.from({ length: 4000 }, (_, j) => `w${(i * 7919 + j) % 100000}`).join(" ");

/** Writes memories until the disk is full, then fills what is left with a file. */
function fill(store: MemoryStore): number {
  let n = 0;
  for (; ; n++) {
    try {
      store.remember({ key: `/memories/m${n}.md`, text: big(n) });
    } catch (error) {
      expect((error as { code?: unknown }).code).toBe("STORAGE_FULL");
      break;
    }
  }
  const fd = openSync(join(dir, "filler"), "w");
  try {
    while (writeSync(fd, Buffer.alloc(4096, 1)) === 4096);
  } catch (error) {
    expect((error as { code?: unknown }).code).toBe("ENOSPC");
  } finally {
    closeSync(fd);
  }
  return n;
}

describe("a full disk", () => {
  it("refuses writes with STORAGE_FULL, deletes on the truly full disk, then writes again", () => {
    const file = join(dir, "store.sqlite");
    const store = MemoryStore.open(file);
    try {
      expect(existsSync(reserveFileOf(file))).toBe(true);
      const written = fill(store);
      expect(written).toBeGreaterThan(10);
      const refused = refusal(() =>
        store.remember({ key: "/memories/more.md", text: big(written) }),
      );
      expect(refused.code).toBe("STORAGE_FULL");
      expect(refused.message).toMatch(/^the disk holding the store is full/);
      expect(refused.message).toContain("deleting still works");
      expect(store.get("/memories/m0.md")?.text).toBe(big(0));

      expect(store.forget("/memories/m0.md")).toEqual({ deleted: 1 });
      expect(store.forgetTree("/memories/m1.md")).toEqual({ deleted: 1 });
      expect(store.forgetPrefix("/memories/m2")).toMatchObject({ deleted: expect.any(Number) });
      expect(store.get("/memories/m0.md")).toBeUndefined();
      expect(store.remember({ key: "/memories/small.md", text: "room again" }).created).toBe(true);
    } finally {
      store.close();
    }
  });

  it("makes the spare file again once a delete has made room, so the next delete gets through too", () => {
    const file = join(dir, "store.sqlite");
    const store = MemoryStore.open(file);
    try {
      const written = fill(store);
      expect(written).toBeGreaterThan(10);
      store.forget("/memories/m0.md");
      // The delete's checkpoint gave the WAL's space back: room for the spare file again.
      expect(statSync(reserveFileOf(file)).size).toBe(RESERVE_BYTES);
      for (let i = 1; i < 5; i++) expect(store.forget(`/memories/m${i}.md`).deleted).toBe(1);
    } finally {
      store.close();
    }
  });

  it("says to delete fewer at a time when even a delete does not fit", () => {
    const file = join(dir, "store.sqlite");
    const store = MemoryStore.open(file);
    try {
      fill(store);
      rmSync(reserveFileOf(file));
      const refused = refusal(() => store.forgetPrefix("/memories/"));
      expect(refused.code).toBe("STORAGE_FULL");
      expect(refused.message).toContain("delete fewer memories at a time");
      expect(store.get("/memories/m0.md")?.text).toBe(big(0));
    } finally {
      store.close();
    }
  });
});

/**
 * A text of about 30 KB in lines of a few dozen words, as notes are. FTS5 keeps the index
 * entries of each deleted one until a merge reaches them, which with so few distinct words
 * is most of the index.
 */
const notes = (i: number) => {
  const words = "client prefers email follow ups meeting notes project deadline budget review";
  const pick = words.split(" ");
  return Array.from(
    { length: 380 },
    (_, j) =>
      `f${i} line ${j}: ${Array.from({ length: 10 }, (_, k) => pick[(i * 31 + j * 7 + k * k) % pick.length]).join(" ")}`,
  ).join("\n");
};

describe("a full disk and the history of memory files", () => {
  /** Creates memory files under `dir` until the disk is full; returns how many fit. */
  function fillWithFiles(store: MemoryStore, under: string, text = big): number {
    for (let n = 0; ; n++) {
      try {
        store.remember({
          key: `/memories/${under}/m${n}.md`,
          text: text(n),
          tags: ["memory-file"],
        });
      } catch (error) {
        expect((error as { code?: unknown }).code).toBe("STORAGE_FULL");
        return n;
      }
    }
  }

  it("gives way, oldest first, so that deleting every file makes room for as many again", () => {
    const file = join(dir, "store.sqlite");
    const drops: HistoryDropEvent[] = [];
    const store = MemoryStore.open(file, { onHistoryDropped: (event) => drops.push(event) });
    try {
      const fit = fillWithFiles(store, "a");
      expect(fit).toBeGreaterThan(100);
      // Each delete keeps the deleted text in the history; they all get through.
      for (let n = 0; n < fit; n++) expect(store.forget(`/memories/a/m${n}.md`).deleted).toBe(1);
      const again = fillWithFiles(store, "b");
      expect(again).toBeGreaterThanOrEqual(Math.ceil(0.8 * fit));
      // The history made the room, oldest first, and said so.
      expect(drops.length).toBeGreaterThan(0);
      expect(new Set(drops.map((drop) => drop.reason))).toEqual(new Set(["disk_full"]));
      expect(drops.every((drop) => drop.changes > 0 && drop.bytes > 0)).toBe(true);
      const [recorded] = store.history.ofFile("/memories/a/m0.md").dropped;
      expect(recorded).toMatchObject({ reason: "disk_full" });
      expect(store.history.ofFile("/memories/a/m0.md").entries).toEqual([]);
      // The newest deletes are the last to go: the last file deleted is still in the history.
      const last = store.history.ofFile(`/memories/a/m${fit - 1}.md`).entries[0];
      expect(last?.op).toBe("delete");
      expect(store.history.version(`/memories/a/m${fit - 1}.md`, last?.version ?? 0)?.text).toBe(
        big(fit - 1),
      );
    } finally {
      store.close();
    }
  });

  it("rewrites the full-text index, which keeps deleted files' entries, before the history gives way", () => {
    const file = join(dir, "store.sqlite");
    const drops: HistoryDropEvent[] = [];
    const store = MemoryStore.open(file, { onHistoryDropped: (event) => drops.push(event) });
    try {
      const fit = fillWithFiles(store, "a", notes);
      expect(fit).toBeGreaterThan(100);
      for (let n = 0; n < fit; n++) expect(store.forget(`/memories/a/m${n}.md`).deleted).toBe(1);
      // Without the rewrite, about 78% fit again: the history gave way, the index did not.
      const again = fillWithFiles(store, "b", notes);
      expect(again).toBeGreaterThanOrEqual(Math.ceil(0.9 * fit));
      // Recall still finds what the rewritten index holds, and nothing deleted.
      const { hits } = store.recall(`f${again - 1}`, { k: 3 });
      expect(hits[0]?.key).toBe(`/memories/b/m${again - 1}.md`);
      expect(hits.some((hit) => hit.key.startsWith("/memories/a/"))).toBe(false);
    } finally {
      store.close();
    }
  });

  it("drops history to let a delete through when even the spare file is not enough", () => {
    const file = join(dir, "store.sqlite");
    const store = MemoryStore.open(file);
    try {
      const fit = fillWithFiles(store, "a");
      for (let n = 0; n < 20; n++) store.forget(`/memories/a/m${n}.md`);
      fillWithFiles(store, "b");
      fill(store);
      rmSync(reserveFileOf(file));
      // No spare file and a truly full disk: the delete's own history row needs room, which
      // the older deletes' history gives.
      expect(store.forget(`/memories/a/m${fit - 1}.md`)).toEqual({ deleted: 1 });
      expect(store.get(`/memories/a/m${fit - 1}.md`)).toBeUndefined();
    } finally {
      store.close();
    }
  });
});

describe("a store in memory", () => {
  it("keeps no spare file: there is no disk to fill (and no file named after ':memory:')", () => {
    const cwd = process.cwd();
    const dir = mkdtempSync(join(tmpdir(), "hms-in-memory-"));
    process.chdir(dir);
    try {
      const store = MemoryStore.open(":memory:");
      store.remember({ key: "a", text: "x" });
      store.forget("a");
      store.close();
      expect(existsSync(reserveFileOf(":memory:"))).toBe(false);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
