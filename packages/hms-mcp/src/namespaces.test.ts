import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { storeFileName } from "@hms/store";
import { type Connection, connect, ok, refused, tempDir } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("namespaces", () => {
  const data = tempDir();
  let connection: Connection;
  let client: Client;

  beforeAll(async () => {
    connection = await connect("stdio", { dataDir: data.dir, args: ["--namespace-arg"] });
    client = connection.client;
  });
  afterAll(async () => {
    await connection.close();
    data.remove();
  });

  it("adds a namespace argument to every tool", async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) expect(tool.inputSchema.properties).toHaveProperty("namespace");
  });

  it("isolates what one namespace wrote from get, list, recall, search and export in another", async () => {
    await ok(client, "remember", {
      namespace: "alice",
      key: "/memories/secret.md",
      text: "alice's zebra password hint",
      tags: ["memory-file"],
    });
    await ok(client, "remember", {
      namespace: "bob",
      key: "/memories/own.md",
      text: "bob's notes",
    });
    const bob = { namespace: "bob" };
    expect((await refused(client, "get", { ...bob, key: "/memories/secret.md" })).code).toBe(
      "NOT_FOUND",
    );
    const listed = await ok<{ items: { key: string }[] }>(client, "list", bob);
    expect(listed.items.map((item) => item.key)).toEqual(["/memories/own.md"]);
    expect(await ok(client, "recall", { ...bob, query: "zebra password" })).toEqual({
      hits: [],
      build: "lexical",
    });
    expect(await ok(client, "search", { ...bob, text: "zebra" })).toEqual({ hits: [] });
    const exported = await ok<{ memories: { key: string }[] }>(client, "export", bob);
    expect(exported.memories.map((m) => m.key)).toEqual(["/memories/own.md"]);
    expect(await ok(client, "stats", bob)).toMatchObject({ namespace: "bob", memories: 1 });
    // And the default namespace saw neither.
    expect(await ok(client, "stats")).toMatchObject({ namespace: "default", memories: 0 });
    const alice = await ok<{ hits: { key: string }[] }>(client, "recall", {
      namespace: "alice",
      query: "zebra",
    });
    expect(alice.hits.map((hit) => hit.key)).toEqual(["/memories/secret.md"]);
    const resource = await client.readResource({ uri: "hms-mcp://alice/%2Fmemories%2Fsecret.md" });
    expect(resource.contents[0]).toMatchObject({ text: "alice's zebra password hint" });
  });

  it("refuses invalid namespace names", async () => {
    for (const namespace of ["../etc", "Alice", "a/b", "", ".", "x".repeat(65), "名前"]) {
      const error = await refused(client, "list", { namespace });
      expect({ namespace, code: error.code }).toEqual({ namespace, code: "INVALID_ARGUMENT" });
    }
  });

  it("answers INTERNAL when a store cannot be opened, and logs why", async () => {
    // A directory where the namespace's database file should be: SQLite cannot open it.
    mkdirSync(join(data.dir, "namespaces", storeFileName("broken")), { recursive: true });
    const error = await refused(client, "list", { namespace: "broken" });
    expect(error.code).toBe("INTERNAL");
    expect(error.text).toBe("INTERNAL: the server failed to carry out the call; see its log");
  });

  it("serves the namespace --namespace names, and only it, without --namespace-arg", async () => {
    const bobServer = await connect("http", { dataDir: data.dir, args: ["--namespace", "bob"] });
    try {
      const listed = await ok<{ items: { key: string }[] }>(bobServer.client, "list");
      expect(listed.items.map((item) => item.key)).toEqual(["/memories/own.md"]);
      expect((await refused(bobServer.client, "list", { namespace: "alice" })).code).toBe(
        "NAMESPACE_DISABLED",
      );
    } finally {
      await bobServer.close();
    }
  });
});
