// The Anthropic SDK's tool runner (client.beta.messages.toolRunner) end to end: a scripted
// stand-in for the Messages API on loopback (no Anthropic API call), the real tool, a real
// hms-mcp process. What the runner sends and what the store holds are both checked.
import { createRequire } from "node:module";
import Anthropic from "@anthropic-ai/sdk";
import type { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { InMemoryBackend, recallToolDefinition } from "@hms/memory-core";
import { checkMemoryPath } from "@hms/memory-paths";
import { type ScriptedModel, startScriptedModel } from "@hms/scripted-model";
import { hmsMcpCommand, hmsMcpOnPath, tempDir } from "@hms/test-support";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HolographicMemoryTool } from "../../src/index.js";

const data = tempDir();
let memory: HolographicMemoryTool;
let backend: HmsMemoryBackend;
let model: ScriptedModel | undefined;

beforeAll(async () => {
  memory = await HolographicMemoryTool.connect({
    connection: hmsMcpCommand(["--data-dir", data.dir, "--log-level", "warn"]),
  });
  backend = memory.backend as HmsMemoryBackend;
});
afterAll(async () => {
  await memory?.close();
  data.remove();
});
beforeEach(async () => {
  await backend.call("forget", { prefix: "/memories/" });
});
afterEach(async () => {
  await model?.close();
  model = undefined;
});

function client(url: string): Anthropic {
  return new Anthropic({ apiKey: "not-used-offline", baseURL: url, maxRetries: 0 });
}

type ToolResult = { type: string; tool_use_id: string; content: unknown; is_error?: boolean };

/** The tool_result blocks of the last user message of the `index`-th request. */
function toolResults(index: number): ToolResult[] {
  const messages = model?.requests[index]?.body.messages as Array<{
    role: string;
    content: unknown;
  }>;
  const last = messages.at(-1);
  expect(last?.role).toBe("user");
  return ((last?.content ?? []) as ToolResult[]).filter((block) => block.type === "tool_result");
}

async function allKeys(): Promise<string[]> {
  const page = await backend.call("list", { limit: 1000 });
  return (page.items as Array<{ key: string }>).map((item) => item.key);
}

describe("client.beta.messages.toolRunner with HolographicMemoryTool", () => {
  it("declares both tools, dispatches tool_use blocks to the store and sends the results back", async () => {
    model = await startScriptedModel({
      turns: [
        {
          content: [
            { type: "text", text: "Let me check my memory first." },
            {
              type: "tool_use",
              id: "toolu_view",
              name: "memory",
              input: { command: "view", path: "/memories" },
            },
            {
              type: "tool_use",
              id: "toolu_create",
              name: "memory",
              input: {
                command: "create",
                path: "/memories/customers/acme.md",
                file_text: "# Acme Corp\n- prefers email follow-ups\n",
              },
            },
          ],
        },
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_recall",
              name: "memory_recall",
              input: { query: "acme email", k: 2 },
            },
          ],
        },
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_range",
              name: "memory",
              input: { command: "view", path: "/memories/customers/acme.md", view_range: [2, 2] },
            },
          ],
        },
        { content: [{ type: "text", text: "Acme prefers email." }] },
      ],
    });
    const final = await client(model.url).beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Remember that Acme Corp prefers email follow-ups." }],
      tools: [memory.asTool(), memory.recallTool()],
    });

    expect(final.content).toEqual([{ type: "text", text: "Acme prefers email." }]);
    expect(model.requests).toHaveLength(4);
    const tools = model.requests[0]?.body.tools;
    expect(tools).toEqual([{ type: "memory_20250818", name: "memory" }, recallToolDefinition()]);

    expect(toolResults(1)).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_view",
        content:
          "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
      },
      {
        type: "tool_result",
        tool_use_id: "toolu_create",
        content: "File created successfully at: /memories/customers/acme.md",
      },
    ]);
    const [recalled] = toolResults(2);
    expect(recalled?.is_error).toBeUndefined();
    // The only memory holds each query word once, at the average length: 1 / (k1 + 1).
    expect(recalled?.content).toMatch(
      /^Found 1 memory file matching the query[^\n]*\n\n1\. \/memories\/customers\/acme\.md \(lines 1-2, score 0\.4545, modified \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\)\n {4}# Acme Corp\n {4}- prefers email follow-ups$/,
    );
    expect(toolResults(3)).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_range",
        content:
          "Here's the content of /memories/customers/acme.md with line numbers:\n     2\t- prefers email follow-ups",
      },
    ]);
    expect((await backend.read("/memories/customers/acme.md"))?.content).toBe(
      "# Acme Corp\n- prefers email follow-ups\n",
    );
  });

  it("answers a traversal attempt with is_error and the bare message, and stores nothing", async () => {
    model = await startScriptedModel({
      turns: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_escape",
              name: "memory",
              input: { command: "create", path: "/memories/../escape.md", file_text: "pwned" },
            },
          ],
        },
        { content: [{ type: "text", text: "That path is not allowed." }] },
      ],
    });
    await client(model.url).beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Write outside your memory." }],
      tools: [memory.asTool(), memory.recallTool()],
    });
    expect(toolResults(1)).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_escape",
        is_error: true,
        content:
          'Invalid memory path /memories/../escape.md: it contains a ".." segment, and relative segments are not allowed. Write the full path from /memories without "." or ".." segments.',
      },
    ]);
    expect(await allKeys()).toEqual([]);
  });

  it("answers an unknown command and a bad recall with the engine's messages", async () => {
    model = await startScriptedModel({
      turns: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_bad",
              name: "memory",
              input: { command: "chmod", path: "/memories" },
            },
            {
              type: "tool_use",
              id: "toolu_k",
              name: "memory_recall",
              input: { query: "x", k: 99 },
            },
          ],
        },
        { content: [{ type: "text", text: "ok" }] },
      ],
    });
    await client(model.url).beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 1024,
      messages: [{ role: "user", content: "?" }],
      tools: [memory.asTool(), memory.recallTool()],
    });
    expect(toolResults(1)).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_bad",
        is_error: true,
        content:
          "Unknown memory command `chmod`. Use one of: view, create, str_replace, insert, delete, rename.",
      },
      {
        type: "tool_result",
        tool_use_id: "toolu_k",
        is_error: true,
        content: "Invalid `k` parameter: 99. It should be from 1 to 50.",
      },
    ]);
  });

  it("works the same when the runner streams", async () => {
    model = await startScriptedModel({
      turns: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_stream",
              name: "memory",
              input: { command: "create", path: "/memories/streamed.md", file_text: "streamed\n" },
            },
          ],
        },
        { content: [{ type: "text", text: "ok" }] },
      ],
    });
    const runner = client(model.url).beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 1024,
      stream: true,
      messages: [{ role: "user", content: "Remember it." }],
      tools: [memory.asTool(), memory.recallTool()],
    });
    for await (const stream of runner) await stream.finalMessage();
    expect(model.requests[0]?.body.stream).toBe(true);
    expect(toolResults(1)).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_stream",
        content: "File created successfully at: /memories/streamed.md",
      },
    ]);
    expect((await backend.read("/memories/streamed.md"))?.content).toBe("streamed\n");
  });

  it("passes extra properties such as cache_control into the tool definition", async () => {
    model = await startScriptedModel({ turns: [{ content: [{ type: "text", text: "hi" }] }] });
    await client(model.url).beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
      tools: [memory.asTool({ cache_control: { type: "ephemeral" } })],
    });
    expect(model.requests[0]?.body.tools).toEqual([
      { cache_control: { type: "ephemeral" }, type: "memory_20250818", name: "memory" },
    ]);
  });
});

