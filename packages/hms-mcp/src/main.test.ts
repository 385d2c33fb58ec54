import { tempDir } from "@hms/test-support";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "./config/config.js";
import { startServer } from "./main.js";

describe("startServer, the library entry point", () => {
  const data = tempDir();
  afterAll(() => data.remove());

  it("serves HTTP in this process at the URL it returns until closed", async () => {
    const config = parseConfig(
      ["--transport", "http", "--port", "0", "--data-dir", data.dir, "--log-level", "silent"],
      {},
      "0",
    );
    const running = await startServer(config);
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: "library-test", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url as string)));
    const result = await client.callTool({
      name: "remember",
      arguments: { key: "k", text: "in-process" },
    });
    expect(result.structuredContent).toMatchObject({ key: "k", created: true });
    await client.close();
    await running.close();
    await expect(fetch(running.url as string, { method: "POST" })).rejects.toThrow();
  });
});
