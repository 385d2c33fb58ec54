/**
 * tools/list and tools/call: the list the contract defines, argument validation, the namespace
 * argument and the namespace a call reaches, and how a refusal is reported.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import protocolJson from "@hms/protocol/protocol.json" with { type: "json" };
import { storeFileName } from "@hms/store";
import { ok, protocolToolList, refused, tempDir, toolListAsSent } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectInProcess, type InProcessConnection } from "../../test/in-process.js";
import { MAX_QUEUED_CALLS_PER_CLIENT } from "../runtime/runtime.js";

describe("tools/list and tools/call", () => {
  let client: Client;

  beforeAll(async () => {
    const connection = await connectInProcess();
    client = connection.client;
    return connection.close;
  });

  it("lists the contract's tools with schemas and annotations", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(
      [
        "diff",
        "export",
        "forget",
        "get",
        "history",
        "list",
        "move",
        "recall",
        "remember",
        "restore",
        "search",
        "stats",
        "unused",
        "namespaces",
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.description?.length).toBeGreaterThan(20);
      expect(tool.inputSchema.properties).not.toHaveProperty("namespace");
    }
    const hints = (name: string) => byName.get(name)?.annotations;
    expect(hints("remember")).toMatchObject({ destructiveHint: true, idempotentHint: false });
    expect(hints("forget")).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(hints("move")).toMatchObject({ destructiveHint: true });
    expect(hints("restore")).toMatchObject({ destructiveHint: true, idempotentHint: false });
    for (const name of [
      "get",
      "list",
      "recall",
      "search",
      "stats",
      "export",
      "history",
      "diff",
      "unused",
      "namespaces",
    ]) {
      expect(hints(name)).toMatchObject({ readOnlyHint: true });
    }
    expect(byName.get("forget")?.inputSchema.properties).toHaveProperty("prefix");
  });

  it("lists exactly the protocol's tools, byte for byte, in its order", async () => {
    const tools = await toolListAsSent(client);
    expect(JSON.stringify(tools)).toBe(JSON.stringify(protocolToolList(false)));
    // The committed protocol.json (what the Python client ships) describes the same schemas.
    const published: {
      [name: string]: { input_schema: unknown; output_schema: unknown } | undefined;
    } = protocolJson.tools;
    expect(tools.map((tool) => tool.name)).toEqual(Object.keys(published));
    for (const tool of tools) {
      expect(JSON.stringify(tool.inputSchema)).toBe(
        JSON.stringify(published[tool.name]?.input_schema),
      );
      expect(JSON.stringify(tool.outputSchema)).toBe(
        JSON.stringify(published[tool.name]?.output_schema),
      );
    }
  });

  it("reports errors as isError with CODE: message, _meta details and no structuredContent", async () => {
    const missing = await refused(client, "get", { key: "no/such/key" });
    expect(missing.code).toBe("NOT_FOUND");
    expect(missing.text).toBe("NOT_FOUND: no/such/key does not exist");
    expect(missing.meta).toMatchObject({
      code: "NOT_FOUND",
      message: "no/such/key does not exist",
    });
    expect(missing.result.structuredContent).toBeUndefined();
  });

  it("answers bad arguments with INVALID_ARGUMENT tool errors, not protocol errors", async () => {
    const cases: [string, { [name: string]: unknown }][] = [
      ["remember", { key: 5, text: "x" }],
      ["remember", { key: "k" }],
      ["remember", { key: "k", text: "x", bogus: true }],
      ["remember", { key: "k", text: "x", expected_version: 0 }],
      ["remember", { key: "k", text: "x", expected_version: 1.5 }],
      ["remember", { key: "k", text: "x", tags: "not-a-list" }],
      ["remember", { key: "k", text: "x", tags: ["has space"] }],
      ["remember", { key: "k", text: "x", metadata: [1, 2] }],
      ["remember", { key: "", text: "x" }],
      ["remember", { key: "bad\u0007key", text: "x" }],
      ["remember", { key: "k".repeat(513), text: "x" }],
      ["recall", { query: "x", k: 0 }],
      ["recall", { query: "x", k: 51 }],
      ["recall", {}],
      ["list", { limit: 0 }],
      ["list", { limit: 1001 }],
      ["list", { cursor: "forged" }],
      ["export", { cursor: "forged" }],
      ["forget", {}],
      ["forget", { key: "a", prefix: "b" }],
      ["forget", { prefix: "" }],
      ["forget", { prefix: "p", expected_version: 1 }],
      ["move", { from: "a" }],
      ["move", { from: "a", to: "b", from_prefix: "c", to_prefix: "d" }],
      ["move", { from_prefix: "a/", to_prefix: "a/b/" }],
      ["search", { text: "" }],
      ["get", {}],
      ["stats", { extra: 1 }],
    ];
    for (const [tool, args] of cases) {
      const error = await refused(client, tool, args);
      expect({ tool, args, code: error.code }).toEqual({ tool, args, code: "INVALID_ARGUMENT" });
      expect(error.meta.code).toBe("INVALID_ARGUMENT");
    }
    expect(
      (await refused(client, "remember", { key: "k", text: "x", tags: ["a".repeat(65)] })).code,
    ).toBe("TOO_LARGE");
    expect(
      (
        await refused(client, "remember", {
          key: "k",
          text: "x",
          metadata: { v: "a".repeat(9000) },
        })
      ).code,
    ).toBe("TOO_LARGE");
    expect((await refused(client, "get", { key: "k" })).code).toBe("NOT_FOUND");
  });

  it("repeats at most a few hundred characters of the caller's names in a refusal", async () => {
    const huge = "n".repeat(1024 * 1024);
    const unknown = await refused(client, "get", { key: "a", [huge]: 1 });
    expect(unknown.text).toBe(`INVALID_ARGUMENT: unknown argument ${"n".repeat(64)}…`);
    const many = Object.fromEntries(
      Array.from({ length: 5000 }, (_, i) => [`extra${i}`, i] as const),
    );
    const listed = await refused(client, "stats", many);
    expect(listed.text).toBe(
      `INVALID_ARGUMENT: unknown arguments ${Array.from({ length: 10 }, (_, i) => `extra${i}`).join(", ")} and 4990 more`,
    );
    const tags = await refused(client, "remember", {
      key: "k",
      text: "x",
      tags: Array.from({ length: 100_000 }, () => 7),
    });
    expect(tags.text.length).toBeLessThan(1000);
    expect(tags.text).toMatch(/^INVALID_ARGUMENT: tags\.0: .*; and 99990 more problems$/);
    const tool = await client
      .callTool({ name: huge, arguments: {} })
      .catch((error: unknown) => error as Error);
    expect(tool).toBeInstanceOf(Error);
    expect((tool as Error).message).toContain(`Unknown tool: ${"n".repeat(64)}…`);
    expect((tool as Error).message.length).toBeLessThan(1000);
  });

  it("refuses a namespace argument with NAMESPACE_DISABLED", async () => {
    const error = await refused(client, "list", { namespace: "other" });
    expect(error.code).toBe("NAMESPACE_DISABLED");
    expect(error.text).toContain("--namespace-arg");
  });

  it("names its one namespace when asked which namespaces a caller may use", async () => {
    expect(await ok(client, "namespaces")).toEqual({
      namespaces: [{ name: "default" }],
      default: "default",
      namespace_arg: false,
      access: "read-write",
    });
    expect((await refused(client, "namespaces", { namespace: "other" })).code).toBe(
      "NAMESPACE_DISABLED",
    );
  });
});

describe("namespaces", () => {
  const data = tempDir();
  let connection: InProcessConnection;
  let client: Client;

  beforeAll(async () => {
    connection = await connectInProcess({ dataDir: data.dir, args: ["--namespace-arg"] });
    client = connection.client;
  });
  afterAll(async () => {
    await connection.close();
    data.remove();
  });

  it("lists the protocol's tools with the namespace argument, byte for byte", async () => {
    const tools = await toolListAsSent(client);
    expect(JSON.stringify(tools)).toBe(JSON.stringify(protocolToolList(true)));
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
      for (const tool of ["list", "namespaces"]) {
        const error = await refused(client, tool, { namespace });
        expect({ namespace, code: error.code }).toEqual({ namespace, code: "INVALID_ARGUMENT" });
      }
    }
  });

  it("lists every namespace for an all-access caller, the default among them", async () => {
    await ok(client, "remember", { namespace: "zed", key: "/memories/z.md", text: "z" });
    const answer = await ok<{ namespaces: { name: string }[] }>(client, "namespaces", {
      namespace: "zed",
    });
    expect(answer).toMatchObject({ default: "default", namespace_arg: true, access: "read-write" });
    expect(answer.namespaces.map((n) => n.name)).toEqual(
      expect.arrayContaining(["default", "zed"]),
    );
  });

  it("answers INTERNAL when a store cannot be opened, and logs why", async () => {
    // A directory where the namespace's database file should be: SQLite cannot open it.
    mkdirSync(join(data.dir, "namespaces", storeFileName("broken")), { recursive: true });
    const error = await refused(client, "list", { namespace: "broken" });
    expect(error.code).toBe("INTERNAL");
    expect(error.text).toBe("INTERNAL: the server failed to carry out the call; see its log");
    const logged = connection
      .log()
      .split("\n")
      .filter((line) => line.includes('"msg":"tool call failed"'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0] as string)).toMatchObject({
      level: 50,
      tool: "list",
      err: { message: expect.any(String) },
    });
  });

  it("serves the namespace --namespace names, and only it, without --namespace-arg", async () => {
    const bobServer = await connectInProcess({ dataDir: data.dir, args: ["--namespace", "bob"] });
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

describe("calls past the most one client may have waiting", () => {
  it("are refused with UNAVAILABLE saying why, and the calls waiting are answered", async () => {
    const connection = await connectInProcess();
    try {
      await ok(connection.client, "remember", { key: "/memories/a.md", text: "a" });
      // All sent at once: they are queued before the first one runs.
      const sent = MAX_QUEUED_CALLS_PER_CLIENT + 10;
      const results = await Promise.all(
        Array.from({ length: sent }, () =>
          connection.client.callTool({ name: "get", arguments: { key: "/memories/a.md" } }),
        ),
      );
      const refusals = results.filter((result) => result.isError === true);
      expect(refusals).toHaveLength(10);
      expect(refusals[0]?.content).toEqual([
        {
          type: "text",
          text: `UNAVAILABLE: this client already has ${MAX_QUEUED_CALLS_PER_CLIENT} calls waiting to run, the most a client may have; wait for their answers before sending more`,
        },
      ]);
      expect(await ok(connection.client, "get", { key: "/memories/a.md" })).toMatchObject({
        text: "a",
      });
    } finally {
      await connection.close();
    }
  });
});
