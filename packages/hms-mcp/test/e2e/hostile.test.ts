import { EXPORT_PAGE_BYTES } from "@hms/store";
import { connectFresh, ok, refused, type TransportKind } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";

/** Metadata nested `depth` levels deep: { a: { a: ... {} } }. */
function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let level = 1; level < depth; level++) {
    const inner: Record<string, unknown> = {};
    at.a = inner;
    at = inner;
  }
  return root;
}

interface ExportPage {
  memories: { key: string }[];
  next_cursor: string | null;
}

describe.each<TransportKind>(["stdio", "http"])("hostile arguments over %s", (kind) => {
  let client: Client;

  beforeAll(async () => {
    // Room for memories larger than one export page.
    const connection = await connectFresh(kind, { args: ["--max-text-bytes", "1572864"] });
    client = connection.client;
    return connection.close;
  });

  it("keeps a __proto__ key of metadata as data, at the top and nested", async () => {
    const metadata = JSON.parse(
      '{"__proto__":{"polluted":true},"n":{"__proto__":[1]},"constructor":{"prototype":1}}',
    ) as Record<string, unknown>;
    await ok(client, "remember", { key: "proto", text: "x", metadata });
    const stored = await ok<{ metadata: Record<string, unknown> }>(client, "get", {
      key: "proto",
    });
    expect(JSON.stringify(stored.metadata)).toBe(
      '{"__proto__":{"polluted":true},"n":{"__proto__":[1]},"constructor":{"prototype":1}}',
    );
  });

  it("refuses metadata nested over 32 levels or holding a lone surrogate, storing nothing", async () => {
    await ok(client, "remember", { key: "deep/fits", text: "x", metadata: nested(32) });
    // Deeper than strict JSON readers go (the MCP Python SDK stops near 200 levels).
    for (const metadata of [nested(33), nested(300)]) {
      const error = await refused(client, "remember", { key: "deep/k", text: "x", metadata });
      expect(error.code).toBe("TOO_LARGE");
      expect(error.text).toBe("TOO_LARGE: metadata nests deeper than 32 levels");
    }
    // Stored, a lone surrogate would make every answer carrying this record invalid JSON to
    // strict readers (the MCP Python SDK refuses the whole message).
    for (const metadata of [{ v: "\ud800" }, { "\udc00": 1 }]) {
      const error = await refused(client, "remember", { key: "deep/k", text: "x", metadata });
      expect(error.text).toBe("INVALID_ARGUMENT: metadata contains a lone UTF-16 surrogate");
    }
    expect((await refused(client, "get", { key: "deep/k" })).code).toBe("NOT_FOUND");
  });

  it("ends export pages by size, so no answer holds more than about 256 KiB of memories", async () => {
    const text = "word ".repeat((1536 * 1024) / 5);
    for (const key of ["big/0", "big/1", "big/2"]) await ok(client, "remember", { key, text });
    const first = await ok<ExportPage>(client, "export", { prefix: "big/", limit: 1000 });
    expect(EXPORT_PAGE_BYTES).toBe(256 * 1024);
    // Each memory is over the bound: one to a page, whole.
    expect(first.memories.map((m) => m.key)).toEqual(["big/0"]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await ok<ExportPage>(client, "export", {
      prefix: "big/",
      limit: 1000,
      cursor: first.next_cursor,
    });
    expect(second.memories.map((m) => m.key)).toEqual(["big/1"]);
    const third = await ok<ExportPage>(client, "export", {
      prefix: "big/",
      limit: 1000,
      cursor: second.next_cursor,
    });
    expect(third).toMatchObject({ memories: [{ key: "big/2" }], next_cursor: null });
  });
});
