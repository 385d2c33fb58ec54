/**
 * The server's MCP surface through each transport of the real process: what every connection
 * sees first (the initialize result and tools/list, byte for byte), and one of each kind of
 * answer (a result, a tool error, a resource, a prompt) making it across intact. What each
 * tool, resource and prompt does is tested in-process, beside its module in src/.
 */
import { PROTOCOL_VERSION, statedProtocolVersion } from "@hms/protocol";
import {
  call,
  connectFresh,
  ok,
  protocolToolList,
  refused,
  type TransportKind,
  toolListAsSent,
} from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";

describe.each<TransportKind>(["stdio", "http"])("the MCP surface over %s", (kind) => {
  let client: Client;

  beforeAll(async () => {
    const connection = await connectFresh(kind);
    client = connection.client;
    return connection.close;
  });

  it("states the protocol version in its initialize result", () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.experimental).toEqual({ "hms-mcp": { protocolVersion: 1 } });
    expect(statedProtocolVersion(capabilities?.experimental)).toBe(PROTOCOL_VERSION);
    expect(capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
  });

  it("lists exactly the protocol's tools, byte for byte, in its order", async () => {
    expect(JSON.stringify(await toolListAsSent(client))).toBe(
      JSON.stringify(protocolToolList(false)),
    );
  });

  it("carries a result and a tool error across whole", async () => {
    const written = await call(client, "remember", { key: "/memories/a ü.md", text: "body ü\n" });
    expect(written.structuredContent).toMatchObject({ key: "/memories/a ü.md", bytes: 8 });
    expect(written.content).toEqual([
      { type: "text", text: expect.stringMatching(/^Created \/memories\/a ü\.md \(version/) },
    ]);
    const missing = await refused(client, "get", { key: "no/such/key" });
    expect(missing.text).toBe("NOT_FOUND: no/such/key does not exist");
    expect(missing.meta).toEqual({
      code: "NOT_FOUND",
      message: "no/such/key does not exist",
      key: "no/such/key",
    });
    expect(missing.result.structuredContent).toBeUndefined();
    const bad = await refused(client, "get", { key: 5 });
    expect(bad.code).toBe("INVALID_ARGUMENT");
  });

  it("serves a memory as a resource and in the recall prompt", async () => {
    await ok(client, "remember", { key: "/memories/res ü.md", text: "resource body" });
    const { resources } = await client.listResources();
    const entry = resources.find((resource) => resource.name === "/memories/res ü.md");
    expect(entry?.uri).toBe("hms-mcp://default/%2Fmemories%2Fres%20%C3%BC.md");
    const read = await client.readResource({ uri: entry?.uri ?? "" });
    expect(read.contents[0]).toMatchObject({ text: "resource body", mimeType: "text/markdown" });
    await expect(client.readResource({ uri: "hms-mcp://default/missing" })).rejects.toThrow(
      /No memory/,
    );
    const prompt = await client.getPrompt({ name: "recall", arguments: { query: "resource" } });
    const text = (prompt.messages[0]?.content as { text?: string } | undefined)?.text;
    expect(text).toMatch(
      /<memory key="\/memories\/res ü.md" lines="1-1" modified="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z">/,
    );
  });
});

describe.each<TransportKind>(["stdio", "http"])(
  "tools/list with --namespace-arg over %s",
  (kind) => {
    it("is the protocol's tools with the namespace argument, byte for byte", async () => {
      const connection = await connectFresh(kind, { args: ["--namespace-arg"] });
      try {
        expect(JSON.stringify(await toolListAsSent(connection.client))).toBe(
          JSON.stringify(protocolToolList(true)),
        );
      } finally {
        await connection.close();
      }
    });
  },
);
