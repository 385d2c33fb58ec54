/**
 * Calls in flight at once on one store: compare-and-set lets exactly one of several writers at
 * the same version win, ifAbsent exactly one creator, and every write gets its own version. An
 * engine that answers at once runs them one after another; one that answers with promises
 * (PostgreSQL, a pool of connections) runs them together, which is what this checks.
 */
import assert from "node:assert/strict";
import { isStoreError } from "../errors.js";
import { FILE, freshTest, keys, type StoreConformanceOptions, type TestApi } from "./support.js";

const WRITERS = 8;

/** The settled results of `calls`, started together: the answers, and the refusals' codes. */
async function together<T>(calls: (() => unknown)[]): Promise<{ won: T[]; codes: string[] }> {
  const settled = await Promise.allSettled(calls.map(async (call) => (await call()) as T));
  const won: T[] = [];
  const codes: string[] = [];
  for (const result of settled) {
    if (result.status === "fulfilled") won.push(result.value);
    else if (isStoreError(result.reason)) codes.push(result.reason.code);
    else throw result.reason;
  }
  return { won, codes };
}

export function concurrencyTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("calls in flight at once", () => {
    test("of writers at the same expected version, exactly one wins", async ({ store }) => {
      const { version } = await store.remember({ key: "/memories/a.md", text: "0", tags: FILE });
      const { won, codes } = await together<{ version: number }>(
        Array.from(
          { length: WRITERS },
          (_, i) => () =>
            store.remember({
              key: "/memories/a.md",
              text: `writer ${i}`,
              expectedVersion: version,
            }),
        ),
      );
      assert.equal(won.length, 1, "one writer wins");
      assert.deepEqual(codes, Array(WRITERS - 1).fill("VERSION_CONFLICT"));
      const now = await store.get("/memories/a.md");
      assert.equal(now?.version, won[0]?.version);
      assert.match(now?.text ?? "", /^writer \d$/);
    });

    test("of creators with ifAbsent, exactly one creates", async ({ store }) => {
      const { won, codes } = await together(
        Array.from(
          { length: WRITERS },
          (_, i) => () => store.remember({ key: "k", text: `creator ${i}`, ifAbsent: true }),
        ),
      );
      assert.equal(won.length, 1, "one creator wins");
      assert.deepEqual(codes, Array(WRITERS - 1).fill("EXISTS"));
    });

    test("every write takes its own version, and none is lost", async ({ store }) => {
      const { won, codes } = await together<{ key: string; version: number }>(
        Array.from(
          { length: WRITERS * 2 },
          (_, i) => () => store.remember({ key: `k${i % WRITERS}`, text: `${i}` }),
        ),
      );
      assert.deepEqual(codes, []);
      const versions = won.map((result) => result.version);
      assert.equal(new Set(versions).size, versions.length, "no version is given twice");
      assert.equal((await keys(store)).length, WRITERS);
      for (let k = 0; k < WRITERS; k++) {
        const last = Math.max(...won.filter((w) => w.key === `k${k}`).map((w) => w.version));
        assert.equal((await store.get(`k${k}`))?.version, last, `k${k} holds its last write`);
      }
    });

    test("of moves of one file to different places, exactly one moves it", async ({ store }) => {
      await store.remember({ key: "/memories/a.md", text: "x", tags: FILE });
      const { won, codes } = await together(
        Array.from(
          { length: WRITERS },
          (_, i) => () => store.moveTree("/memories/a.md", `/memories/to-${i}.md`),
        ),
      );
      assert.equal(won.length, 1, "one move wins");
      assert.deepEqual(codes, Array(WRITERS - 1).fill("NOT_FOUND"));
      assert.equal((await keys(store)).length, 1);
    });
  });
}
