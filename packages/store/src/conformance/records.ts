/**
 * Records and compare-and-set: remember and get, replace, the preconditions and each refusal,
 * versions that never come back, rememberMany all or nothing, forget.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  everything,
  freshTest,
  refusal,
  refused,
  type StoreConformanceOptions,
  type TestApi,
} from "./support.js";

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export function recordTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("remember and get", () => {
    test("creates a record with tags, metadata, a version, hash, size and times", async ({
      store,
    }) => {
      const text = "héllo\nworld";
      const result = await store.remember({
        key: "notes/a",
        text,
        tags: ["t1", "t2"],
        metadata: { n: 1, nested: { list: [1, "two", null, true] } },
      });
      assert.equal(result.key, "notes/a");
      assert.equal(result.bytes, 12);
      assert.equal(result.created, true);
      assert.ok(Number.isSafeInteger(result.version) && result.version >= 1, "version >= 1");
      const hash = `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
      assert.equal(result.hash, hash);
      assert.match(result.updated_at, ISO_TIME);
      const record = await store.get("notes/a");
      assert.deepEqual(record, {
        key: "notes/a",
        text,
        tags: ["t1", "t2"],
        metadata: { n: 1, nested: { list: [1, "two", null, true] } },
        version: result.version,
        hash,
        bytes: 12,
        created_at: result.updated_at,
        updated_at: result.updated_at,
      });
    });

    test("replaces with a greater version, keeping omitted tags and metadata", async ({
      store,
    }) => {
      const first = await store.remember({
        key: "k",
        text: "one",
        tags: ["a", "b"],
        metadata: { x: 1 },
      });
      const second = await store.remember({ key: "k", text: "two" });
      assert.equal(second.created, false);
      assert.ok(second.version > first.version, "a replace takes a greater version");
      const kept = await store.get("k");
      assert.deepEqual(
        { text: kept?.text, tags: kept?.tags, metadata: kept?.metadata },
        { text: "two", tags: ["a", "b"], metadata: { x: 1 } },
      );
      const third = await store.remember({ key: "k", text: "three", tags: [], metadata: {} });
      assert.ok(third.version > second.version);
      const cleared = await store.get("k");
      assert.deepEqual(
        { version: cleared?.version, tags: cleared?.tags, metadata: cleared?.metadata },
        { version: third.version, tags: [], metadata: {} },
      );
      assert.deepEqual((await store.list({ tag: "a" })).items, []);
    });

    test("keeps created_at on a replace and moves updated_at", async ({ store }) => {
      const created = await store.remember({ key: "k", text: "one" });
      await new Promise((resolve) => setTimeout(resolve, 25));
      const replaced = await store.remember({ key: "k", text: "two" });
      const record = await store.get("k");
      assert.equal(record?.created_at, created.updated_at);
      assert.equal(record?.updated_at, replaced.updated_at);
      assert.ok(replaced.updated_at > created.updated_at, "updated_at moves on");
    });

    test("answers undefined for a missing key", async ({ store }) => {
      assert.equal(await store.get("missing"), undefined);
    });

    test("round-trips any Unicode text, including NUL, CRLF and emoji", async ({ store }) => {
      const texts = ["", "nul\u0000inside, emoji 🧠, CJK 記憶, RTL שלום\r\nend", " spaced \n"];
      for (const [i, text] of texts.entries()) {
        await store.remember({ key: `u${i}`, text });
        assert.equal((await store.get(`u${i}`))?.text, text);
      }
    });

    test("keeps a __proto__ key of metadata as data", async ({ store }) => {
      const metadata = JSON.parse('{"__proto__":{"polluted":true},"n":1}') as Record<
        string,
        unknown
      >;
      await store.remember({ key: "k", text: "x", metadata });
      const stored = (await store.get("k"))?.metadata ?? {};
      assert.ok(Object.hasOwn(stored, "__proto__"));
      assert.equal(JSON.stringify(stored), '{"__proto__":{"polluted":true},"n":1}');
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  });

  t.describe("compare-and-set", () => {
    test("ifAbsent creates, and refuses an existing key with EXISTS", async ({ store }) => {
      assert.equal((await store.remember({ key: "new", text: "x", ifAbsent: true })).created, true);
      const { version } = await store.remember({ key: "k", text: "one" });
      assert.deepEqual(
        await refused(() => store.remember({ key: "k", text: "two", ifAbsent: true })),
        {
          code: "EXISTS",
          message: `k already exists (at version ${version})`,
          key: "k",
          current_version: version,
        },
      );
      assert.equal((await store.get("k"))?.text, "one");
    });

    test("expectedVersion writes at that version and refuses any other", async ({ store }) => {
      const one = (await store.remember({ key: "k", text: "one" })).version;
      const two = (await store.remember({ key: "k", text: "two", expectedVersion: one })).version;
      assert.ok(two > one);
      assert.deepEqual(
        await refused(() => store.remember({ key: "k", text: "three", expectedVersion: one })),
        {
          code: "VERSION_CONFLICT",
          message: `k is at version ${two}, not the expected version ${one}`,
          key: "k",
          current_version: two,
          expected_version: one,
        },
      );
      const kept = await store.get("k");
      assert.deepEqual([kept?.text, kept?.version], ["two", two]);
    });

    test("expectedVersion on a missing key is NOT_FOUND and stores nothing", async ({ store }) => {
      assert.deepEqual(
        await refused(() => store.remember({ key: "k", text: "x", expectedVersion: 1 })),
        {
          code: "NOT_FOUND",
          message: "k does not exist, so it cannot be at the expected version 1",
          key: "k",
          expected_version: 1,
        },
      );
      assert.equal(await store.get("k"), undefined);
    });

    test("expectedVersion together with ifAbsent is INVALID_ARGUMENT", async ({ store }) => {
      await store.remember({ key: "k", text: "x" });
      for (const key of ["k", "missing"]) {
        const error = await refusal(() =>
          store.remember({ key, text: "y", expectedVersion: 1, ifAbsent: true }),
        );
        assert.equal(error.code, "INVALID_ARGUMENT");
        assert.equal(
          error.message,
          "expected_version and if_absent are mutually exclusive: a key cannot both exist at a version and not exist",
        );
      }
      assert.equal((await store.get("k"))?.text, "x");
      assert.equal(await store.get("missing"), undefined);
    });

    test("expectedVersion must be a positive integer", async ({ store }) => {
      await store.remember({ key: "k", text: "x" });
      for (const expectedVersion of [0, -1, 1.5, Number.NaN]) {
        const error = await refusal(() => store.remember({ key: "k", text: "y", expectedVersion }));
        assert.equal(error.code, "INVALID_ARGUMENT");
        assert.equal(
          error.message,
          `expected_version must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}`,
        );
      }
      assert.equal((await store.get("k"))?.text, "x");
    });
  });

  t.describe("versions are never reused for a key", () => {
    test("refuses a stale version after the key is deleted and created again", async ({
      store,
    }) => {
      const old = (await store.remember({ key: "/memories/a.md", text: "old" })).version;
      await store.forget("/memories/a.md");
      const created = await store.remember({ key: "/memories/a.md", text: "new" });
      assert.equal(created.created, true);
      assert.ok(created.version > old, "a re-created key takes a greater version");
      assert.deepEqual(
        await refused(() =>
          store.remember({ key: "/memories/a.md", text: "stale", expectedVersion: old }),
        ),
        {
          code: "VERSION_CONFLICT",
          message: `/memories/a.md is at version ${created.version}, not the expected version ${old}`,
          key: "/memories/a.md",
          current_version: created.version,
          expected_version: old,
        },
      );
      assert.equal(
        (await refusal(() => store.forget("/memories/a.md", { expectedVersion: old }))).code,
        "VERSION_CONFLICT",
      );
      const kept = await store.get("/memories/a.md");
      assert.deepEqual([kept?.text, kept?.version], ["new", created.version]);
    });

    test("after a prefix delete, a move onto the key, and a prefix move back", async ({
      store,
    }) => {
      let highest = 0;
      for (let i = 0; i < 3; i++) {
        highest = (await store.remember({ key: "p/k", text: `${i}` })).version;
      }
      await store.forgetPrefix("p/");
      assert.ok((await store.remember({ key: "p/k", text: "again" })).version > highest);

      highest = (await store.remember({ key: "target", text: "first" })).version;
      await store.forget("target");
      await store.remember({ key: "source", text: "moved" });
      await store.move("source", "target");
      const moved = (await store.get("target"))?.version ?? 0;
      assert.ok(moved > highest, "a move onto a key takes a greater version");

      await store.remember({ key: "dir/x", text: "x" });
      await store.movePrefix("dir/", "other/");
      await store.movePrefix("other/", "dir/");
      assert.ok(((await store.get("dir/x"))?.version ?? 0) > moved);
    });

    test("grow with every write of the store, whichever key", async ({ store }) => {
      const seen: number[] = [];
      for (let i = 0; i < 4; i++) {
        seen.push((await store.remember({ key: `k${i % 2}`, text: `${i}` })).version);
      }
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => a - b),
      );
      assert.equal(new Set(seen).size, seen.length);
    });
  });

  t.describe("rememberMany", () => {
    test("applies every write in order, in one transaction", async ({ store }) => {
      const results = await store.rememberMany([
        { key: "bulk/1", text: "one" },
        { key: "bulk/2", text: "two", tags: ["b"] },
        { key: "bulk/1", text: "one again" },
      ]);
      assert.deepEqual(
        results.map((r) => [r.key, r.created]),
        [
          ["bulk/1", true],
          ["bulk/2", true],
          ["bulk/1", false],
        ],
      );
      const [one, , again] = results;
      assert.ok((again?.version ?? 0) > (one?.version ?? Number.POSITIVE_INFINITY));
      assert.equal((await store.get("bulk/1"))?.version, again?.version);
      assert.deepEqual((await store.get("bulk/1"))?.text, "one again");
    });

    test("stores none of the writes when one is refused, with that write's error", async ({
      store,
    }) => {
      await store.remember({ key: "bulk/2", text: "two" });
      const before = await everything(store);
      const conflict = await refusal(() =>
        store.rememberMany([
          { key: "bulk/3", text: "three" },
          { key: "bulk/2", text: "conflict", expectedVersion: 999_999 },
        ]),
      );
      assert.equal(conflict.code, "VERSION_CONFLICT");
      assert.deepEqual(conflict.details, {
        key: "bulk/2",
        current_version: before[0]?.version,
        expected_version: 999_999,
      });
      const invalid = await refusal(() =>
        store.rememberMany([
          { key: "bulk/4", text: "x" },
          { key: "", text: "x" },
        ]),
      );
      assert.equal(invalid.code, "INVALID_ARGUMENT");
      const exists = await refusal(() =>
        store.rememberMany([
          { key: "bulk/5", text: "x" },
          { key: "bulk/5", text: "again", ifAbsent: true },
        ]),
      );
      assert.equal(exists.code, "EXISTS");
      assert.deepEqual(await everything(store), before);
    });
  });

  t.describe("forget", () => {
    test("deletes one key, with an optional expected version", async ({ store }) => {
      const { version } = await store.remember({ key: "k", text: "x" });
      await store.remember({ key: "k2", text: "beside" });
      assert.deepEqual(
        await refused(() => store.forget("k", { expectedVersion: version + 1000 })),
        {
          code: "VERSION_CONFLICT",
          message: `k is at version ${version}, not the expected version ${version + 1000}`,
          key: "k",
          current_version: version,
          expected_version: version + 1000,
        },
      );
      assert.deepEqual(await store.forget("k", { expectedVersion: version }), { deleted: 1 });
      assert.equal(await store.get("k"), undefined);
      assert.deepEqual(await refused(() => store.forget("k")), {
        code: "NOT_FOUND",
        message: "k does not exist",
        key: "k",
      });
      assert.equal((await store.get("k2"))?.text, "beside");
    });
  });
}
