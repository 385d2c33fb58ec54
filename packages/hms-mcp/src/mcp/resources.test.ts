import { NAMESPACE_META_KEY } from "@hms/protocol";
import { ok } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { connectInProcess } from "../../test/in-process.js";
import { MAX_QUEUED_CALLS_PER_CLIENT } from "../runtime/runtime.js";
import { parseResourceUri, resourceUri } from "./resources.js";

describe("memory resource URIs", () => {
  it("percent-encode the whole key into one path segment", () => {
    const uri = resourceUri("default", "/memories/a b/ü?#%.md");
    expect(uri).toBe("hms-mcp://default/%2Fmemories%2Fa%20b%2F%C3%BC%3F%23%25.md");
    expect(parseResourceUri(uri)).toEqual({ namespace: "default", key: "/memories/a b/ü?#%.md" });
  });

  it("reject URIs that are not memory resources", () => {
    for (const uri of ["file:///etc/passwd", "hms-mcp://default", "hms-mcp://default/%E0%A4%A"]) {
      expect(parseResourceUri(uri)).toBeUndefined();
    }
  });
});

describe("memory resources", () => {
  let client: Client;

  beforeAll(async () => {
    const connection = await connectInProcess();
    client = connection.client;
    return connection.close;
  });

  it("serves memories as resources", async () => {
    await ok(client, "remember", { key: "/memories/res ü.md", text: "resource body" });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates[0]?.uriTemplate).toBe("hms-mcp://{namespace}/{key}");
    const { resources } = await client.listResources();
    const entry = resources.find((resource) => resource.name === "/memories/res ü.md");
    expect(entry?.uri).toBe("hms-mcp://default/%2Fmemories%2Fres%20%C3%BC.md");
    const read = await client.readResource({ uri: entry?.uri ?? "" });
    expect(read.contents[0]).toMatchObject({ text: "resource body", mimeType: "text/markdown" });
    await expect(client.readResource({ uri: "hms-mcp://default/missing" })).rejects.toThrow(
      /No memory/,
    );
    await expect(client.readResource({ uri: "hms-mcp://other/x" })).rejects.toThrow(
      /--namespace-arg/,
    );
  });

  it("refuses a namespace in _meta without --namespace-arg, as the tools refuse the argument", async () => {
    await expect(
      client.listResources({ _meta: { [NAMESPACE_META_KEY]: "other" } }),
    ).rejects.toThrow(
      "NAMESPACE_DISABLED: this server serves only its own namespace; start it with --namespace-arg to let calls choose a namespace",
    );
  });
});

describe("resource reads past the most one client may have waiting", () => {
  it("are refused saying why, as tool calls are: they wait in the same fair order", async () => {
    const connection = await connectInProcess();
    try {
      await ok(connection.client, "remember", { key: "/memories/a.md", text: "a" });
      const uri = resourceUri("default", "/memories/a.md");
      // All sent at once: they are queued before the first one runs.
      const sent = MAX_QUEUED_CALLS_PER_CLIENT + 10;
      const results = await Promise.allSettled(
        Array.from({ length: sent }, () => connection.client.readResource({ uri })),
      );
      const refusals = results.filter((result) => result.status === "rejected");
      expect(refusals).toHaveLength(10);
      expect(String((refusals[0] as PromiseRejectedResult).reason)).toContain(
        `UNAVAILABLE: this client already has ${MAX_QUEUED_CALLS_PER_CLIENT} calls waiting to run`,
      );
      const read = await connection.client.readResource({ uri });
      expect(read.contents[0]).toMatchObject({ text: "a" });
    } finally {
      await connection.close();
    }
  });
});
