/**
 * Resources and the recall prompt on a shared server (--namespace-arg, a tokens file), against
 * a real hms-mcp process: they take the caller's namespace as the tools do (resources/list by
 * `_meta["hms-mcp/namespace"]`, resources/read by its URI, prompts/get by a `namespace`
 * argument), under the same grants, with the same refusal for a namespace the token may not use.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { NAMESPACE_META_KEY } from "@hms/protocol";
import {
  cleanEnv,
  type HttpProcess,
  hmsMcpBin,
  ok,
  startHttpProcess,
  tempDir,
} from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A new token granted `namespaces`: the token and its tokens-file line. */
function createToken(name: string, namespaces: string): { token: string; line: string } {
  const result = spawnSync(
    process.execPath,
    [hmsMcpBin(), "token", "create", "--name", name, "--namespaces", namespaces],
    { env: cleanEnv(), encoding: "utf8" },
  );
  expect(result.status).toBe(0);
  const lines = result.stdout.split("\n").map((line) => line.trim());
  return { token: lines[1] as string, line: lines[3] as string };
}

/** The error a request was refused with (it must be refused). */
async function refusal(request: Promise<unknown>): Promise<Error> {
  const error = await request.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

/** The text of the recall prompt's one message. */
function promptText(prompt: { messages: { content: unknown }[] }): string {
  return (prompt.messages[0]?.content as { text?: string } | undefined)?.text ?? "";
}

describe("resources and the prompt on a --namespace-arg server, for a token without default", () => {
  const data = tempDir();
  const tokensFile = join(data.dir, "tokens.jsonl");
  const admin = "admin-token-".repeat(3);
  const alice = createToken("alice", "alice,team-*");
  let server: HttpProcess;
  let asAdmin: Client;
  let asAlice: Client;

  beforeAll(async () => {
    writeFileSync(tokensFile, `${alice.line}\n`);
    server = await startHttpProcess({
      dataDir: data.dir,
      args: ["--namespace-arg", "--tokens-file", tokensFile],
      env: { HMS_MCP_TOKEN: admin },
    });
    asAdmin = await server.connect(admin);
    asAlice = await server.connect(alice.token);
    await ok(asAdmin, "remember", {
      namespace: "alice",
      key: "/memories/plans.md",
      text: "alice plans a trip to Lisbon",
    });
    await ok(asAdmin, "remember", {
      namespace: "bob",
      key: "/memories/secret.md",
      text: "bob plans a trip to Oslo",
    });
  });
  afterAll(async () => {
    for (const client of [asAdmin, asAlice]) await client?.close();
    await server?.stop();
    data.remove();
  });

  it("resources/list lists the namespace named in _meta, with URIs in it", async () => {
    const { resources } = await asAlice.listResources({ _meta: { [NAMESPACE_META_KEY]: "alice" } });
    expect(resources).toEqual([
      {
        uri: "hms-mcp://alice/%2Fmemories%2Fplans.md",
        name: "/memories/plans.md",
        mimeType: "text/markdown",
        size: 28,
      },
    ]);
    const read = await asAlice.readResource({ uri: resources[0]?.uri as string });
    expect(read.contents[0]).toMatchObject({ text: "alice plans a trip to Lisbon" });
  });

  it("prompts/get recalls from the namespace argument, which prompts/list offers", async () => {
    const { prompts } = await asAlice.listPrompts();
    expect(prompts[0]?.arguments?.map((argument) => argument.name)).toEqual([
      "query",
      "k",
      "modified_after",
      "modified_before",
      "namespace",
    ]);
    const prompt = await asAlice.getPrompt({
      name: "recall",
      arguments: { query: "trip", namespace: "alice" },
    });
    expect(promptText(prompt)).toMatch(
      /<memory key="\/memories\/plans.md" lines="1-1" modified="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z">/,
    );
    expect(promptText(prompt)).not.toContain("Oslo");
  });

  it("answers a namespace outside the grants as the tools do, whether it exists or not", async () => {
    const toolAnswer = "namespace bob does not exist or this token may not use it";
    const requests = (namespace: string) => [
      asAlice.listResources({ _meta: { [NAMESPACE_META_KEY]: namespace } }),
      asAlice.readResource({ uri: `hms-mcp://${namespace}/%2Fmemories%2Fsecret.md` }),
      asAlice.getPrompt({ name: "recall", arguments: { query: "trip", namespace } }),
    ];
    const existing = await Promise.all(requests("bob").map(refusal));
    const missing = await Promise.all(requests("carol").map(refusal));
    for (const [index, error] of existing.entries()) {
      expect(error.message).toContain(toolAnswer);
      expect(error.message.replaceAll("bob", "NAME")).toBe(
        missing[index]?.message.replaceAll("carol", "NAME"),
      );
    }
    // Without a namespace, the server's own (default), which alice's token does not cover.
    const unnamed = await refusal(asAlice.listResources());
    expect(unnamed.message).toContain(
      "namespace default does not exist or this token may not use it",
    );
  });

  it("refuses a namespace name that is not valid, saying which names are", async () => {
    for (const request of [
      asAlice.listResources({ _meta: { [NAMESPACE_META_KEY]: "Alice/../bob" } }),
      asAlice.getPrompt({ name: "recall", arguments: { query: "x", namespace: "Alice/../bob" } }),
    ]) {
      expect((await refusal(request)).message).toContain(
        `namespace "Alice/../bob" is not valid: use 1 to 64 of a-z, 0-9, '_' and '-', starting with a letter or digit`,
      );
    }
  });
});
