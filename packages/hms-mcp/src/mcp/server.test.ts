import { PROTOCOL_VERSION, statedProtocolVersion } from "@hms/protocol";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { connectInProcess } from "../../test/in-process.js";
import { SERVER_INFO } from "../version.js";

describe("the MCP server", () => {
  let client: Client;

  beforeAll(async () => {
    const connection = await connectInProcess();
    client = connection.client;
    return connection.close;
  });

  it("states the protocol version in its initialize result", () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.experimental).toEqual({ "hms-mcp": { protocolVersion: 1 } });
    expect(statedProtocolVersion(capabilities?.experimental)).toBe(PROTOCOL_VERSION);
    expect(capabilities).toMatchObject({
      tools: {},
      resources: { subscribe: true, listChanged: true },
      prompts: {},
    });
  });

  it("introduces itself with its name, version, title and instructions", () => {
    expect(client.getServerVersion()).toEqual({
      name: "hms-mcp",
      title: "Holographic Memory",
      version: SERVER_INFO.version,
    });
    expect(client.getInstructions()).toMatch(/^hms-mcp is a durable, searchable memory store\./);
  });
});