describe("the spec's TypeScript example", () => {
  it("runs as written, with hms-mcp on PATH and only the model endpoint changed", async () => {
    const onPath = hmsMcpOnPath();
    const saved = { PATH: process.env.PATH, DATA: process.env.HMS_MCP_DATA_DIR };
    process.env.PATH = onPath.path;
    process.env.HMS_MCP_DATA_DIR = `${data.dir}/spec-example`;
    model = await startScriptedModel({
      turns: [
        {
          content: [
            { type: "tool_use", name: "memory", input: { command: "view", path: "/memories" } },
          ],
        },
        {
          content: [
            {
              type: "tool_use",
              name: "memory",
              input: {
                command: "create",
                path: "/memories/acme.md",
                file_text: "Acme Corp prefers email follow-ups.\n",
              },
            },
          ],
        },
        { content: [{ type: "text", text: "Saved." }] },
      ],
    });
    const client = new Anthropic({ baseURL: model.url, apiKey: "not-used-offline" });
    try {
      // ---- the example, as in the spec ----
      const memory = await HolographicMemoryTool.connect({ connection: { command: "hms-mcp" } });
      const final = await client.beta.messages.toolRunner({
        model: "claude-sonnet-5-5",
        max_tokens: 1024,
        messages: [{ role: "user", content: "Remember that Acme Corp prefers email follow-ups." }],
        tools: [memory.asTool(), memory.recallTool()],
      });
      await memory.close();
      // ---- end of the example ----
      expect(final.content).toEqual([{ type: "text", text: "Saved." }]);
      expect(model.requests[0]?.body.model).toBe("claude-sonnet-5-5");
    } finally {
      process.env.PATH = saved.PATH;
      if (saved.DATA === undefined) delete process.env.HMS_MCP_DATA_DIR;
      else process.env.HMS_MCP_DATA_DIR = saved.DATA;
      onPath.remove();
    }
    // The file is in the store the example's server used.
    const check = await HolographicMemoryTool.connect({
      connection: hmsMcpCommand(["--data-dir", `${data.dir}/spec-example`, "--log-level", "warn"]),
    });
    try {
      expect(await check.view({ command: "view", path: "/memories/acme.md" })).toBe(
        "Here's the content of /memories/acme.md with line numbers:\n     1\tAcme Corp prefers email follow-ups.",
      );
    } finally {
      await check.close();
    }
  });
});

describe("the CommonJS build", () => {
  it("throws the CommonJS SDK's ToolError, so a require()-based runner sends the bare message", async () => {
    const require = createRequire(import.meta.url);
    const cjs = require("../../dist/index.cjs") as typeof import("../../src/index.js");
    const { ToolError: CjsToolError } = require("@anthropic-ai/sdk/lib/tools/ToolError") as {
      ToolError: typeof ToolError;
    };
    const tool = new cjs.HolographicMemoryTool(new InMemoryBackend());
    const error = await tool.view({ command: "view", path: "/nowhere" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CjsToolError);
    expect((error as Error).message).toBe(checkMemoryPath("/nowhere")?.message);
  });
});
