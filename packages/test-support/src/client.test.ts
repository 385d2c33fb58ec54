import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { call, connectFresh, connectInMemory, ok, refused } from "./client.js";

describe("clients of a real hms-mcp", () => {
  it("ok returns a success's structured content and throws on a tool error; refused the reverse", async () => {
    const connection = await connectFresh("stdio");
    try {
      const { client } = connection;
      expect(await ok(client, "remember", { key: "k", text: "x" })).toMatchObject({
        key: "k",
        created: true,
      });
      const missing = await refused(client, "get", { key: "none" });
      expect(missing).toMatchObject({
        code: "NOT_FOUND",
        text: "NOT_FOUND: none does not exist",
        meta: { code: "NOT_FOUND", message: "none does not exist", key: "none" },
      });
      await expect(ok(client, "get", { key: "none" })).rejects.toThrow(
        "get failed: NOT_FOUND: none does not exist",
      );
      await expect(refused(client, "get", { key: "k" })).rejects.toThrow(
        "get succeeded but was expected to fail",
      );
    } finally {
      await connection.close();
    }
  });
});

describe("connectInMemory", () => {
  it("links a client to a server running in this process", async () => {
    // The smallest MCP server with a tool: this package cannot run hms-mcp's own in-process.
    const server = new Server({ name: "echo", version: "0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: "echo", inputSchema: { type: "object" } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => ({
      content: [{ type: "text", text: JSON.stringify(request.params.arguments) }],
    }));
    const client = await connectInMemory(server);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "echo" });
      expect((await call(client, "echo", { a: 1 })).content).toEqual([
        { type: "text", text: '{"a":1}' },
      ]);
    } finally {
      await client.close();
    }
  });
});
