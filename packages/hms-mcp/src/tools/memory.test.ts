/**
 * Every tool's behaviour, through an MCP client linked in memory to the server running in this
 * process on a real store (the transports are tested end to end in test/e2e).
 */
import { basename, resolve } from "node:path";
import * as protocol from "@hms/protocol";
import * as store from "@hms/store";
import { SCHEMA_VERSION } from "@hms/store";
import { call, ok, refused, tempDir } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { connectInProcess } from "../../test/in-process.js";

interface Record {
  key: string;
  text: string;
  tags: string[];
  metadata: { [name: string]: unknown };
  version: number;
  hash: string;
  bytes: number;
  created_at: string;
  updated_at: string;
}

describe("every tool", () => {
  let client: Client;

  beforeAll(async () => {
    const connection = await connectInProcess();
    client = connection.client;
    return connection.close;
  });

  it("remember then get returns the whole record, with a text summary", async () => {
    const written = await ok(client, "remember", {
      key: "/memories/notes.md",
      text: "line one\nline two\n",
      tags: ["memory-file"],
      metadata: { source: "test" },
    });
    expect(written).toMatchObject({ key: "/memories/notes.md", bytes: 18, created: true });
    expect(written.version).toBeGreaterThanOrEqual(1);
    const result = await call(client, "get", { key: "/memories/notes.md" });
    expect(result.isError).toBeFalsy();
    const record = result.structuredContent as unknown as Record;
    expect(record).toMatchObject({
      text: "line one\nline two\n",
      tags: ["memory-file"],
      metadata: { source: "test" },
      version: written.version,
      hash: written.hash,
    });
    expect(result.content[0]).toMatchObject({ type: "text" });
    // The text travels once, in the structured content; the text block describes the memory.
    expect(result.content).toEqual([
      {
        type: "text",
        text: `/memories/notes.md (version ${written.version}, 18 bytes, tags: memory-file); its text is the structured content's text field`,
      },
    ]);
  });

  it("enforces compare-and-set: EXISTS, VERSION_CONFLICT, NOT_FOUND", async () => {
    const v1 = (await ok<Record>(client, "remember", { key: "cas/k", text: "v1" })).version;
    const exists = await refused(client, "remember", { key: "cas/k", text: "x", if_absent: true });
    expect(exists.meta).toEqual({
      code: "EXISTS",
      message: `cas/k already exists (at version ${v1})`,
      key: "cas/k",
      current_version: v1,
    });
    const v2 = (
      await ok<Record>(client, "remember", { key: "cas/k", text: "v2", expected_version: v1 })
    ).version;
    expect(v2).toBeGreaterThan(v1);
    const conflict = await refused(client, "remember", {
      key: "cas/k",
      text: "v3",
      expected_version: v1,
    });
    expect(conflict.text).toBe(
      `VERSION_CONFLICT: cas/k is at version ${v2}, not the expected version ${v1}`,
    );
    expect(conflict.meta).toEqual({
      code: "VERSION_CONFLICT",
      message: `cas/k is at version ${v2}, not the expected version ${v1}`,
      key: "cas/k",
      current_version: v2,
      expected_version: v1,
    });
    const absent = await refused(client, "remember", {
      key: "cas/none",
      text: "x",
      expected_version: 1,
    });
    expect(absent.code).toBe("NOT_FOUND");
    const both = await refused(client, "remember", {
      key: "cas/k",
      text: "x",
      expected_version: v2,
      if_absent: true,
    });
    expect(both.code).toBe("INVALID_ARGUMENT");
    expect((await ok<Record>(client, "get", { key: "cas/k" })).text).toBe("v2");
    expect((await refused(client, "get", { key: "cas/none" })).code).toBe("NOT_FOUND");
  });

  it("never reuses a version for a key, so a stale writer cannot overwrite a re-created key", async () => {
    const old = (await ok<Record>(client, "remember", { key: "/memories/reuse.md", text: "old" }))
      .version;
    await ok(client, "forget", { key: "/memories/reuse.md" });
    const created = await ok<Record & { created: boolean }>(client, "remember", {
      key: "/memories/reuse.md",
      text: "new",
    });
    expect(created.created).toBe(true);
    expect(created.version).toBeGreaterThan(old);
    const stale = await refused(client, "remember", {
      key: "/memories/reuse.md",
      text: "stale edit",
      expected_version: old,
    });
    expect(stale.meta).toEqual({
      code: "VERSION_CONFLICT",
      message: `/memories/reuse.md is at version ${created.version}, not the expected version ${old}`,
      key: "/memories/reuse.md",
      current_version: created.version,
      expected_version: old,
    });
    // A move onto a key that existed before also lands above every version it had.
    await ok(client, "remember", { key: "/memories/elsewhere.md", text: "moved in" });
    await ok(client, "forget", { key: "/memories/reuse.md" });
    await ok(client, "move", { from: "/memories/elsewhere.md", to: "/memories/reuse.md" });
    const moved = await ok<Record>(client, "get", { key: "/memories/reuse.md" });
    expect(moved).toMatchObject({ text: "moved in" });
    expect(moved.version).toBeGreaterThan(created.version);
  });

  it("stores exactly max_text_bytes and refuses one byte more, storing nothing", async () => {
    const stats = await ok<{ max_text_bytes: number }>(client, "stats");
    expect(stats.max_text_bytes).toBe(32768);
    // "€" is 3 UTF-8 bytes: the limit reached with multi-byte characters.
    const atLimit = `${"€".repeat(10000)}${"a".repeat(32768 - 30000)}`;
    const fits = await ok<Record>(client, "remember", { key: "size/fits", text: atLimit });
    expect(fits.bytes).toBe(32768);
    const over = await refused(client, "remember", { key: "size/over", text: `${atLimit}a` });
    expect(over.code).toBe("TOO_LARGE");
    expect(over.text).toContain("32769 bytes, over the limit of 32768");
    expect((await refused(client, "get", { key: "size/over" })).code).toBe("NOT_FOUND");
    const replace = await refused(client, "remember", { key: "size/fits", text: `${atLimit}!` });
    expect(replace.code).toBe("TOO_LARGE");
    expect((await ok<Record>(client, "get", { key: "size/fits" })).version).toBe(fits.version);
  });

  it("holds memory-file keys to @hms/memory-paths, whatever the client checked", async () => {
    for (const args of [
      { key: "/memories/../../etc/passwd", text: "x" },
      { key: "/memories/%2e%2e/x", text: "x" },
      { key: "/memories/.ssh/id", text: "x" },
      { key: "not/under/memories", text: "x", tags: ["memory-file"] },
    ]) {
      const error = await refused(client, "remember", args);
      expect(error.code).toBe("INVALID_ARGUMENT");
      expect(error.text).toContain("Invalid memory path");
    }
    await ok(client, "remember", { key: "/memories/ok/file.md", text: "x", tags: ["memory-file"] });
    expect(
      (await refused(client, "move", { from: "/memories/ok/file.md", to: "/memories/../x" })).code,
    ).toBe("INVALID_ARGUMENT");
  });

  it("lists in key order, by prefix and tag, a page at a time", async () => {
    for (const key of ["ls/b", "ls/a", "ls/c/1", "ls/c/2", "lsx"]) {
      await ok(client, "remember", { key, text: key, tags: key.startsWith("ls/c") ? ["c"] : [] });
    }
    const keys: string[] = [];
    let cursor: string | null = null;
    do {
      const page: {
        items: { key: string; bytes: number; version: number }[];
        next_cursor: string | null;
      } = await ok(client, "list", { prefix: "ls/", limit: 2, ...(cursor ? { cursor } : {}) });
      keys.push(...page.items.map((item) => item.key));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(keys).toEqual(["ls/a", "ls/b", "ls/c/1", "ls/c/2"]);
    const tagged = await ok<{
      items: { key: string; bytes: number; version: number; tags: string[] }[];
    }>(client, "list", { tag: "c" });
    expect(tagged.items).toEqual([
      expect.objectContaining({ key: "ls/c/1", bytes: 6, tags: ["c"] }),
      expect.objectContaining({ key: "ls/c/2", bytes: 6, tags: ["c"] }),
    ]);
    for (const item of tagged.items) {
      expect(item.version).toBe((await ok<Record>(client, "get", { key: item.key })).version);
    }
  });

  it("forgets a key (with expected version) or a whole prefix", async () => {
    let version = 0;
    for (const key of ["fg/a/1", "fg/a/2", "fg/a%", "fg/b"])
      version = (await ok<Record>(client, "remember", { key, text: "x" })).version;
    expect(
      (await refused(client, "forget", { key: "fg/b", expected_version: version + 1 })).code,
    ).toBe("VERSION_CONFLICT");
    expect(await ok(client, "forget", { key: "fg/b", expected_version: version })).toEqual({
      deleted: 1,
    });
    expect((await refused(client, "forget", { key: "fg/b" })).code).toBe("NOT_FOUND");
    expect(await ok(client, "forget", { prefix: "fg/a/" })).toEqual({ deleted: 2 });
    expect(await ok(client, "forget", { prefix: "fg/zzz" })).toEqual({ deleted: 0 });
    const left = await ok<{ items: { key: string }[] }>(client, "list", { prefix: "fg/" });
    expect(left.items.map((item) => item.key)).toEqual(["fg/a%"]);
  });

  it("moves a key or a prefix atomically", async () => {
    const a = await ok<Record>(client, "remember", { key: "mv/a", text: "alpha", tags: ["t"] });
    const dir1 = await ok<Record>(client, "remember", { key: "mv/dir/1", text: "one" });
    await ok(client, "remember", { key: "mv/dir/2", text: "two" });
    await ok(client, "remember", { key: "mv/taken/2", text: "in the way" });
    expect(
      await ok(client, "move", { from: "mv/a", to: "mv/b", expected_version: a.version }),
    ).toEqual({ moved: 1 });
    const b = await ok<Record>(client, "get", { key: "mv/b" });
    expect(b).toMatchObject({ text: "alpha", tags: ["t"] });
    expect(b.version).toBeGreaterThan(a.version);
    expect((await refused(client, "move", { from: "mv/a", to: "mv/c" })).code).toBe("NOT_FOUND");
    expect((await refused(client, "move", { from: "mv/b", to: "mv/dir/1" })).code).toBe("EXISTS");
    expect(
      (await refused(client, "move", { from: "mv/b", to: "mv/c", expected_version: a.version }))
        .code,
    ).toBe("VERSION_CONFLICT");
    const blocked = await refused(client, "move", {
      from_prefix: "mv/dir/",
      to_prefix: "mv/taken/",
    });
    expect(blocked.code).toBe("EXISTS");
    expect((await ok<Record>(client, "get", { key: "mv/dir/1" })).version).toBe(dir1.version);
    expect(
      (await refused(client, "move", { from_prefix: "mv/none/", to_prefix: "mv/x/" })).code,
    ).toBe("NOT_FOUND");
    expect(await ok(client, "move", { from_prefix: "mv/dir/", to_prefix: "mv/new/" })).toEqual({
      moved: 2,
    });
    const keys = await ok<{ items: { key: string }[] }>(client, "list", { prefix: "mv/" });
    expect(keys.items.map((item) => item.key)).toEqual([
      "mv/b",
      "mv/new/1",
      "mv/new/2",
      "mv/taken/2",
    ]);
  });

  it("recalls the relevant memory first, filters by tag, and gives correct line ranges", async () => {
    const pets =
      "# Pets\n\nThe user has two cats.\nThey are called Miso and Tofu.\nBoth are grey.\n";
    await ok(client, "remember", { key: "/memories/pets.md", text: pets, tags: ["memory-file"] });
    await ok(client, "remember", {
      key: "/memories/customers.md",
      text: "# Customers\nAcme Corp prefers email follow-ups.\nGlobex wants phone calls.",
      tags: ["memory-file"],
    });
    await ok(client, "remember", {
      key: "scratch/cats",
      text: "cats cats cats",
      tags: ["scratch"],
    });
    type Hits = {
      hits: { key: string; score: number; excerpt: string; line_start: number; line_end: number }[];
      build: string;
    };
    const acme = await ok<Hits>(client, "recall", { query: "how should I follow up with Acme?" });
    expect(acme.build).toBe("lexical");
    expect(acme.hits[0]?.key).toBe("/memories/customers.md");
    expect(acme.hits[0]?.excerpt).toContain("Acme Corp prefers email follow-ups.");

    const miso = await ok<Hits>(client, "recall", { query: "Miso", tag: "memory-file", k: 3 });
    expect(miso.hits.map((hit) => hit.key)).toEqual(["/memories/pets.md"]);
    const hit = miso.hits[0];
    const lines = pets.split("\n");
    expect(hit?.excerpt).toBe(lines.slice((hit?.line_start ?? 1) - 1, hit?.line_end).join("\n"));
    expect(hit?.line_start).toBeLessThanOrEqual(4);
    expect(hit?.line_end).toBeGreaterThanOrEqual(4);

    const cats = await ok<Hits>(client, "recall", { query: "cats", tag: "memory-file" });
    expect(cats.hits.map((h) => h.key)).toEqual(["/memories/pets.md"]);
    const all = await ok<Hits>(client, "recall", { query: "cats" });
    expect(all.hits.map((h) => h.key).sort()).toEqual(["/memories/pets.md", "scratch/cats"]);
    // Lexical scores are absolute (a hit's share of the query's BM25 ceiling), not scaled
    // against the best hit: a hit scores the same with or without the others...
    const petsScore = all.hits.find((h) => h.key === "/memories/pets.md")?.score;
    expect(cats.hits[0]?.score).toBe(petsScore);
    expect(all.hits[0]?.score).toBeGreaterThan(petsScore ?? 1);
    // ...a memory holding the query's one word beats the best hit of a question most of whose
    // words no memory holds (each would score 1 if scaled against its own best hit)...
    expect(miso.hits[0]?.score).toBeGreaterThan(acme.hits[0]?.score ?? 1);
    expect(miso.hits[0]?.score).toBeLessThan(1);
    // ...and no hit scores 0.
    for (const h of [...acme.hits, ...miso.hits, ...all.hits]) expect(h.score).toBeGreaterThan(0);
    const text = (await call(client, "recall", { query: "cats" })).content[0] as { text: string };
    const best = await ok<{ updated_at: string }>(client, "get", { key: all.hits[0]?.key });
    expect(text.text).toContain(
      `score ${(all.hits[0]?.score ?? 0).toFixed(3)}, modified ${best.updated_at})`,
    );
    const scoped = await ok<Hits>(client, "recall", { query: "cats", prefix: "scratch/" });
    expect(scoped.hits.map((h) => h.key)).toEqual(["scratch/cats"]);
  });

  it("recalls by time: only memories changed in the range, each hit with its last change", async () => {
    const first = await ok<{ updated_at: string }>(client, "remember", {
      key: "tm/first",
      text: "heron sighting",
    });
    // The next write must carry a later millisecond.
    while (new Date().toISOString() <= first.updated_at) await new Promise((r) => setTimeout(r, 1));
    const second = await ok<{ updated_at: string }>(client, "remember", {
      key: "tm/second",
      text: "heron sighting again",
    });
    type Hits = { hits: { key: string; updated_at: string }[] };
    const recall = async (args: { [name: string]: unknown }) =>
      (await ok<Hits>(client, "recall", { query: "heron", prefix: "tm/", ...args })).hits.map(
        (hit) => [hit.key, hit.updated_at],
      );
    expect((await recall({})).sort()).toEqual([
      ["tm/first", first.updated_at],
      ["tm/second", second.updated_at],
    ]);
    expect(await recall({ modified_after: second.updated_at })).toEqual([
      ["tm/second", second.updated_at],
    ]);
    expect(await recall({ modified_before: second.updated_at })).toEqual([
      ["tm/first", first.updated_at],
    ]);
    const text = (
      await call(client, "recall", { query: "heron", modified_before: second.updated_at })
    ).content[0] as { text: string };
    expect(text.text).toMatch(
      new RegExp(
        `^1\\. tm/first \\(lines 1-1, score [0-9.]+, modified ${first.updated_at}\\)\nheron sighting$`,
      ),
    );
    expect(
      (await refused(client, "recall", { query: "heron", modified_after: "last week" })).text,
    ).toBe(
      "INVALID_ARGUMENT: modified_after must be an ISO 8601 time with a timezone, such as 2026-07-01T00:00:00Z or 2026-07-01T09:30:00+02:00",
    );
    const backwards = await refused(client, "recall", {
      query: "heron",
      modified_after: "2026-07-02T00:00:00Z",
      modified_before: "2026-07-01T00:00:00Z",
    });
    expect(backwards.text).toMatch(
      /^INVALID_ARGUMENT: modified_after .* is later than modified_before/,
    );
    expect((await refused(client, "recall", { query: "heron", modified_after: 5 })).code).toBe(
      "INVALID_ARGUMENT",
    );
  });

  it("accepts hostile recall queries without errors", async () => {
    const queries = [
      "",
      '"',
      'cats" OR "',
      "NEAR(cats Miso)",
      "cats AND NOT",
      "*",
      "^Miso",
      "text:cats",
      "((((",
      "-cats",
      "🐈‍⬛ 🧠",
      "記憶の猫",
      "кошки AND",
      "\u0000\u0001",
      "a:b:c d*e^f (g) {h} [i] 'j' \"k\" + | \\",
    ];
    for (const query of queries) {
      const result = await call(client, "recall", { query });
      expect({ query, isError: result.isError ?? false }).toEqual({ query, isError: false });
    }
  });

  it("searches literal text case-insensitively with line numbers", async () => {
    await ok(client, "remember", {
      key: "sr/a",
      text: "alpha\nThe NEEDLE (1)\nneedle again",
      tags: ["s"],
    });
    await ok(client, "remember", { key: "sr/b", text: "no match here" });
    const found = await ok<{ hits: { key: string; line: number; snippet: string }[] }>(
      client,
      "search",
      { text: "needle (", prefix: "sr/" },
    );
    expect(found.hits).toEqual([{ key: "sr/a", line: 2, snippet: "The NEEDLE (1)" }]);
    const tagged = await ok<{ hits: unknown[] }>(client, "search", {
      text: "needle",
      tag: "s",
      limit: 1,
    });
    expect(tagged.hits).toHaveLength(1);
  });

  it("exports whole records page by page", async () => {
    for (let i = 0; i < 3; i++) await ok(client, "remember", { key: `ex/${i}`, text: `body ${i}` });
    const first = await ok<{ memories: Record[]; next_cursor: string | null }>(client, "export", {
      prefix: "ex/",
      limit: 2,
    });
    expect(first.memories.map((m) => m.text)).toEqual(["body 0", "body 1"]);
    const second = await ok<{ memories: Record[]; next_cursor: string | null }>(client, "export", {
      prefix: "ex/",
      limit: 2,
      cursor: first.next_cursor,
    });
    expect(second.memories.map((m) => m.key)).toEqual(["ex/2"]);
    expect(second.next_cursor).toBeNull();
  });

  it("reports stats with limits, build and versions", async () => {
    const stats = await ok(client, "stats");
    expect(stats).toMatchObject({
      namespace: "default",
      max_text_bytes: 32768,
      limits: { max_key_bytes: 512, max_tags: 32, max_tag_bytes: 64, max_metadata_bytes: 8192 },
      recall: {
        build: "lexical",
        model: null,
        pending: 0,
        embedded: 0,
        embedded_per_second: null,
      },
      schema_version: SCHEMA_VERSION,
      server: { name: "hms-mcp" },
    });
    expect(stats.memories).toBeGreaterThan(0);
    expect(stats.bytes).toBeGreaterThan(0);
  });

  it("tells the server's own caller which data directory it serves", async () => {
    const data = tempDir();
    const connection = await connectInProcess({ dataDir: data.dir });
    try {
      // In-process, as on stdio, the caller is the operator: the whole path.
      expect((await ok(connection.client, "stats")).store).toEqual({
        engine: "sqlite",
        name: basename(data.dir),
        location: resolve(data.dir),
      });
    } finally {
      await connection.close();
      data.remove();
    }
  });
});

// The tools' descriptions state the contract's limits (@hms/protocol); the store enforces its own.
describe("the contract and the store", () => {
  it("state the same limits", () => {
    expect({
      DEFAULT_RECALL_K: store.DEFAULT_RECALL_K,
      MAX_RECALL_K: store.MAX_RECALL_K,
      MAX_QUERY_BYTES: store.MAX_QUERY_BYTES,
      DEFAULT_PAGE: store.DEFAULT_PAGE,
      MAX_PAGE: store.MAX_PAGE,
      DEFAULT_MAX_TEXT_BYTES: store.DEFAULT_LIMITS.maxTextBytes,
    }).toEqual({
      DEFAULT_RECALL_K: protocol.DEFAULT_RECALL_K,
      MAX_RECALL_K: protocol.MAX_RECALL_K,
      MAX_QUERY_BYTES: protocol.MAX_QUERY_BYTES,
      DEFAULT_PAGE: protocol.DEFAULT_PAGE,
      MAX_PAGE: protocol.MAX_PAGE,
      DEFAULT_MAX_TEXT_BYTES: protocol.DEFAULT_MAX_TEXT_BYTES,
    });
  });
});
