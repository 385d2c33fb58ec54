import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "./sqlite/driver.js";
import { SCHEMA_VERSION } from "./sqlite/schema.js";
import { EXPORT_PAGE_BYTES, MemoryStore } from "./store.js";
import { refusal } from "./test-support.js";

let dir: string;
let store: MemoryStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-store-"));
  store = MemoryStore.open(join(dir, "store.sqlite"));
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("remember and get", () => {
  it("creates a record with a version, hash, size and times", () => {
    const text = "héllo\nworld";
    const result = store.remember({ key: "notes/a", text, tags: ["t1"], metadata: { n: 1 } });
    expect(result).toMatchObject({ key: "notes/a", bytes: 12, created: true });
    expect(result.version).toBeGreaterThanOrEqual(1);
    const record = store.get("notes/a");
    expect(record).toMatchObject({
      key: "notes/a",
      text,
      tags: ["t1"],
      metadata: { n: 1 },
      version: result.version,
      bytes: 12,
      hash: `sha256:${createHash("sha256").update(text).digest("hex")}`,
    });
    expect(record?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(record?.updated_at).toBe(record?.created_at);
    expect(result.hash).toBe(record?.hash);
  });

  it("replaces, incrementing the version and keeping omitted tags and metadata", () => {
    const first = store.remember({ key: "k", text: "one", tags: ["a", "b"], metadata: { x: 1 } });
    const second = store.remember({ key: "k", text: "two" });
    expect(second.created).toBe(false);
    expect(second.version).toBeGreaterThan(first.version);
    expect(store.get("k")).toMatchObject({ text: "two", tags: ["a", "b"], metadata: { x: 1 } });
    const third = store.remember({ key: "k", text: "three", tags: [], metadata: {} });
    expect(third.version).toBeGreaterThan(second.version);
    expect(store.get("k")).toMatchObject({ version: third.version, tags: [], metadata: {} });
    expect(store.list({ tag: "a" }).items).toEqual([]);
  });

  it("returns undefined for a missing key", () => {
    expect(store.get("missing")).toBeUndefined();
  });

  it("refuses if_absent on an existing key with EXISTS", () => {
    store.remember({ key: "k", text: "one" });
    const error = refusal(() => store.remember({ key: "k", text: "two", ifAbsent: true }));
    expect(error.code).toBe("EXISTS");
    expect(store.get("k")?.text).toBe("one");
    expect(store.remember({ key: "new", text: "x", ifAbsent: true }).created).toBe(true);
  });

  it("applies expected_version as compare-and-set", () => {
    const one = store.remember({ key: "k", text: "one" }).version;
    const two = store.remember({ key: "k", text: "two", expectedVersion: one }).version;
    const error = refusal(() => store.remember({ key: "k", text: "three", expectedVersion: one }));
    expect(error.code).toBe("VERSION_CONFLICT");
    expect(error.message).toBe(`k is at version ${two}, not the expected version ${one}`);
    expect(error.details).toEqual({ key: "k", current_version: two, expected_version: one });
    expect(store.get("k")).toMatchObject({ text: "two", version: two });
  });

  it("answers NOT_FOUND to expected_version on a missing key, and stores nothing", () => {
    const error = refusal(() => store.remember({ key: "k", text: "x", expectedVersion: 1 }));
    expect(error.code).toBe("NOT_FOUND");
    expect(store.get("k")).toBeUndefined();
  });

  it("refuses expected_version together with if_absent", () => {
    const error = refusal(() =>
      store.remember({ key: "k", text: "x", expectedVersion: 1, ifAbsent: true }),
    );
    expect(error.code).toBe("INVALID_ARGUMENT");
  });

  it("stores a text of exactly max_text_bytes and refuses one byte more", () => {
    const small = MemoryStore.open(join(dir, "small.sqlite"), { maxTextBytes: 10 });
    try {
      // "é" is 2 bytes in UTF-8: 4 × 2 + 2 = 10 bytes.
      expect(small.remember({ key: "fits", text: "éééé12" }).bytes).toBe(10);
      const error = refusal(() => small.remember({ key: "over", text: "éééé123" }));
      expect(error.code).toBe("TOO_LARGE");
      expect(error.message).toContain("11 bytes, over the limit of 10 bytes");
      expect(small.get("over")).toBeUndefined();
      expect(small.stats().memories).toBe(1);
    } finally {
      small.close();
    }
  });

  it("refuses bad keys with INVALID_ARGUMENT", () => {
    for (const key of [
      "",
      "a\u0000b",
      "tab\there",
      "del\u007f",
      "c1\u0085",
      "x".repeat(513),
      "\uD800",
    ]) {
      expect(refusal(() => store.remember({ key, text: "x" })).code).toBe("INVALID_ARGUMENT");
    }
    expect(store.remember({ key: "é".repeat(256), text: "x" }).key).toHaveLength(256);
    expect(store.stats().memories).toBe(1);
  });

  it("validates tags: characters, count and length", () => {
    expect(refusal(() => store.remember({ key: "k", text: "x", tags: ["a b"] })).code).toBe(
      "INVALID_ARGUMENT",
    );
    expect(refusal(() => store.remember({ key: "k", text: "x", tags: [""] })).code).toBe(
      "INVALID_ARGUMENT",
    );
    const many = Array.from({ length: 33 }, (_, i) => `t${i}`);
    expect(refusal(() => store.remember({ key: "k", text: "x", tags: many })).code).toBe(
      "TOO_LARGE",
    );
    expect(
      refusal(() => store.remember({ key: "k", text: "x", tags: ["a".repeat(65)] })).code,
    ).toBe("TOO_LARGE");
    expect(store.get("k")).toBeUndefined();
    store.remember({
      key: "k",
      text: "x",
      tags: ["A.b_c:d-1", "dup", "dup", ...many.slice(0, 30)],
    });
    expect(store.get("k")?.tags).toHaveLength(32);
  });

  it("validates metadata: an object of at most 8192 bytes", () => {
    for (const metadata of [[1], null, "s"]) {
      expect(
        refusal(() =>
          store.remember({
            key: "k",
            text: "x",
            metadata: metadata as unknown as Record<string, unknown>,
          }),
        ).code,
      ).toBe("INVALID_ARGUMENT");
    }
    // {"v":"..."} is 8 bytes of syntax plus the value.
    store.remember({ key: "fits", text: "x", metadata: { v: "a".repeat(8184) } });
    expect(
      refusal(() => store.remember({ key: "k", text: "x", metadata: { v: "a".repeat(8185) } }))
        .code,
    ).toBe("TOO_LARGE");
    expect(store.get("k")).toBeUndefined();
  });

  it("refuses metadata nested deeper than 32 levels, however deep, and stores nothing", () => {
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
    store.remember({ key: "fits", text: "x", metadata: nested(32) });
    expect(store.get("fits")?.metadata).toEqual(nested(32));
    const arrays = { a: JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`) as unknown };
    // 100000 levels would overflow the stack of a recursive check or of JSON.stringify.
    for (const metadata of [nested(33), arrays, nested(100_000)]) {
      const error = refusal(() => store.remember({ key: "k", text: "x", metadata }));
      expect(error.code).toBe("TOO_LARGE");
      expect(error.message).toBe("metadata nests deeper than 32 levels");
    }
    expect(store.get("k")).toBeUndefined();
  });

  it("refuses metadata whose keys and values outnumber its byte limit, without walking it all", () => {
    // 30 levels, each holding the next twice: 2^30 paths, though only 30 objects.
    let shared: Record<string, unknown> = {};
    for (let level = 0; level < 30; level++) shared = { l: shared, r: shared };
    const error = refusal(() => store.remember({ key: "k", text: "x", metadata: shared }));
    expect(error.code).toBe("TOO_LARGE");
    expect(error.message).toBe(
      "metadata holds more than 8192 keys and values, over the limit of 8192 bytes as JSON",
    );
  });

  it("refuses metadata holding a lone surrogate, in a key or a value, and stores nothing", () => {
    for (const metadata of [{ v: "a\ud800" }, { "\udc00": 1 }, { list: [{ deep: "\udbff" }] }]) {
      const error = refusal(() => store.remember({ key: "k", text: "x", metadata }));
      expect(error.code).toBe("INVALID_ARGUMENT");
      expect(error.message).toBe("metadata contains a lone UTF-16 surrogate");
    }
    expect(store.get("k")).toBeUndefined();
    store.remember({ key: "pair", text: "x", metadata: { "🧠": "🧠" } });
    expect(store.get("pair")?.metadata).toEqual({ "🧠": "🧠" });
  });

  it("keeps a __proto__ key of metadata as data", () => {
    const metadata = JSON.parse('{"__proto__":{"polluted":true},"n":1}') as Record<string, unknown>;
    store.remember({ key: "k", text: "x", metadata });
    const stored = store.get("k")?.metadata ?? {};
    expect(Object.hasOwn(stored, "__proto__")).toBe(true);
    expect(JSON.stringify(stored)).toBe('{"__proto__":{"polluted":true},"n":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("names DEL and C1 control characters of a refused key as escapes", () => {
    for (const [key, shown] of [
      ["a\u007fb", '"a\\u007fb"'],
      ["a\u009bb", '"a\\u009bb"'],
      ["a\u0000b", '"a\\u0000b"'],
    ]) {
      const error = refusal(() => store.remember({ key: key as string, text: "x" }));
      expect(error.message).toBe(`key ${shown} contains a control character`);
    }
  });

  it("round-trips any Unicode text, including NUL and emoji", () => {
    const text = "nul\u0000inside, emoji 🧠, CJK 記憶, RTL שלום\r\nend";
    store.remember({ key: "u", text });
    expect(store.get("u")?.text).toBe(text);
  });

  it("persists across close and reopen", () => {
    const { version } = store.remember({ key: "k", text: "durable", tags: ["t"] });
    store.close();
    store = MemoryStore.open(join(dir, "store.sqlite"));
    expect(store.get("k")).toMatchObject({ text: "durable", tags: ["t"], version });
    expect(store.recall("durable").hits[0]?.key).toBe("k");
  });
});

describe("versions are never reused for a key", () => {
  it("refuses a stale expected_version after the key is deleted and created again", () => {
    const old = store.remember({ key: "/memories/a.md", text: "old" }).version;
    store.forget("/memories/a.md");
    const created = store.remember({ key: "/memories/a.md", text: "new" });
    expect(created.created).toBe(true);
    expect(created.version).toBeGreaterThan(old);
    // A writer still holding version `old` of the deleted file must not overwrite the new one.
    const error = refusal(() =>
      store.remember({ key: "/memories/a.md", text: "stale edit", expectedVersion: old }),
    );
    expect(error.code).toBe("VERSION_CONFLICT");
    expect(error.details).toEqual({
      key: "/memories/a.md",
      current_version: created.version,
      expected_version: old,
    });
    expect(refusal(() => store.forget("/memories/a.md", { expectedVersion: old })).code).toBe(
      "VERSION_CONFLICT",
    );
    expect(store.get("/memories/a.md")).toMatchObject({ text: "new", version: created.version });
  });

  it("gives a key a version above all it had, after a prefix delete or a move onto it", () => {
    let highest = 0;
    for (let i = 0; i < 3; i++) highest = store.remember({ key: "p/k", text: `${i}` }).version;
    store.forgetPrefix("p/");
    expect(store.remember({ key: "p/k", text: "again" }).version).toBeGreaterThan(highest);

    highest = store.remember({ key: "target", text: "first" }).version;
    store.forget("target");
    store.remember({ key: "source", text: "moved" });
    store.move("source", "target");
    const moved = store.get("target")?.version ?? 0;
    expect(moved).toBeGreaterThan(highest);

    store.remember({ key: "dir/x", text: "x" });
    store.movePrefix("dir/", "other/");
    store.movePrefix("other/", "dir/");
    expect(store.get("dir/x")?.version).toBeGreaterThan(moved);
  });

  it("keeps one clock for every process on the file, and across reopening", () => {
    const file = join(dir, "store.sqlite");
    const other = MemoryStore.open(file);
    try {
      const seen: number[] = [];
      for (let i = 0; i < 4; i++) {
        seen.push(store.remember({ key: "shared", text: `a${i}` }).version);
        other.forget("shared");
        seen.push(other.remember({ key: "shared", text: `b${i}` }).version);
      }
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(new Set(seen).size).toBe(seen.length);
    } finally {
      other.close();
    }
    const last = store.get("shared")?.version ?? Number.POSITIVE_INFINITY;
    store.forget("shared");
    store.close();
    store = MemoryStore.open(file);
    expect(store.remember({ key: "shared", text: "after reopen" }).version).toBeGreaterThan(last);
  });
});

describe("list and export", () => {
  it("orders keys by code point and pages with an opaque cursor", () => {
    // Code point order puts U+FF5E before U+1F600, unlike UTF-16 code unit order.
    const keys = ["b", "a", "é", "\u{1F600}", "\uFF5E", "a/b", "A"];
    for (const key of keys) store.remember({ key, text: key });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = store.list({ limit: 3, cursor });
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((item) => item.key));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(["A", "a", "a/b", "b", "é", "\uFF5E", "\u{1F600}"]);
  });

  it("treats LIKE and GLOB wildcards in a prefix literally", () => {
    for (const key of ["a%b", "a_b", "axb", "a*c", "a?c", "a[c", "ab"]) {
      store.remember({ key, text: "x" });
    }
    const keysUnder = (prefix: string) => store.list({ prefix }).items.map((item) => item.key);
    expect(keysUnder("a%")).toEqual(["a%b"]);
    expect(keysUnder("a_")).toEqual(["a_b"]);
    expect(keysUnder("a*")).toEqual(["a*c"]);
    expect(keysUnder("a?")).toEqual(["a?c"]);
    expect(keysUnder("a[")).toEqual(["a[c"]);
    expect(keysUnder("")).toHaveLength(7);
  });

  it("handles a prefix ending in the highest code point", () => {
    store.remember({ key: "z\u{10FFFF}a", text: "x" });
    store.remember({ key: "z\u{10FFFF}", text: "x" });
    store.remember({ key: "{", text: "x" });
    expect(store.list({ prefix: "z\u{10FFFF}" }).items.map((item) => item.key)).toEqual([
      "z\u{10FFFF}",
      "z\u{10FFFF}a",
    ]);
  });

  it("filters by tag, and reports sizes, versions and tags", () => {
    store.remember({ key: "m1", text: "abc", tags: ["keep"] });
    store.remember({ key: "m2", text: "abcd", tags: ["other"] });
    const { version } = store.remember({ key: "m1", text: "abcdef" });
    expect(store.list({ tag: "keep" }).items).toEqual([
      expect.objectContaining({ key: "m1", bytes: 6, version, tags: ["keep"] }),
    ]);
  });

  it("refuses a cursor it did not make", () => {
    for (const cursor of ["nope", "k1.", "k1.***", "k1.YQ=="]) {
      expect(refusal(() => store.list({ cursor })).code).toBe("INVALID_ARGUMENT");
    }
  });

  it("refuses a limit outside 1 to 1000", () => {
    for (const limit of [0, 1001, 1.5]) {
      expect(refusal(() => store.list({ limit })).code).toBe("INVALID_ARGUMENT");
    }
  });

  it("exports whole records, a page at a time", () => {
    for (let i = 0; i < 5; i++) store.remember({ key: `e${i}`, text: `text ${i}`, tags: ["x"] });
    store.remember({ key: "other", text: "y" });
    const first = store.export({ prefix: "e", limit: 3 });
    expect(first.memories.map((m) => m.key)).toEqual(["e0", "e1", "e2"]);
    expect(first.memories[0]).toEqual(store.get("e0"));
    expect(first.memories[0]).toMatchObject({ text: "text 0", tags: ["x"] });
    const second = store.export({ prefix: "e", limit: 3, cursor: first.next_cursor ?? "" });
    expect(second.memories.map((m) => m.key)).toEqual(["e3", "e4"]);
    expect(second.next_cursor).toBeNull();
  });

  it("ends an export page early when its memories reach EXPORT_PAGE_BYTES", () => {
    const big = MemoryStore.open(join(dir, "big.sqlite"), { maxTextBytes: 5 * 1024 * 1024 });
    try {
      const text = "x".repeat(100 * 1024);
      for (let i = 0; i < 5; i++) big.remember({ key: `big${i}`, text });
      big.remember({ key: "big5", text: "y".repeat(50 * 1024) });
      big.remember({ key: "big6", text: "z".repeat(512 * 1024) });
      const keys: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = big.export({ limit: 1000, cursor });
        keys.push(page.memories.map((m) => m.key));
        const bytes = page.memories.reduce(
          (sum, m) => sum + m.bytes + JSON.stringify(m.metadata).length,
          0,
        );
        if (page.memories.length > 1) expect(bytes).toBeLessThanOrEqual(EXPORT_PAGE_BYTES);
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
      // Two 100 KiB memories fit in 256 KiB, a third would not; a memory over it is a page.
      expect(keys).toEqual([["big0", "big1"], ["big2", "big3"], ["big4", "big5"], ["big6"]]);
    } finally {
      big.close();
    }
  });
});

describe("forget", () => {
  it("deletes one key, with an optional expected version", () => {
    const { version } = store.remember({ key: "k", text: "x" });
    expect(refusal(() => store.forget("k", { expectedVersion: version + 1 })).code).toBe(
      "VERSION_CONFLICT",
    );
    expect(store.forget("k", { expectedVersion: version })).toEqual({ deleted: 1 });
    expect(store.get("k")).toBeUndefined();
    expect(refusal(() => store.forget("k")).code).toBe("NOT_FOUND");
  });
});

describe("recall", () => {
  beforeEach(() => {
    store.remember({
      key: "/memories/pets.md",
      text: "# Pets\n\nThe user has two cats.\nThey are called Miso and Tofu.\n",
      tags: ["memory-file"],
    });
    store.remember({
      key: "/memories/work.md",
      text: "# Work\nAcme Corp prefers email follow-ups.\nNever call before 10am.",
      tags: ["memory-file"],
    });
    store.remember({ key: "note/cats", text: "cats cats cats everywhere", tags: ["scratch"] });
  });

  it("ranks the obviously relevant memory first, with higher scores first", () => {
    const { hits, build } = store.recall("How does Acme like to be followed up?");
    expect(build).toBe("lexical");
    expect(hits[0]?.key).toBe("/memories/work.md");
    for (let i = 1; i < hits.length; i++) {
      expect(hits[i - 1]?.score).toBeGreaterThanOrEqual(hits[i]?.score ?? 0);
    }
  });

  it("scores each hit by its BM25 as a share of the query's ceiling, not against the best hit", () => {
    // "cats" and "acme" are each held by some memories; "zeppelin" by none, so a memory can
    // match at most part of the query and the best hit stays well below 1.
    const { hits } = store.recall("cats acme zeppelin");
    expect(hits.map((hit) => hit.key)).toEqual([
      "/memories/work.md",
      "note/cats",
      "/memories/pets.md",
    ]);
    const db = openSqlite(join(dir, "store.sqlite"), { readOnly: true });
    try {
      const bm25 = new Map(
        (
          db
            .prepare(
              `SELECT m.key, -bm25(memories_fts) AS score FROM memories_fts
               JOIN memories m ON m.id = memories_fts.rowid
               WHERE memories_fts MATCH '"cats" OR "acme" OR "zeppelin"'`,
            )
            .all() as { key: string; score: number }[]
        ).map((row) => [row.key, row.score]),
      );
      // FTS5's IDF of each term (n = 3 memories; df 2, 1, 0), floored at 1e-6, and the most
      // BM25 a memory could score: every term, repeated without end.
      const idf = (df: number) => Math.max(1e-6, Math.log((3 - df + 0.5) / (df + 0.5)));
      const ceiling = 2.2 * (idf(2) + idf(1) + idf(0));
      for (const hit of hits) {
        const share = (bm25.get(hit.key) ?? Number.NaN) / ceiling;
        expect(hit.score).toBeCloseTo(Math.max(share, 0.001), 12);
      }
    } finally {
      db.close();
    }
    // Work matches one of the two informative words, in a memory longer than most.
    expect(hits[0]?.score).toBeGreaterThan(0.05);
    expect(hits[0]?.score).toBeLessThan(0.3);
    // "cats" is held by most memories: its IDF is FTS5's floor, so a memory holding only it
    // scores the least a hit can, never 0.
    expect(hits[1]?.score).toBe(0.001);
  });

  it("scores a memory holding every rare query word well, even as the only memory", () => {
    const single = MemoryStore.open(join(dir, "single.sqlite"));
    try {
      single.remember({ key: "/memories/acme.md", text: "Acme prefers email follow-ups." });
      // Every query word is in the one memory: its share of the ceiling is its term-frequency
      // factor, about 1 / (k1 + 1) for a word held once.
      const [whole] = single.recall("acme email").hits;
      expect(whole?.score).toBeGreaterThan(0.4);
      // A question whose other words are in no memory: the hit matches a small part of it.
      const [part] = single.recall("how to contact Acme").hits;
      expect(part?.key).toBe("/memories/acme.md");
      expect(part?.score).toBeLessThan(0.01);
    } finally {
      single.close();
    }
  });

  it("stems: 'following' finds 'follow-ups'", () => {
    expect(store.recall("following").hits.map((hit) => hit.key)).toEqual(["/memories/work.md"]);
  });

  it("filters by tag and by prefix", () => {
    expect(store.recall("cats", { tag: "memory-file" }).hits.map((hit) => hit.key)).toEqual([
      "/memories/pets.md",
    ]);
    expect(store.recall("cats", { prefix: "note/" }).hits.map((hit) => hit.key)).toEqual([
      "note/cats",
    ]);
    expect(store.recall("cats").hits).toHaveLength(2);
  });

  it("gives an excerpt and its 1-based inclusive line range", () => {
    const hit = store.recall("Miso", { tag: "memory-file" }).hits[0];
    expect(hit?.key).toBe("/memories/pets.md");
    const lines = store.get("/memories/pets.md")?.text.split("\n") ?? [];
    expect(hit?.excerpt).toBe(lines.slice((hit?.line_start ?? 0) - 1, hit?.line_end).join("\n"));
    expect(hit?.line_start).toBeLessThanOrEqual(4);
    expect(hit?.line_end).toBeGreaterThanOrEqual(4);
    expect(hit?.excerpt).toContain("Miso");
  });

  it("takes each hit's excerpt from that memory's own matched lines", () => {
    const own = MemoryStore.open(join(dir, "excerpts.sqlite"));
    try {
      // The word sits on line 2, 9 and 16 of three 20-line memories: each excerpt must come
      // from around its own line, whichever memory ranks first.
      const at = { "notes/a": 2, "notes/b": 9, "notes/c": 16 };
      for (const [key, line] of Object.entries(at)) {
        const lines = Array.from({ length: 20 }, (_, i) => `${key} filler line ${i + 1}`);
        lines[line - 1] = `the zephyr is on line ${line}`;
        own.remember({ key, text: lines.join("\n") });
      }
      const hits = own.recall("zephyr", { k: 3 }).hits;
      expect(hits).toHaveLength(3);
      for (const hit of hits) {
        const line = at[hit.key as keyof typeof at];
        expect(hit.excerpt).toContain(`the zephyr is on line ${line}`);
        expect(hit.line_start).toBeLessThanOrEqual(line);
        expect(hit.line_end).toBeGreaterThanOrEqual(line);
      }
    } finally {
      own.close();
    }
  });

  it("limits hits to k", () => {
    expect(store.recall("cats", { k: 1 }).hits).toHaveLength(1);
    expect(refusal(() => store.recall("cats", { k: 0 })).code).toBe("INVALID_ARGUMENT");
    expect(refusal(() => store.recall("cats", { k: 51 })).code).toBe("INVALID_ARGUMENT");
  });

  it("never raises a syntax error, whatever the query", () => {
    const hostile = [
      "",
      "   ",
      '"',
      '"unbalanced',
      "cats AND",
      "OR",
      "NOT cats",
      "NEAR(cats dogs, 2)",
      "cats*",
      "*",
      "^cats",
      "text:cats",
      "memories_fts:cats",
      "(cats",
      ")",
      "{cats}",
      "cats + - ! @ # $ % & = ~ ` | \\ / ; , . < >",
      "\u0000",
      "🐈🐈‍⬛",
      "記憶 猫",
      "кошки",
      "  AND OR NOT  ",
      "'",
      "a".repeat(5000),
      Array.from({ length: 500 }, (_, i) => `w${i}`).join(" "),
    ];
    for (const query of hostile) {
      const { hits } = store.recall(query);
      expect(Array.isArray(hits)).toBe(true);
    }
    expect(store.recall("NOT cats").hits.length).toBeGreaterThan(0);
    expect(store.recall("").hits).toEqual([]);
    expect(store.recall("🐈").hits).toEqual([]);
  });

  it("finds non-Latin words", () => {
    store.remember({ key: "ru", text: "кошки живут дома" });
    expect(store.recall("КОШКИ").hits[0]?.key).toBe("ru");
  });
});

describe("search", () => {
  it("finds literal text case-insensitively, line by line", () => {
    store.remember({ key: "a", text: "first line\nThe Special (case)\nspecial again" });
    store.remember({ key: "b", text: "nothing here" });
    expect(store.search("SPECIAL (").hits).toEqual([
      { key: "a", line: 2, snippet: "The Special (case)" },
    ]);
    expect(store.search("special").hits.map((hit) => hit.line)).toEqual([2, 3]);
    expect(store.search("special", { limit: 1 }).hits).toHaveLength(1);
    expect(store.search("%").hits).toEqual([]);
  });

  it("filters by prefix and tag, and refuses empty or multi-line text", () => {
    store.remember({ key: "p/1", text: "needle", tags: ["t"] });
    store.remember({ key: "q/1", text: "needle" });
    expect(store.search("needle", { prefix: "p/" }).hits.map((hit) => hit.key)).toEqual(["p/1"]);
    expect(store.search("needle", { tag: "t" }).hits.map((hit) => hit.key)).toEqual(["p/1"]);
    expect(refusal(() => store.search("")).code).toBe("INVALID_ARGUMENT");
    expect(refusal(() => store.search("a\nb")).code).toBe("INVALID_ARGUMENT");
  });

  it("matches non-ASCII letters regardless of case", () => {
    store.remember({ key: "g", text: "ΣΟΦΙΑ und Straße" });
    expect(store.search("σοφια").hits).toHaveLength(1);
    expect(store.search("STRASSE").hits).toHaveLength(0);
    expect(store.search("straße").hits).toHaveLength(1);
  });
});

describe("stats", () => {
  it("counts memories and bytes and names the recall build", () => {
    store.remember({ key: "a", text: "12345" });
    store.remember({ key: "b", text: "é" });
    expect(store.stats()).toEqual({
      memories: 2,
      bytes: 7,
      schema_version: SCHEMA_VERSION,
      recall: { build: "lexical", model: null, pending: 0 },
    });
  });
});

describe("memory files", () => {
  it("hold their keys to the memory-path rules, by key or by tag, storing nothing when refused", () => {
    for (const key of [
      "/memories/../etc/passwd",
      "/memories/.hidden",
      "/memories//double",
      "/memories/a%2fb",
      "/memories/back\\slash",
    ]) {
      const error = refusal(() => store.remember({ key, text: "x" }));
      expect({ key, code: error.code }).toEqual({ key, code: "INVALID_ARGUMENT" });
      expect(error.message).toContain("Invalid memory path");
    }
    // Tagged memory-file, so it must be a memory path even though the key looks ordinary.
    expect(
      refusal(() => store.remember({ key: "notes/x", text: "x", tags: ["memory-file"] })).code,
    ).toBe("INVALID_ARGUMENT");
    // Not a memory file: ordinary keys keep the ordinary rules.
    store.remember({ key: "/memories_backup/x", text: "x" });
    store.remember({ key: "/memories/ok.md", text: "x", tags: ["memory-file"] });
    expect(store.list().items.map((item) => item.key)).toEqual([
      "/memories/ok.md",
      "/memories_backup/x",
    ]);
  });

  it("cannot be moved or re-tagged onto an invalid path", () => {
    const before = [
      store.remember({ key: "/memories/dir/a.md", text: "x", tags: ["memory-file"] }),
      store.remember({ key: "plain", text: "x" }),
    ].map((written) => [written.key, written.version]);
    expect(refusal(() => store.move("/memories/dir/a.md", "elsewhere/a.md")).code).toBe(
      "INVALID_ARGUMENT",
    );
    expect(refusal(() => store.move("plain", "/memories/.secret")).code).toBe("INVALID_ARGUMENT");
    expect(refusal(() => store.movePrefix("/memories/dir/", "/memories/.dir/")).code).toBe(
      "INVALID_ARGUMENT",
    );
    expect(
      refusal(() => store.remember({ key: "plain", text: "y", tags: ["memory-file"] })).code,
    ).toBe("INVALID_ARGUMENT");
    expect(store.list().items.map((item) => [item.key, item.version])).toEqual(before);
  });
});

describe("rememberMany", () => {
  it("writes all in one transaction, or nothing when one is refused", () => {
    const results = store.rememberMany([
      { key: "bulk/1", text: "one" },
      { key: "bulk/2", text: "two", tags: ["b"] },
      { key: "bulk/1", text: "one again" },
    ]);
    expect(results.map((r) => [r.key, r.created])).toEqual([
      ["bulk/1", true],
      ["bulk/2", true],
      ["bulk/1", false],
    ]);
    const [one, , again] = results;
    expect(again?.version).toBeGreaterThan(one?.version ?? Number.POSITIVE_INFINITY);
    expect(store.get("bulk/1")?.version).toBe(again?.version);
    const error = refusal(() =>
      store.rememberMany([
        { key: "bulk/3", text: "three" },
        { key: "bulk/2", text: "conflict", expectedVersion: 7 },
      ]),
    );
    expect(error.code).toBe("VERSION_CONFLICT");
    expect(store.get("bulk/3")).toBeUndefined();
    expect(
      refusal(() =>
        store.rememberMany([
          { key: "bulk/4", text: "x" },
          { key: "", text: "x" },
        ]),
      ).code,
    ).toBe("INVALID_ARGUMENT");
    expect(store.get("bulk/4")).toBeUndefined();
  });
});

describe("durability setting", () => {
  it("is synchronous = FULL by default, NORMAL on request, and refuses anything else", () => {
    expect(store.synchronous).toBe("full");
    const normal = MemoryStore.open(join(dir, "normal.sqlite"), { synchronous: "normal" });
    try {
      expect(normal.synchronous).toBe("normal");
      normal.remember({ key: "k", text: "kept" });
      expect(normal.get("k")?.text).toBe("kept");
    } finally {
      normal.close();
    }
    const error = refusal(() =>
      MemoryStore.open(join(dir, "bad.sqlite"), { synchronous: "off" as "full" }),
    );
    expect(error.message).toBe("synchronous must be one of full, normal, got off");
  });
});
