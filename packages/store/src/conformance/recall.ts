/**
 * Recall, literal search and stats. Ranking and excerpts are tuned over time, so recall is
 * pinned on clear examples only: which memory ranks first, that scores lie in (0, 1] and never
 * grow down the list, that a weak match scores low whatever the other hits, that an excerpt is the verbatim lines of its 1-based range and holds the
 * word asked for; never exact scores.
 */
import assert from "node:assert/strict";
import type { StoreApi } from "../engine.js";
import { MAX_QUERY_BYTES, MAX_SEARCH_CHARS, type RecallResult } from "../types.js";
import { FILE, freshTest, refusal, type StoreConformanceOptions, type TestApi } from "./support.js";

/** Three memories: two memory files and a scratch note. */
async function seed(store: StoreApi): Promise<void> {
  await store.remember({
    key: "/memories/pets.md",
    text: "# Pets\n\nThe user has two cats.\nThey are called Miso and Tofu.\n",
    tags: FILE,
  });
  await store.remember({
    key: "/memories/work.md",
    text: "# Work\nAcme Corp prefers email follow-ups.\nNever call before 10am.",
    tags: FILE,
  });
  await store.remember({ key: "note/cats", text: "cats cats cats everywhere", tags: ["scratch"] });
}

/** Checks what holds of every answer: scores in (0, 1], best first, excerpts from their lines. */
async function wellFormed(store: StoreApi, result: RecallResult): Promise<void> {
  let previous = Number.POSITIVE_INFINITY;
  for (const hit of result.hits) {
    assert.ok(hit.score > 0 && hit.score <= 1, `score ${hit.score} of ${hit.key} in (0, 1]`);
    assert.ok(hit.score <= previous, "hits come best first");
    previous = hit.score;
    const lines = (await store.get(hit.key))?.text.split("\n") ?? [];
    assert.ok(
      hit.line_start >= 1 && hit.line_start <= hit.line_end && hit.line_end <= lines.length,
      `line range ${hit.line_start}-${hit.line_end} of ${hit.key} within its ${lines.length} lines`,
    );
    const range = lines.slice(hit.line_start - 1, hit.line_end).join("\n");
    assert.ok(range.includes(hit.excerpt), `the excerpt of ${hit.key} lies in its line range`);
  }
  assert.equal(new Set(result.hits.map((hit) => hit.key)).size, result.hits.length);
}

