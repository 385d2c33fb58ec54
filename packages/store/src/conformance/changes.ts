/**
 * The changes of memory files read forward (`StoreApi.changes`): every create, edit, move and
 * delete after a mark, oldest first, and nothing of keys outside /memories/.
 */
import assert from "node:assert/strict";
import type { StoreApi } from "../engine.js";
import { FILE, freshTest, refused, type StoreConformanceOptions, type TestApi } from "./support.js";

/** The changes after `seq` as [op, key, from_key]. */
async function changesAfter(store: StoreApi, seq: number, limit?: number): Promise<unknown[][]> {
  const changes = await store.changes.after(seq, limit === undefined ? {} : { limit });
  return changes.map((change) => [change.op, change.key, change.from_key]);
}

export function changeTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("changes", () => {
    test("reads every change of a memory file after a mark, oldest first", async ({ store }) => {
      await store.remember({ key: "/memories/before.md", text: "before", tags: FILE });
      const mark = await store.changes.latest();
      assert.deepEqual(await changesAfter(store, mark), []);
      await store.remember({ key: "/memories/a.md", text: "one", tags: FILE });
      await store.remember({ key: "/memories/a.md", text: "two" });
      await store.remember({ key: "app:setting", text: "not a memory file" });
      await store.move("/memories/a.md", "/memories/b.md");
      await store.forget("/memories/b.md");
      assert.deepEqual(await changesAfter(store, mark), [
        ["create", "/memories/a.md", null],
        ["update", "/memories/a.md", null],
        ["move", "/memories/b.md", "/memories/a.md"],
        ["delete", "/memories/b.md", null],
      ]);
      const changes = await store.changes.after(mark);
      const [first = 0, second = 0, , fourth = 0] = changes.map((change) => change.seq);
      assert.ok(Number.isSafeInteger(first) && first > mark);
      assert.ok(second > first && fourth > second);
      assert.ok((await store.changes.latest()) >= fourth);
      // From the middle, and a page at a time.
      assert.deepEqual(await changesAfter(store, second), [
        ["move", "/memories/b.md", "/memories/a.md"],
        ["delete", "/memories/b.md", null],
      ]);
      assert.deepEqual(await changesAfter(store, mark, 1), [["create", "/memories/a.md", null]]);
    });

    test("a tree's move and delete is one change per file", async ({ store }) => {
      await store.remember({ key: "/memories/d/x.md", text: "x", tags: FILE });
      await store.remember({ key: "/memories/d/y.md", text: "y", tags: FILE });
      const mark = await store.changes.latest();
      await store.moveTree("/memories/d", "/memories/e");
      await store.forgetTree("/memories/e");
      const seen = await changesAfter(store, mark);
      assert.deepEqual(seen.map(([op, key, from]) => `${op} ${key} ${from}`).sort(), [
        "delete /memories/e/x.md null",
        "delete /memories/e/y.md null",
        "move /memories/e/x.md /memories/d/x.md",
        "move /memories/e/y.md /memories/d/y.md",
      ]);
    });

    test("refuses a seq or limit out of range", async ({ store }) => {
      assert.deepEqual(await refused(() => store.changes.after(-1)), {
        code: "INVALID_ARGUMENT",
        message: `seq must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`,
      });
      assert.deepEqual(await refused(() => store.changes.after(0, { limit: 1001 })), {
        code: "INVALID_ARGUMENT",
        message: "limit must be an integer from 1 to 1000",
      });
    });
  });
}
