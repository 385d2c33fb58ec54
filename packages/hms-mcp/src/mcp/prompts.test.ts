import { ok } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { connectInProcess } from "../../test/in-process.js";

describe("the recall prompt", () => {
  let client: Client;

  beforeAll(async () => {
    const connection = await connectInProcess();
    client = connection.client;
    return connection.close;
  });

  it("wraps recall in a prompt", async () => {
    await ok(client, "remember", { key: "/memories/res ü.md", text: "resource body" });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(["recall"]);
    const prompt = await client.getPrompt({
      name: "recall",
      arguments: { query: "resource body" },
    });
    const text = (prompt.messages[0]?.content as { text?: string } | undefined)?.text;
    expect(text).toMatch(
      /<memory key="\/memories\/res ü.md" lines="1-1" modified="\d{4}-\d\d-\d\dT[\d:.]+Z">/,
    );
  });

  it("keeps only the memories changed in a time range, and refuses a time without a zone", async () => {
    const written = await ok(client, "remember", { key: "/memories/dated.md", text: "kestrel" });
    const text = async (args: Record<string, string>) => {
      const prompt = await client.getPrompt({
        name: "recall",
        arguments: { query: "kestrel", ...args },
      });
      return (prompt.messages[0]?.content as { text?: string } | undefined)?.text;
    };
    expect(
      await text({ modified_after: written.updated_at as string, modified_before: "" }),
    ).toContain(`<memory key="/memories/dated.md" lines="1-1" modified="${written.updated_at}">`);
    expect(await text({ modified_before: written.updated_at as string })).toContain(
      "No memory changed in that time range matches this query.",
    );
    await expect(text({ modified_after: "2026-07-01" })).rejects.toThrow(
      "modified_after has no timezone: add Z for UTC (2026-07-01T00:00:00Z) or an offset such as +02:00",
    );
  });

  it("takes no namespace argument without --namespace-arg, as the tools take none", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts[0]?.arguments?.map((argument) => argument.name)).toEqual([
      "query",
      "k",
      "modified_after",
      "modified_before",
    ]);
    await expect(
      client.getPrompt({ name: "recall", arguments: { query: "x", namespace: "other" } }),
    ).rejects.toThrow(
      "NAMESPACE_DISABLED: this server serves only its own namespace; start it with --namespace-arg to let calls choose a namespace",
    );
  });
});
