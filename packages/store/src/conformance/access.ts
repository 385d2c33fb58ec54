/**
 * Reads noted to the day (`noteRead`, `flush`) and the memory files unused since a time. Old
 * writes are made with `load`, which keeps the times it is given.
 */
import assert from "node:assert/strict";
import type { StoreApi } from "../engine.js";
import {
  FILE,
  freshTest,
  refusal,
  type StoreConformanceOptions,
  type TestApi,
  writtenAt,
} from "./support.js";

async function unusedKeys(store: StoreApi, before: string, prefix?: string): Promise<string[]> {
  const found = await store.access.unused(before, prefix === undefined ? {} : { prefix });
  return found.map((file) => file.key);
}

export function accessTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("access", () => {
    test("finds memory files neither written nor read since a time, oldest first", async ({
      store,
    }) => {
      await store.load([
        { ...writtenAt("/memories/old.md", "2020-01-01T00:00:00.000Z"), version: 1 },
        { ...writtenAt("/memories/read.md", "2019-06-01T00:00:00.000Z"), version: 2 },
        { ...writtenAt("app:setting", "2018-01-01T00:00:00.000Z", []), version: 3 },
      ]);
      await store.remember({ key: "/memories/recent.md", text: "recent", tags: FILE });
      store.access.noteRead("/memories/read.md");
      assert.equal(await store.access.flush(), 1);

      assert.deepEqual(await unusedKeys(store, "2021-01-01T00:00:00.000Z"), ["/memories/old.md"]);
      assert.deepEqual(await unusedKeys(store, "2999-01-01T00:00:00Z"), [
        "/memories/old.md",
        "/memories/recent.md",
        // Read today: a read counts until the end of its day.
        "/memories/read.md",
      ]);
      const [old] = await store.access.unused("2021-01-01T00:00:00Z");
      assert.deepEqual(old, {
        key: "/memories/old.md",
        version: 1,
        bytes: "text of /memories/old.md".length,
        last_used: "2020-01-01T00:00:00.000Z",
      });
      // Any prefix, and not only memory files.
      assert.deepEqual(await unusedKeys(store, "2019-01-01T00:00:00Z", "app:"), ["app:setting"]);
      assert.equal(
        (await store.access.unused("2999-01-01T00:00:00Z", { limit: 1 }))[0]?.key,
        "/memories/old.md",
      );
    });

    test("costs one note per key a day: a re-read is not written again", async ({ store }) => {
      await store.remember({ key: "/memories/a.md", text: "a", tags: FILE });
      store.access.noteRead("/memories/a.md");
      store.access.noteRead("/memories/a.md");
      assert.equal(await store.access.flush(), 1);
      store.access.noteRead("/memories/a.md");
      assert.equal(await store.access.flush(), 0);
    });

    test("forgets a read with its memory", async ({ store }) => {
      const old = "2020-01-01T00:00:00.000Z";
      await store.load([writtenAt("/memories/a.md", old)]);
      store.access.noteRead("/memories/a.md");
      assert.equal(await store.access.flush(), 1);
      assert.deepEqual(await unusedKeys(store, "2021-01-01T00:00:00Z"), []);
      // Deleted and loaded again as written long ago: the read was the old memory's.
      await store.forget("/memories/a.md");
      await store.load([{ ...writtenAt("/memories/a.md", old), version: 1_000_000 }]);
      assert.deepEqual(await unusedKeys(store, "2021-01-01T00:00:00Z"), ["/memories/a.md"]);
    });

    test("refuses a time that is not one", async ({ store }) => {
      const error = await refusal(() => store.access.unused("90 days ago"));
      assert.deepEqual(
        [error.code, error.message],
        [
          "INVALID_ARGUMENT",
          'before must be an ISO 8601 time such as 2026-12-01T09:30:00Z, got "90 days ago"',
        ],
      );
    });
  });
}
