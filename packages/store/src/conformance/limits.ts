/**
 * Limits and input checks: the text size (TOO_LARGE with its message), keys, tags and metadata,
 * each refusal storing nothing.
 */
import assert from "node:assert/strict";
import { DEFAULT_LIMITS } from "../limits.js";
import {
  freshTest,
  keys,
  refusal,
  refused,
  type StoreConformanceOptions,
  type TestApi,
} from "./support.js";

export function limitTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);
  const maxText = options.maxTextBytes ?? DEFAULT_LIMITS.maxTextBytes;

  t.describe("limits", () => {
    test("stores a text of exactly the limit and refuses one byte more with TOO_LARGE", async ({
      store,
    }) => {
      // "é" is 2 bytes in UTF-8: the limit reached with a multi-byte character in the text.
      const fits = `é${"x".repeat(maxText - 2)}`;
      assert.equal((await store.remember({ key: "fits", text: fits })).bytes, maxText);
      assert.deepEqual(await refused(() => store.remember({ key: "over", text: `${fits}y` })), {
        code: "TOO_LARGE",
        message: `text is ${maxText + 1} bytes, over the limit of ${maxText} bytes (max_text_bytes); split the content into smaller memories`,
        bytes: maxText + 1,
        limit: maxText,
      });
      const { version } = await store.remember({ key: "small", text: "x" });
      assert.equal(
        (await refusal(() => store.remember({ key: "small", text: `${fits}y` }))).code,
        "TOO_LARGE",
      );
      assert.equal((await store.get("small"))?.version, version);
      assert.deepEqual(await keys(store), ["fits", "small"]);
    });

    test("refuses bad keys with INVALID_ARGUMENT, and takes 512 bytes of any script", async ({
      store,
    }) => {
      const cases: [string, string][] = [
        ["", "key must not be empty"],
        ["a\u0000b", 'key "a\\u0000b" contains a control character'],
        ["tab\there", 'key "tab\\there" contains a control character'],
        ["del\u007f", 'key "del\\u007f" contains a control character'],
        ["c1\u0085", 'key "c1\\u0085" contains a control character'],
        ["\uD800", "key contains a lone UTF-16 surrogate"],
        ["x".repeat(513), `key "${"x".repeat(80)}…" is 513 bytes, over the limit of 512 bytes`],
      ];
      for (const [key, message] of cases) {
        for (const call of [
          () => store.remember({ key, text: "x" }),
          () => store.get(key),
          () => store.forget(key),
        ]) {
          const error = await refusal(call);
          assert.deepEqual([error.code, error.message], ["INVALID_ARGUMENT", message]);
        }
      }
      assert.equal((await store.remember({ key: "é".repeat(256), text: "x" })).key.length, 256);
      assert.deepEqual(await keys(store), ["é".repeat(256)]);
    });

    test("checks tags: characters, count, length; repeats are dropped", async ({ store }) => {
      const cases: [string[], string, string][] = [
        [
          ["a b"],
          "INVALID_ARGUMENT",
          `tag "a b" may only contain letters, digits, '.', '_', ':' and '-'`,
        ],
        [[""], "INVALID_ARGUMENT", "a tag must not be empty"],
        [
          Array.from({ length: 33 }, (_, i) => `t${i}`),
          "TOO_LARGE",
          "33 tags, over the limit of 32 tags per memory",
        ],
        [
          ["a".repeat(65)],
          "TOO_LARGE",
          `tag "${"a".repeat(65)}" is 65 bytes, over the limit of 64 bytes`,
        ],
      ];
      for (const [tags, code, message] of cases) {
        const error = await refusal(() => store.remember({ key: "k", text: "x", tags }));
        assert.deepEqual([error.code, error.message], [code, message]);
      }
      assert.equal(await store.get("k"), undefined);
      const many = Array.from({ length: 30 }, (_, i) => `t${i}`);
      await store.remember({ key: "k", text: "x", tags: ["A.b_c:d-1", "dup", "dup", ...many] });
      assert.deepEqual((await store.get("k"))?.tags, ["A.b_c:d-1", "dup", ...many]);
      const bad = await refusal(() => store.list({ tag: "a b" }));
      assert.equal(bad.code, "INVALID_ARGUMENT");
    });

    test("checks metadata: a JSON object of at most 8192 bytes", async ({ store }) => {
      for (const metadata of [[1], null, "s"]) {
        const error = await refusal(() =>
          store.remember({
            key: "k",
            text: "x",
            metadata: metadata as unknown as Record<string, unknown>,
          }),
        );
        assert.deepEqual(
          [error.code, error.message],
          ["INVALID_ARGUMENT", "metadata must be a JSON object"],
        );
      }
      // {"v":"..."} is 8 bytes of syntax plus the value.
      await store.remember({ key: "fits", text: "x", metadata: { v: "a".repeat(8184) } });
      assert.deepEqual(
        await refused(() =>
          store.remember({ key: "k", text: "x", metadata: { v: "a".repeat(8185) } }),
        ),
        {
          code: "TOO_LARGE",
          message: "metadata is 8193 bytes as JSON, over the limit of 8192 bytes",
          bytes: 8193,
          limit: 8192,
        },
      );
      assert.deepEqual(await keys(store), ["fits"]);
    });

    test("refuses metadata nested deeper than 32 levels, and lone surrogates", async ({
      store,
    }) => {
      const nested = (depth: number): Record<string, unknown> => {
        const root: Record<string, unknown> = {};
        let at = root;
        for (let level = 1; level < depth; level++) {
          const inner: Record<string, unknown> = {};
          at.a = inner;
          at = inner;
        }
        return root;
      };
      await store.remember({ key: "fits", text: "x", metadata: nested(32) });
      assert.deepEqual((await store.get("fits"))?.metadata, nested(32));
      const arrays = { a: JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`) as unknown };
      for (const metadata of [nested(33), arrays, nested(100_000)]) {
        const error = await refusal(() => store.remember({ key: "k", text: "x", metadata }));
        assert.deepEqual(
          [error.code, error.message],
          ["TOO_LARGE", "metadata nests deeper than 32 levels"],
        );
      }
      for (const metadata of [{ v: "a\ud800" }, { "\udc00": 1 }, { list: [{ deep: "\udbff" }] }]) {
        const error = await refusal(() => store.remember({ key: "k", text: "x", metadata }));
        assert.deepEqual(
          [error.code, error.message],
          ["INVALID_ARGUMENT", "metadata contains a lone UTF-16 surrogate"],
        );
      }
      assert.equal(await store.get("k"), undefined);
      await store.remember({ key: "pair", text: "x", metadata: { "🧠": "🧠" } });
      assert.deepEqual((await store.get("pair"))?.metadata, { "🧠": "🧠" });
    });

    test("refuses a text with a lone surrogate, and a text that is not a string", async ({
      store,
    }) => {
      const lone = await refusal(() => store.remember({ key: "k", text: "a\udc00b" }));
      assert.deepEqual(
        [lone.code, lone.message],
        ["INVALID_ARGUMENT", "text contains a lone UTF-16 surrogate"],
      );
      const number = await refusal(() =>
        store.remember({ key: "k", text: 42 as unknown as string }),
      );
      assert.deepEqual(
        [number.code, number.message],
        ["INVALID_ARGUMENT", "text must be a string"],
      );
      assert.equal(await store.get("k"), undefined);
    });
  });
}
