/**
 * Recall by time: `modifiedAfter` (inclusive) and `modifiedBefore` (exclusive) select memories
 * by their last change (`updated_at`) before the best `k` are taken, hits carry `updated_at`,
 * and bad times are refused with nothing run. Times are set with `load`, which keeps them.
 */
import assert from "node:assert/strict";
import type { StoreApi } from "../engine.js";
import type { MemoryRecord, RecallOptions } from "../types.js";
import { freshTest, refusal, type StoreConformanceOptions, type TestApi } from "./support.js";

/** A record of `text` last changed at `at`. */
function record(key: string, text: string, at: string, tags: string[] = []): MemoryRecord {
  return {
    key,
    text,
    tags,
    metadata: {},
    version: 1,
    hash: "",
    bytes: 0,
    created_at: at,
    updated_at: at,
  };
}

/** The keys recall finds, in order. */
async function found(store: StoreApi, query: string, options: RecallOptions): Promise<string[]> {
  return (await store.recall(query, options)).hits.map((hit) => hit.key);
}

/** `2026-01-01T00:00:00.000Z` plus `minutes`. */
function minute(minutes: number): string {
  return new Date(Date.UTC(2026, 0, 1) + minutes * 60_000).toISOString();
}

export function recallTimeTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("recall by time", () => {
    test("filters before taking the best k: the best matches outside the range give way", async ({
      store,
    }) => {
      // The strongest matches are old; the recent ones hold the word once among others.
      await store.load([
        record("old/1", "zephyr zephyr zephyr", "2026-03-01T00:00:00.000Z"),
        record("old/2", "zephyr zephyr", "2026-03-02T00:00:00.000Z"),
        record("new/1", "a zephyr among many other words here", "2026-06-01T00:00:00.000Z"),
        record("new/2", "one zephyr and yet more words than the first", "2026-06-02T00:00:00.000Z"),
        record("new/3", "no such word", "2026-06-03T00:00:00.000Z"),
      ]);
      assert.deepEqual(await found(store, "zephyr", { k: 2 }), ["old/1", "old/2"]);
      const recent = await store.recall("zephyr", { k: 2, modifiedAfter: "2026-05-01T00:00:00Z" });
      assert.deepEqual(
        recent.hits.map((hit) => [hit.key, hit.updated_at]),
        [
          ["new/1", "2026-06-01T00:00:00.000Z"],
          ["new/2", "2026-06-02T00:00:00.000Z"],
        ],
      );
      // A hit's score does not depend on the filter.
      const all = await store.recall("zephyr", { k: 4 });
      for (const hit of recent.hits) {
        assert.equal(hit.score, all.hits.find((other) => other.key === hit.key)?.score);
      }
      assert.deepEqual(await found(store, "zephyr", { modifiedBefore: "2026-03-02T00:00:00Z" }), [
        "old/1",
      ]);
    });

    test("takes modified_after as at-or-after and modified_before as before, in any timezone", async ({
      store,
    }) => {
      await store.load([
        record("a", "lantern", "2026-06-01T10:00:00.000Z"),
        record("b", "lantern", "2026-06-01T10:00:00.001Z"),
        record("c", "lantern", "2026-06-01T12:00:00.000Z"),
      ]);
      const keys = async (range: RecallOptions) => (await found(store, "lantern", range)).sort();
      assert.deepEqual(await keys({ modifiedAfter: "2026-06-01T10:00:00Z" }), ["a", "b", "c"]);
      assert.deepEqual(await keys({ modifiedAfter: "2026-06-01T10:00:00.0001Z" }), ["b", "c"]);
      assert.deepEqual(await keys({ modifiedBefore: "2026-06-01T10:00:00.001Z" }), ["a"]);
      assert.deepEqual(await keys({ modifiedBefore: "2026-06-01T10:00:00Z" }), []);
      // 12:00 in UTC is 14:00 at +02:00 and 07:00 at -05:00.
      assert.deepEqual(await keys({ modifiedAfter: "2026-06-01T14:00:00+02:00" }), ["c"]);
      assert.deepEqual(
        await keys({
          modifiedAfter: "2026-06-01T05:00:00.001-05:00",
          modifiedBefore: "2026-06-01T07:00:00-05:00",
        }),
        ["b"],
      );
      // Equal bounds select nothing, and are not refused.
      const same = "2026-06-01T10:00:00Z";
      assert.deepEqual(await keys({ modifiedAfter: same, modifiedBefore: same }), []);
    });

    test("follows each write: a change moves a memory into the range, with its new time", async ({
      store,
    }) => {
      await store.load([record("/memories/plan.md", "launch plan", "2020-01-01T00:00:00.000Z")]);
      const since = "2025-01-01T00:00:00Z";
      assert.deepEqual(await found(store, "launch", { modifiedAfter: since }), []);
      const written = await store.remember({ key: "/memories/plan.md", text: "launch plan v2" });
      const hits = (await store.recall("launch", { modifiedAfter: since })).hits;
      assert.deepEqual(
        hits.map((hit) => [hit.key, hit.updated_at]),
        [["/memories/plan.md", written.updated_at]],
      );
      assert.equal(hits[0]?.updated_at, (await store.get("/memories/plan.md"))?.updated_at);
      await store.move("/memories/plan.md", "/memories/launch.md");
      const moved = await store.get("/memories/launch.md");
      assert.deepEqual(
        (await store.recall("launch", { modifiedAfter: moved?.updated_at })).hits.map((hit) => [
          hit.key,
          hit.updated_at,
        ]),
        [["/memories/launch.md", moved?.updated_at]],
      );
    });

    test("combines with tag and prefix", async ({ store }) => {
      await store.load([
        record("/memories/a.md", "harbor", "2026-06-01T00:00:00.000Z", ["memory-file"]),
        record("/memories/b.md", "harbor", "2026-01-01T00:00:00.000Z", ["memory-file"]),
        record("notes/a", "harbor", "2026-06-01T00:00:00.000Z"),
      ]);
      const after = "2026-05-01T00:00:00Z";
      assert.deepEqual(await found(store, "harbor", { modifiedAfter: after, tag: "memory-file" }), [
        "/memories/a.md",
      ]);
      assert.deepEqual(await found(store, "harbor", { modifiedAfter: after, prefix: "notes/" }), [
        "notes/a",
      ]);
      assert.deepEqual(
        await found(store, "harbor", { modifiedBefore: after, tag: "memory-file", prefix: "n" }),
        [],
      );
    });

    test("finds k in the range when the query's matches are too many to score them all", async ({
      store,
    }) => {
      // Four in five of 1,800 memories hold the word: more than recall scores of a common word
      // (it scores the newest 1,000 of them first, and estimates how many hold it, here not a
      // whole number). They were written oldest first; the first range keeps the 40 oldest.
      const records: MemoryRecord[] = [];
      for (let i = 0; i < 1800; i++) {
        const text = i % 5 === 4 ? `filler ${i}` : `note ${i} about the quarry`;
        records.push(record(`m/${String(i).padStart(4, "0")}`, text, minute(i)));
      }
      await store.load(records);
      const before = minute(40);
      const old = await store.recall("quarry", { k: 10, modifiedBefore: before });
      assert.equal(old.hits.length, 10);
      for (const hit of old.hits) assert.ok(hit.updated_at < before, `${hit.key} before ${before}`);
      const recent = await store.recall("quarry", { k: 10, modifiedAfter: minute(1790) });
      assert.deepEqual(
        recent.hits.map((hit) => hit.key).sort(),
        [1790, 1791, 1792, 1793, 1795, 1796, 1797, 1798].map((i) => `m/${i}`),
      );
      // Wider ranges: one the newest matches fall in, and one they miss.
      for (const range of [{ modifiedAfter: minute(900) }, { modifiedBefore: minute(500) }]) {
        const hits = (await store.recall("quarry", { k: 10, ...range })).hits;
        assert.equal(hits.length, 10, JSON.stringify(range));
        for (const hit of hits) {
          const inside =
            (range.modifiedAfter === undefined || hit.updated_at >= range.modifiedAfter) &&
            (range.modifiedBefore === undefined || hit.updated_at < range.modifiedBefore);
          assert.ok(inside, `${hit.key} in ${JSON.stringify(range)}`);
        }
      }
      // A narrow range in the middle, and one holding no match.
      const middle = await store.recall("quarry", {
        k: 10,
        modifiedAfter: minute(600),
        modifiedBefore: minute(604),
      });
      assert.deepEqual(middle.hits.map((hit) => hit.key).sort(), [
        "m/0600",
        "m/0601",
        "m/0602",
        "m/0603",
      ]);
      assert.deepEqual(await found(store, "quarry", { modifiedAfter: minute(1799) }), []);
    });

    test("takes a common word's newest 1,000 matches at and below the range's newest memory", async ({
      store,
    }) => {
      // 1,800 memories, four in five holding "quarry" (1,440: over the 1,000 recall scores of
      // a word that common). Older memories are shorter, so they score higher.
      const records: MemoryRecord[] = [];
      for (let i = 0; i < 1800; i++) {
        const pads = Array.from({ length: Math.floor(i / 50) }, (_, p) => `pad${p}`).join(" ");
        const text = i % 5 === 4 ? `filler ${i} ${pads}` : `note ${i} about the quarry ${pads}`;
        records.push(record(`m/${String(i).padStart(4, "0")}`, text, minute(i)));
      }
      await store.load(records);
      // The range's newest memory is m/1499: the 1,000 newest "quarry" memories up to it run
      // from m/0250, whose 40 are the shortest among them (scored alike, in row order). The
      // store's newest 1,000 start at m/0550, and scoring every one in range would start at
      // m/0000: neither is what recall does.
      const hits = await found(store, "quarry", { k: 5, modifiedBefore: minute(1500) });
      assert.deepEqual(hits, ["m/0250", "m/0251", "m/0252", "m/0253", "m/0255"]);
      // A range holding the store's newest memories takes the store's newest 1,000.
      assert.deepEqual(await found(store, "quarry", { k: 3, modifiedAfter: minute(1000) }), [
        "m/1000",
        "m/1001",
        "m/1002",
      ]);
      assert.deepEqual(await found(store, "quarry", { k: 3 }), ["m/0550", "m/0551", "m/0552"]);
    });

    test("refuses a time that is not ISO 8601 with a timezone, or a range that ends first", async ({
      store,
    }) => {
      await store.load([record("a", "lantern", "2026-06-01T10:00:00.000Z")]);
      const refused = async (range: Record<string, unknown>) => {
        const error = await refusal(() => store.recall("lantern", range as RecallOptions));
        return [error.code, error.message];
      };
      const example = "such as 2026-07-01T00:00:00Z or 2026-07-01T09:30:00+02:00";
      assert.deepEqual(await refused({ modifiedAfter: "yesterday" }), [
        "INVALID_ARGUMENT",
        `modified_after must be an ISO 8601 time with a timezone, ${example}`,
      ]);
      assert.deepEqual(await refused({ modifiedBefore: 1_780_000_000_000 }), [
        "INVALID_ARGUMENT",
        `modified_before must be a string: an ISO 8601 time with a timezone, ${example}`,
      ]);
      for (const value of ["2026-06-01", "2026-06-01T10:00:00"]) {
        assert.deepEqual(await refused({ modifiedAfter: value }), [
          "INVALID_ARGUMENT",
          "modified_after has no timezone: add Z for UTC (2026-07-01T00:00:00Z) or an offset such as +02:00",
        ]);
      }
      assert.deepEqual(await refused({ modifiedBefore: "2026-02-30T00:00:00Z" }), [
        "INVALID_ARGUMENT",
        "modified_before 2026-02-30T00:00:00Z is not a real time: a month, day, hour, minute, second or offset is out of range",
      ]);
      assert.deepEqual(await refused({ modifiedAfter: "9999-12-31T23:00:00-02:00" }), [
        "INVALID_ARGUMENT",
        "modified_after 9999-12-31T23:00:00-02:00 falls outside the years 0000 to 9999 in UTC",
      ]);
      assert.deepEqual(
        await refused({
          modifiedAfter: "2026-06-02T00:00:00+02:00",
          modifiedBefore: "2026-06-01T21:59:59Z",
        }),
        [
          "INVALID_ARGUMENT",
          "modified_after 2026-06-02T00:00:00+02:00 is later than modified_before " +
            "2026-06-01T21:59:59Z, so no memory could match: give an earlier modified_after or a " +
            "later modified_before",
        ],
      );
    });
  });
}
