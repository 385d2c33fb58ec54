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
    expect(text).toContain('<memory key="/memories/res ü.md" lines="1-1">');
  });

  it("takes no namespace argument without --namespace-arg, as the tools take none", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts[0]?.arguments?.map((argument) => argument.name)).toEqual(["query", "k"]);
    await expect(
      client.getPrompt({ name: "recall", arguments: { query: "x", namespace: "other" } }),
    ).rejects.toThrow(
      "NAMESPACE_DISABLED: this server serves only its own namespace; start it with --namespace-arg to let calls choose a namespace",
    );
  });
});
