/**
 * Namespaces: isolated from each other, created only by `get` (a write's store), listed by
 * `names`, refused past the engine's limit; `read` of a namespace that does not exist answers
 * as an empty one and creates nothing.
 */
import assert from "node:assert/strict";
import {
  freshTest,
  NAMESPACE,
  refused,
  type StoreConformanceOptions,
  type TestApi,
} from "./support.js";

export function namespaceTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("namespaces", () => {
    test("are isolated: no call of one sees another's memories", async ({ engine }) => {
      const alice = await engine.get("alice");
      await alice.remember({ key: "secret", text: "alice's zebra", tags: ["t"] });
      await alice.remember({ key: "/memories/a.md", text: "alice's file", tags: ["memory-file"] });
      const bob = await engine.get("bob");
      await bob.remember({ key: "other", text: "bob's" });
      assert.equal(await bob.get("secret"), undefined);
      assert.deepEqual(
        (await bob.list()).items.map((item) => item.key),
        ["other"],
      );
      assert.deepEqual(
        (await bob.export()).memories.map((memory) => memory.key),
        ["other"],
      );
      assert.deepEqual((await bob.recall("zebra")).hits, []);
      assert.deepEqual((await bob.search("alice")).hits, []);
      assert.deepEqual((await bob.list({ tag: "t" })).items, []);
      assert.deepEqual((await bob.history.ofFile("/memories/a.md")).entries, []);
      assert.deepEqual([(await bob.stats()).memories, (await alice.stats()).memories], [1, 2]);
      // Deletes and moves stay in their namespace too, and the same key lives in both.
      await bob.remember({ key: "secret", text: "bob's own" });
      assert.deepEqual(await bob.forgetPrefix("s"), { deleted: 1 });
      assert.equal((await alice.get("secret"))?.text, "alice's zebra");
      assert.equal((await (await engine.read("alice")).get("secret"))?.text, "alice's zebra");
    });

    test("names lists the namespaces written to, in name order", async ({ engine }) => {
      const before = await engine.names();
      assert.deepEqual(before, [NAMESPACE]);
      await (await engine.get("zeta")).remember({ key: "k", text: "z" });
      await (await engine.get("alpha")).remember({ key: "k", text: "a" });
      assert.deepEqual(await engine.names(), ["alpha", NAMESPACE, "zeta"]);
    });

    test("summaries give each namespace's memories, bytes and last change, creating nothing", async ({
      engine,
    }) => {
      const alpha = await engine.get("alpha");
      await alpha.remember({ key: "/memories/a.md", text: "héllo\n", tags: ["memory-file"] });
      const last = await alpha.remember({ key: "k", text: "xyz" });
      await engine.read("ghost");
      const summaries = await engine.summaries();
      assert.deepEqual(
        summaries.map(({ disk_bytes: _, ...summary }) => summary),
        [
          { name: "alpha", memories: 2, bytes: 10, updated_at: last.updated_at },
          { name: NAMESPACE, memories: 0, bytes: 0, updated_at: null },
        ],
      );
      // SQLite counts its files' bytes too; PostgreSQL has no file of its own per namespace.
      for (const summary of summaries) {
        if (summary.disk_bytes !== undefined) assert.ok(summary.disk_bytes > 0);
      }
      assert.deepEqual(await engine.names(), ["alpha", NAMESPACE]);
    });

    test("read of a namespace that does not exist answers empty and creates nothing", async ({
      engine,
    }) => {
      for (let i = 0; i < 3; i++) {
        const ghost = await engine.read(`ghost-${i}`);
        assert.equal(await ghost.get("k"), undefined);
        assert.deepEqual((await ghost.list()).items, []);
        assert.deepEqual((await ghost.export()).memories, []);
        assert.deepEqual((await ghost.recall("anything")).hits, []);
        assert.deepEqual((await ghost.search("anything")).hits, []);
        assert.deepEqual((await ghost.stats()).memories, 0);
        assert.deepEqual((await ghost.history.ofFile("/memories/a.md")).entries, []);
      }
      assert.deepEqual(await engine.names(), [NAMESPACE]);
      // A write's store creates it, and later reads see what was written.
      await (await engine.get("ghost-0")).remember({ key: "k", text: "now here" });
      assert.equal((await (await engine.read("ghost-0")).get("k"))?.text, "now here");
      assert.deepEqual(await engine.names(), [NAMESPACE, "ghost-0"]);
    });

    test("refuses a name that is not a namespace's", async ({ engine }) => {
      for (const name of ["", "A", "-a", "a/b", "..", "a.b", "a b", "x".repeat(65), "é"]) {
        for (const call of [() => engine.get(name), () => engine.read(name)]) {
          assert.deepEqual(await refused(call), {
            code: "INVALID_ARGUMENT",
            message: `namespace ${JSON.stringify(name)} is not valid: use 1 to 64 of a-z, 0-9, '_' and '-', starting with a letter or digit`,
          });
        }
      }
      assert.deepEqual(await engine.names(), [NAMESPACE]);
    });

    const max = options.maxNamespaces;
    if (max !== undefined) {
      test(`refuses to create a namespace past the limit (${max}) with LIMIT_REACHED`, async ({
        engine,
      }) => {
        const names = [NAMESPACE];
        for (let i = 1; i < max; i++) {
          names.push(`ns-${i}`);
          await (await engine.get(`ns-${i}`)).remember({ key: "k", text: "x" });
        }
        assert.deepEqual(await engine.names(), names.sort());
        assert.deepEqual(await refused(() => engine.get("one-more")), {
          code: "LIMIT_REACHED",
          message: `namespace one-more cannot be created: this server holds its most namespaces (${max}, --max-namespaces); use an existing namespace, or ask the operator to raise the limit`,
          limit: max,
        });
        assert.deepEqual(await engine.names(), names);
        // Existing namespaces still open at the limit, and reads still answer.
        assert.equal((await (await engine.get("ns-1")).get("k"))?.text, "x");
        assert.deepEqual((await (await engine.read("one-more")).list()).items, []);
      });
    }
  });
}
