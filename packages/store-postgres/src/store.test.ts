import { isStoreError, MemoryStore } from "@hms/store";
import { type PostgresServer, startPostgres } from "@hms/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PgEngine } from "./engine.js";

let server: PostgresServer;
const engines: PgEngine[] = [];

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.remove(), 60_000);
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
});

async function open(options: { maxNamespaces?: number; maxTextBytes?: number } = {}) {
  const engine = await PgEngine.open({ url: server.createDatabase(), ...options });
  engines.push(engine);
  return engine;
}

/** The same calls on SQLite, for answers that must match. */
function sqlite(): MemoryStore {
  return MemoryStore.open(":memory:");
}

describe("PgEngine and PgStore: records", () => {
  it("creates, reads, replaces and deletes a memory, with versions and CAS", async () => {
    const store = await (await open()).get("default");
    expect(store.engine).toBe("postgres");
    const created = await store.remember({ key: "/memories/a.md", text: "one\ntwo", tags: ["x"] });
    expect(created).toMatchObject({ key: "/memories/a.md", version: 1, bytes: 7, created: true });
    const record = await store.get("/memories/a.md");
    expect(record).toMatchObject({ text: "one\ntwo", tags: ["x"], metadata: {}, version: 1 });
    expect(record?.hash).toBe(created.hash);
    const replaced = await store.remember({
      key: "/memories/a.md",
      text: "three",
      metadata: { b: 1, a: [2] },
      expectedVersion: 1,
    });
    expect(replaced).toMatchObject({ version: 2, created: false });
    // Omitted tags are kept, metadata kept as given (key order included).
    expect(await store.get("/memories/a.md")).toMatchObject({
      tags: ["x"],
      metadata: { b: 1, a: [2] },
    });
    expect(JSON.stringify((await store.get("/memories/a.md"))?.metadata)).toBe('{"b":1,"a":[2]}');
    await expect(
      store.remember({ key: "/memories/a.md", text: "stale", expectedVersion: 1 }),
    ).rejects.toMatchObject({
      code: "VERSION_CONFLICT",
      message: "/memories/a.md is at version 2, not the expected version 1",
      details: { key: "/memories/a.md", current_version: 2, expected_version: 1 },
    });
    await expect(
      store.remember({ key: "/memories/a.md", text: "x", ifAbsent: true }),
    ).rejects.toMatchObject({ code: "EXISTS", details: { current_version: 2 } });
    expect(await store.forget("/memories/a.md", { expectedVersion: 2 })).toEqual({ deleted: 1 });
    expect(await store.get("/memories/a.md")).toBeUndefined();
    // The clock never goes back: a re-created key continues above every version it had.
    expect((await store.remember({ key: "/memories/a.md", text: "again" })).version).toBe(3);
  });

  it("refuses what SQLite refuses, with the same code, message and details", async () => {
    const store = await (await open()).get("default");
    const lite = sqlite();
    const cases: [string, (s: MemoryStore | typeof store) => unknown][] = [
      ["empty key", (s) => s.remember({ key: "", text: "x" })],
      ["too large", (s) => s.remember({ key: "k", text: "x".repeat(40_000) })],
      ["bad tag", (s) => s.remember({ key: "k", text: "x", tags: ["a b"] })],
      ["bad memory path", (s) => s.remember({ key: "/memories/../x", text: "x" })],
      ["missing CAS", (s) => s.remember({ key: "k", text: "x", expectedVersion: 4 })],
      ["both", (s) => s.remember({ key: "k", text: "x", expectedVersion: 4, ifAbsent: true })],
      ["forget missing", (s) => s.forget("nope")],
      ["bad cursor", (s) => s.list({ cursor: "nope" })],
      ["bad limit", (s) => s.list({ limit: 0 })],
    ];
    for (const [what, call] of cases) {
      const expected = await Promise.resolve()
        .then(() => call(lite))
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      const actual = await Promise.resolve()
        .then(() => call(store))
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(isStoreError(expected), what).toBe(true);
      expect(actual, what).toMatchObject({
        code: (expected as { code: string }).code,
        message: (expected as Error).message,
        details: (expected as { details: unknown }).details,
      });
    }
    lite.close();
  });

  it("lists and exports a page at a time in key (code point) order, with a prefix and a tag", async () => {
    const store = await (await open()).get("default");
    const keys = ["b", "a/2", "a/1", "é", "Z", "a0"];
    for (const key of keys)
      await store.remember({ key, text: key, tags: key.startsWith("a") ? ["t"] : [] });
    const first = await store.list({ limit: 4 });
    expect(first.items.map((item) => item.key)).toEqual(["Z", "a/1", "a/2", "a0"]);
    const second = await store.list({ limit: 4, cursor: first.next_cursor as string });
    expect(second).toMatchObject({ next_cursor: null });
    expect(second.items.map((item) => item.key)).toEqual(["b", "é"]);
    expect((await store.list({ prefix: "a/" })).items.map((item) => item.key)).toEqual([
      "a/1",
      "a/2",
    ]);
    expect((await store.export({ tag: "t" })).memories.map((m) => m.key)).toEqual([
      "a/1",
      "a/2",
      "a0",
    ]);
  });

  it("read() of a namespace that does not exist answers as empty and creates nothing", async () => {
    const engine = await open();
    const store = await engine.read("ghost");
    expect(await store.get("k")).toBeUndefined();
    expect(await store.list()).toEqual({ items: [], next_cursor: null });
    expect(await store.recall("anything")).toEqual({ hits: [], build: "lexical" });
    expect(await engine.names()).toEqual([]);
    await (await engine.get("real")).remember({ key: "k", text: "x" });
    expect(await engine.names()).toEqual(["real"]);
    // Namespaces are isolated from each other.
    expect(await (await engine.get("other")).get("k")).toBeUndefined();
  });

  it("refuses one namespace more than maxNamespaces with LIMIT_REACHED", async () => {
    const engine = await open({ maxNamespaces: 2 });
    await engine.get("a");
    await engine.get("b");
    await engine.get("a");
    await expect(engine.get("c")).rejects.toMatchObject({
      code: "LIMIT_REACHED",
      details: { limit: 2 },
      message: expect.stringContaining("namespace c cannot be created"),
    });
    await expect(engine.get("Bad Name")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("keeps a text with U+0000, which PostgreSQL's text type cannot hold, and finds it", async () => {
    const store = await (await open()).get("default");
    const text = "nul\u0000inside\nsecond line \u0000 salamander";
    await store.remember({ key: "/memories/n.md", text });
    expect((await store.get("/memories/n.md"))?.text).toBe(text);
    expect((await store.export()).memories[0]?.text).toBe(text);
    expect((await store.search("salamander")).hits).toEqual([
      { key: "/memories/n.md", line: 2, snippet: "second line \u0000 salamander" },
    ]);
    const { hits } = await store.recall("salamander");
    expect(hits).toMatchObject([{ key: "/memories/n.md", line_start: 1, line_end: 2 }]);
    expect((await store.history.version("/memories/n.md", 1))?.text).toBe(text);
  });
});
