/**
 * Listing and export: key order by code point, pages with opaque cursors, prefixes taken
 * literally, tag filters, and the export page's byte budget.
 */
import assert from "node:assert/strict";
import { DEFAULT_LIMITS } from "../limits.js";
import { EXPORT_PAGE_BYTES } from "../types.js";
import { freshTest, refusal, type StoreConformanceOptions, type TestApi } from "./support.js";

export function pageTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("list and export", () => {
    test("list orders keys by code point and pages with an opaque cursor", async ({ store }) => {
      // Code point order puts U+FF5E before U+1F600, unlike UTF-16 code unit order.
      for (const key of ["b", "a", "é", "\u{1F600}", "\uFF5E", "a/b", "A"]) {
        await store.remember({ key, text: key });
      }
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.list({ limit: 3, cursor });
        assert.ok(page.items.length <= 3, "a page holds at most limit items");
        seen.push(...page.items.map((item) => item.key));
        cursor = page.next_cursor ?? undefined;
        pages++;
      } while (cursor !== undefined);
      assert.deepEqual(seen, ["A", "a", "a/b", "b", "é", "\uFF5E", "\u{1F600}"]);
      assert.equal(pages, 3);
    });

    test("list reports sizes, versions, tags and times, and filters by tag", async ({ store }) => {
      await store.remember({ key: "m1", text: "abc", tags: ["keep"] });
      await store.remember({ key: "m2", text: "abcd", tags: ["other"] });
      const written = await store.remember({ key: "m1", text: "abcdéf" });
      assert.deepEqual((await store.list({ tag: "keep" })).items, [
        {
          key: "m1",
          bytes: 7,
          version: written.version,
          tags: ["keep"],
          updated_at: written.updated_at,
        },
      ]);
      assert.deepEqual((await store.list({ tag: "none" })).items, []);
      assert.equal((await store.list()).next_cursor, null);
    });

    test("a prefix is literal: LIKE and GLOB wildcards are plain characters", async ({ store }) => {
      for (const key of ["a%b", "a_b", "axb", "a*c", "a?c", "a[c", "ab"]) {
        await store.remember({ key, text: "x" });
      }
      const under = async (prefix: string) =>
        (await store.list({ prefix })).items.map((item) => item.key);
      assert.deepEqual(await under("a%"), ["a%b"]);
      assert.deepEqual(await under("a_"), ["a_b"]);
      assert.deepEqual(await under("a*"), ["a*c"]);
      assert.deepEqual(await under("a?"), ["a?c"]);
      assert.deepEqual(await under("a["), ["a[c"]);
      assert.equal((await under("")).length, 7);
    });

    test("a prefix ending in the highest code point", async ({ store }) => {
      for (const key of ["z\u{10FFFF}a", "z\u{10FFFF}", "{"]) {
        await store.remember({ key, text: "x" });
      }
      assert.deepEqual(
        (await store.list({ prefix: "z\u{10FFFF}" })).items.map((item) => item.key),
        ["z\u{10FFFF}", "z\u{10FFFF}a"],
      );
    });

    test("a prefix and a tag together, across pages", async ({ store }) => {
      for (let i = 0; i < 5; i++) {
        await store.remember({ key: `p/${i}`, text: "x", tags: i % 2 === 0 ? ["even"] : [] });
        await store.remember({ key: `q/${i}`, text: "x", tags: ["even"] });
      }
      const first = await store.list({ prefix: "p/", tag: "even", limit: 2 });
      assert.deepEqual(
        first.items.map((item) => item.key),
        ["p/0", "p/2"],
      );
      const second = await store.list({
        prefix: "p/",
        tag: "even",
        limit: 2,
        cursor: first.next_cursor ?? "",
      });
      assert.deepEqual(
        second.items.map((item) => item.key),
        ["p/4"],
      );
      assert.equal(second.next_cursor, null);
    });

    test("refuses a cursor it did not make", async ({ store }) => {
      await store.remember({ key: "k", text: "x" });
      for (const cursor of ["nope", "k1.", "k1.***", "k1.YQ=="]) {
        for (const call of [() => store.list({ cursor }), () => store.export({ cursor })]) {
          const error = await refusal(call);
          assert.equal(error.code, "INVALID_ARGUMENT");
          assert.equal(
            error.message,
            "cursor is not one this server returned; pass back next_cursor unchanged",
          );
        }
      }
    });

    test("refuses a limit outside 1 to 1000", async ({ store }) => {
      for (const limit of [0, 1001, 1.5]) {
        for (const call of [() => store.list({ limit }), () => store.export({ limit })]) {
          const error = await refusal(call);
          assert.equal(error.code, "INVALID_ARGUMENT");
          assert.equal(error.message, "limit must be an integer from 1 to 1000");
        }
      }
    });

    test("export gives whole records a page at a time, by prefix and tag", async ({ store }) => {
      for (let i = 0; i < 5; i++) {
        await store.remember({ key: `e${i}`, text: `text ${i}`, tags: ["x"], metadata: { i } });
      }
      await store.remember({ key: "other", text: "y", tags: ["x"] });
      await store.remember({ key: "e9", text: "untagged" });
      const first = await store.export({ prefix: "e", tag: "x", limit: 3 });
      assert.deepEqual(
        first.memories.map((m) => m.key),
        ["e0", "e1", "e2"],
      );
      assert.deepEqual(first.memories[0], await store.get("e0"));
      const second = await store.export({
        prefix: "e",
        tag: "x",
        limit: 3,
        cursor: first.next_cursor ?? "",
      });
      assert.deepEqual(
        second.memories.map((m) => m.key),
        ["e3", "e4"],
      );
      assert.equal(second.next_cursor, null);
    });

    test("an export page ends early when its memories reach EXPORT_PAGE_BYTES", async ({
      store,
    }) => {
      // Each memory costs its text and its metadata (`{}`, 2 bytes) against the budget.
      const size = Math.min(30_000, options.maxTextBytes ?? DEFAULT_LIMITS.maxTextBytes);
      const perPage = Math.floor(EXPORT_PAGE_BYTES / (size + 2));
      const count = perPage * 2 + 1;
      const names = Array.from({ length: count }, (_, i) => `big${String(i).padStart(3, "0")}`);
      for (const key of names) await store.remember({ key, text: "x".repeat(size) });
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await store.export({ limit: 1000, cursor });
        pages.push(page.memories.map((m) => m.key));
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
      assert.deepEqual(pages, [
        names.slice(0, perPage),
        names.slice(perPage, 2 * perPage),
        names.slice(2 * perPage),
      ]);
    });

    test("the export page budget counts metadata in UTF-8 bytes, not characters", async ({
      store,
    }) => {
      // 4,000 "é" are 4,000 characters but 8,000 bytes of metadata (the limit is 8,192 bytes):
      // counted in bytes a memory costs about 28,000 bytes (9 a page), in characters about
      // 24,000 (10 a page). Far enough from either edge for any JSON spacing of the metadata.
      const size = Math.min(20_000, options.maxTextBytes ?? DEFAULT_LIMITS.maxTextBytes);
      const metadata = { v: "é".repeat(4000) };
      const cost = size + Buffer.byteLength(JSON.stringify(metadata), "utf8");
      const perPage = Math.floor(EXPORT_PAGE_BYTES / cost);
      const names = Array.from(
        { length: perPage * 2 + 1 },
        (_, i) => `m${String(i).padStart(3, "0")}`,
      );
      for (const key of names) await store.remember({ key, text: "x".repeat(size), metadata });
      const first = await store.export({ limit: 1000 });
      assert.deepEqual(
        first.memories.map((m) => m.key),
        names.slice(0, perPage),
      );
      const second = await store.export({ limit: 1000, cursor: first.next_cursor ?? "" });
      assert.deepEqual(
        second.memories.map((m) => m.key),
        names.slice(perPage, 2 * perPage),
      );
    });
  });
}