export function recallTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("recall", () => {
    test("ranks the obviously relevant memory first, lexically without a vector", async ({
      store,
    }) => {
      await seed(store);
      const result = await store.recall("How does Acme like to be followed up?");
      assert.equal(result.build, "lexical");
      assert.equal(result.hits[0]?.key, "/memories/work.md");
      await wellFormed(store, result);
      const cats = await store.recall("cats");
      assert.deepEqual(
        cats.hits.map((hit) => hit.key),
        ["note/cats", "/memories/pets.md"],
      );
      await wellFormed(store, cats);
    });

    test("scores a hit on its own, not against the best hit: a weak best match scores low", async ({
      store,
    }) => {
      await seed(store);
      // "cats" is held by two of the three memories and "zeppelin" by none: no memory holds
      // the query's informative word, so even the best hit scores next to nothing.
      const weak = await store.recall("cats zeppelin");
      assert.equal(weak.hits.length, 2);
      assert.ok((weak.hits[0]?.score ?? 1) < 0.01, `best score ${weak.hits[0]?.score} below 0.01`);
      await wellFormed(store, weak);
      // A memory holding the only query word that few memories hold scores far higher.
      const strong = await store.recall("Miso");
      assert.equal(strong.hits[0]?.key, "/memories/pets.md");
      assert.ok((strong.hits[0]?.score ?? 0) > 0.2, `score ${strong.hits[0]?.score} above 0.2`);
    });

    test("gives an excerpt holding the word and its 1-based inclusive line range", async ({
      store,
    }) => {
      await seed(store);
      const result = await store.recall("Miso", { tag: "memory-file" });
      const hit = result.hits[0];
      assert.equal(hit?.key, "/memories/pets.md");
      assert.ok(hit !== undefined && hit.line_start <= 4 && hit.line_end >= 4, "line 4 in range");
      assert.match(hit?.excerpt ?? "", /Miso/);
      await wellFormed(store, result);
    });

    test("takes each hit's excerpt from that memory's own matched lines", async ({ store }) => {
      // The word sits on line 2, 9 and 16 of three 20-line memories.
      const at = { "notes/a": 2, "notes/b": 9, "notes/c": 16 };
      for (const [key, line] of Object.entries(at)) {
        const lines = Array.from({ length: 20 }, (_, i) => `${key} filler line ${i + 1}`);
        lines[line - 1] = `the zephyr is on line ${line}`;
        await store.remember({ key, text: lines.join("\n") });
      }
      const result = await store.recall("zephyr", { k: 3 });
      assert.equal(result.hits.length, 3);
      for (const hit of result.hits) {
        const line = at[hit.key as keyof typeof at];
        assert.match(hit.excerpt, new RegExp(`the zephyr is on line ${line}`));
        assert.ok(hit.line_start <= line && hit.line_end >= line, `line ${line} of ${hit.key}`);
      }
      await wellFormed(store, result);
    });

    test("filters by tag and by prefix", async ({ store }) => {
      await seed(store);
      const byTag = await store.recall("cats", { tag: "memory-file" });
      assert.deepEqual(
        byTag.hits.map((hit) => hit.key),
        ["/memories/pets.md"],
      );
      const byPrefix = await store.recall("cats", { prefix: "note/" });
      assert.deepEqual(
        byPrefix.hits.map((hit) => hit.key),
        ["note/cats"],
      );
      assert.deepEqual((await store.recall("cats", { tag: "absent" })).hits, []);
    });

    test("answers at most k hits, k from 1 to 50", async ({ store }) => {
      await seed(store);
      assert.equal((await store.recall("cats", { k: 1 })).hits.length, 1);
      for (const k of [0, 51, 1.5]) {
        const error = await refusal(() => store.recall("cats", { k }));
        assert.deepEqual(
          [error.code, error.message],
          ["INVALID_ARGUMENT", "k must be an integer from 1 to 50"],
        );
      }
    });

    test("refuses a query over the size limit and a vector of the wrong type", async ({
      store,
    }) => {
      await seed(store);
      const long = await refusal(() => store.recall("a".repeat(MAX_QUERY_BYTES + 1)));
      assert.deepEqual(
        [long.code, long.message],
        ["INVALID_ARGUMENT", `query is over ${MAX_QUERY_BYTES} bytes`],
      );
      const vector = await refusal(() =>
        store.recall("cats", { vector: [0.5, 0.5] as unknown as Float32Array }),
      );
      assert.deepEqual(
        [vector.code, vector.message],
        ["INVALID_ARGUMENT", "a query vector must be a Float32Array"],
      );
      assert.equal((await store.recall("a".repeat(MAX_QUERY_BYTES))).build, "lexical");
    });

    test("a query with no words has no hits, and no query is a syntax error", async ({ store }) => {
      await seed(store);
      for (const query of ["", "   ", "🐈", "*", '"', "(", "-"]) {
        assert.deepEqual((await store.recall(query)).hits, [], JSON.stringify(query));
      }
      // Words of a query language are words here, and operators are nothing.
      for (const query of ["NOT cats", 'cats AND "unbalanced', "NEAR(cats dogs, 2)", "cats*"]) {
        const result = await store.recall(query);
        assert.ok(result.hits.length > 0, `${query} finds the cats`);
        await wellFormed(store, result);
      }
    });

    test("finds stemmed and non-Latin words, and moved and deleted memories as they are", async ({
      store,
    }) => {
      await seed(store);
      assert.deepEqual(
        (await store.recall("following")).hits.map((hit) => hit.key),
        ["/memories/work.md"],
      );
      await store.remember({ key: "ru", text: "кошки живут дома" });
      assert.equal((await store.recall("КОШКИ")).hits[0]?.key, "ru");
      await store.move("ru", "ru2");
      assert.deepEqual(
        (await store.recall("кошки")).hits.map((hit) => hit.key),
        ["ru2"],
      );
      await store.forget("ru2");
      assert.deepEqual((await store.recall("кошки")).hits, []);
      await store.remember({ key: "note/cats", text: "dogs only now" });
      assert.deepEqual(
        (await store.recall("cats")).hits.map((hit) => hit.key),
        ["/memories/pets.md"],
      );
    });
  });

  t.describe("search", () => {
    test("finds literal text case-insensitively, line by line, in key then line order", async ({
      store,
    }) => {
      await store.remember({ key: "b", text: "special first\nnothing\nSPECIAL again" });
      await store.remember({ key: "a", text: "first line\nThe Special (case)\nspecial again" });
      await store.remember({ key: "c", text: "nothing here" });
      assert.deepEqual((await store.search("SPECIAL (")).hits, [
        { key: "a", line: 2, snippet: "The Special (case)" },
      ]);
      assert.deepEqual(
        (await store.search("special")).hits.map((hit) => [hit.key, hit.line]),
        [
          ["a", 2],
          ["a", 3],
          ["b", 1],
          ["b", 3],
        ],
      );
      assert.deepEqual(
        (await store.search("special", { limit: 3 })).hits.map((hit) => [hit.key, hit.line]),
        [
          ["a", 2],
          ["a", 3],
          ["b", 1],
        ],
      );
      assert.deepEqual((await store.search("%")).hits, []);
      assert.deepEqual((await store.search("_")).hits, []);
    });

    test("filters by prefix and tag, and refuses empty or multi-line text", async ({ store }) => {
      await store.remember({ key: "p/1", text: "needle", tags: ["t"] });
      await store.remember({ key: "q/1", text: "needle" });
      assert.deepEqual(
        (await store.search("needle", { prefix: "p/" })).hits.map((hit) => hit.key),
        ["p/1"],
      );
      assert.deepEqual(
        (await store.search("needle", { tag: "t" })).hits.map((hit) => hit.key),
        ["p/1"],
      );
      const empty = await refusal(() => store.search(""));
      assert.deepEqual(
        [empty.code, empty.message],
        ["INVALID_ARGUMENT", "text to search for must be a non-empty string"],
      );
      const lines = await refusal(() => store.search("a\nb"));
      assert.deepEqual(
        [lines.code, lines.message],
        ["INVALID_ARGUMENT", "search matches within one line: text must not contain a line break"],
      );
      const long = await refusal(() => store.search("n".repeat(MAX_SEARCH_CHARS + 1)));
      assert.deepEqual(
        [long.code, long.message],
        ["INVALID_ARGUMENT", `text to search for is over ${MAX_SEARCH_CHARS} characters`],
      );
      const limit = await refusal(() => store.search("needle", { limit: 0 }));
      assert.equal(limit.code, "INVALID_ARGUMENT");
    });

    test("matches non-ASCII letters regardless of case", async ({ store }) => {
      await store.remember({ key: "g", text: "ΣΟΦΙΑ und Straße" });
      assert.equal((await store.search("σοφια")).hits.length, 1);
      assert.equal((await store.search("STRASSE")).hits.length, 0);
      assert.equal((await store.search("straße")).hits.length, 1);
    });
  });

  t.describe("stats", () => {
    test("counts memories and their UTF-8 bytes, and names a lexical build", async ({ store }) => {
      const empty = await store.stats();
      assert.deepEqual([empty.memories, empty.bytes], [0, 0]);
      await store.remember({ key: "a", text: "12345" });
      await store.remember({ key: "b", text: "é" });
      await store.remember({ key: "c", text: "gone" });
      await store.forget("c");
      await store.remember({ key: "a", text: "1234" });
      const stats = await store.stats();
      assert.deepEqual([stats.memories, stats.bytes], [2, 6]);
      assert.ok(Number.isInteger(stats.schema_version) && stats.schema_version >= 1);
      assert.deepEqual(stats.recall, { build: "lexical", model: null, pending: 0 });
    });
  });
}
