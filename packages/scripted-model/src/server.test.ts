import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import { afterEach, describe, expect, it } from "vitest";
import { type ScriptedModel, startScriptedModel } from "./index";

const open: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((m) => m.close()));
});

async function start(...args: Parameters<typeof startScriptedModel>) {
  const model = await startScriptedModel(...args);
  open.push(model);
  return model;
}

/** The messages of the `index`-th request the model received. */
function sentMessages(model: ScriptedModel, index: number) {
  const request = model.requests[index];
  if (!request) throw new Error(`the model received no request number ${index}`);
  return request.body.messages as Array<{ role: string; content: unknown }>;
}

function client(url: string) {
  return new Anthropic({ apiKey: "test-key-not-used", baseURL: url, maxRetries: 0 });
}

const echoTool = (calls: unknown[]) =>
  betaTool({
    name: "echo",
    description: "Echoes its text, or fails when told to.",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" }, fail: { type: "boolean" } },
      required: ["text"],
    },
    run: ({ text, fail }) => {
      calls.push(text);
      if (fail) throw new ToolError(`refused: ${text}`);
      return `echo: ${text}`;
    },
  });

describe("scripted model with the SDK's tool runner", () => {
  it("serves replies in order, and the runner dispatches tool_use blocks and returns their results", async () => {
    const model = await start({
      turns: [
        { content: [{ type: "tool_use", id: "toolu_1", name: "echo", input: { text: "hi" } }] },
        { content: [{ type: "text", text: "done" }] },
      ],
    });
    const calls: unknown[] = [];
    const final = await client(model.url).beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "say hi" }],
      tools: [echoTool(calls)],
    });

    expect(final.content).toEqual([{ type: "text", text: "done" }]);
    expect(calls).toEqual(["hi"]);
    expect(model.requests).toHaveLength(2);
    const first = model.requests[0]?.body;
    expect(first?.tools).toEqual([
      expect.objectContaining({ name: "echo", input_schema: expect.any(Object) }),
    ]);
    expect(sentMessages(model, 1).at(-1)).toEqual({
      role: "user",
      content: [
        expect.objectContaining({
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: "echo: hi",
        }),
      ],
    });
    expect(model.remaining()).toBe(0);
  });

  it("carries a tool error back to the model as is_error", async () => {
    const model = await start({
      turns: [
        { content: [{ type: "tool_use", name: "echo", input: { text: "x", fail: true } }] },
        { content: [{ type: "text", text: "ok" }] },
      ],
    });
    await client(model.url).beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "fail" }],
      tools: [echoTool([])],
    });
    expect(sentMessages(model, 1).at(-1)?.content).toEqual([
      expect.objectContaining({ type: "tool_result", content: "refused: x", is_error: true }),
    ]);
  });

  it("streams the same replies as server-sent events", async () => {
    const model = await start({
      turns: [
        { content: [{ type: "tool_use", name: "echo", input: { text: "streamed" } }] },
        { content: [{ type: "text", text: "finished" }] },
      ],
    });
    const calls: unknown[] = [];
    const runner = client(model.url).beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: "stream it" }],
      tools: [echoTool(calls)],
    });
    const final = await runner.runUntilDone();
    expect(final.content).toEqual([expect.objectContaining({ type: "text", text: "finished" })]);
    expect(calls).toEqual(["streamed"]);
    expect(model.requests.map((r) => r.body.stream)).toEqual([true, true]);
  });

  it("lets a step build its reply from the request", async () => {
    const model = await start({
      turns: [
        (request) => ({
          content: [{ type: "text", text: `you sent ${request.messages.length} message(s)` }],
        }),
      ],
    });
    const reply = await client(model.url).beta.messages.create({
      model: "claude-test",
      max_tokens: 10,
      messages: [{ role: "user", content: "count" }],
    });
    expect(reply.content).toEqual([{ type: "text", text: "you sent 1 message(s)" }]);
  });

  it("refuses a request once the script is exhausted, naming the count", async () => {
    const model = await start({ turns: [{ content: [{ type: "text", text: "only" }] }] });
    const c = client(model.url);
    const body = {
      model: "claude-test",
      max_tokens: 10,
      messages: [{ role: "user" as const, content: "again" }],
    };
    await c.beta.messages.create(body);
    await expect(c.beta.messages.create(body)).rejects.toThrow(
      "the script has no reply left (it had 1; this is request 2)",
    );
  });

  it("refuses a malformed request and records nothing", async () => {
    const model = await start({ turns: [{ content: [{ type: "text", text: "unused" }] }] });
    const response = await fetch(`${model.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "`max_tokens` must be a number" },
    });
    expect(model.requests).toHaveLength(0);
    expect(model.remaining()).toBe(1);
  });
});

describe("scripted-model command line", () => {
  it("prints its URL as a JSON line and serves the script file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scripted-model-"));
    const script = join(dir, "script.json");
    writeFileSync(
      script,
      JSON.stringify({ turns: [{ content: [{ type: "text", text: "hello" }] }] }),
    );
    const child = spawn(process.execPath, [join(__dirname, "../dist/cli.js"), "--script", script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const lines = createInterface({ input: child.stdout });
      const [line] = (await once(lines, "line")) as [string];
      const { url } = JSON.parse(line) as { url: string };
      const reply = await client(url).beta.messages.create({
        model: "claude-test",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
      });
      expect(reply.content).toEqual([{ type: "text", text: "hello" }]);
      const recorded = (await (await fetch(`${url}/requests`)).json()) as Array<{ body: unknown }>;
      expect(recorded.map((r) => r.body)).toEqual([
        { model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "hi" }] },
      ]);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });

  it("exits with status 2 and a reason when the script is invalid", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scripted-model-"));
    const script = join(dir, "bad.json");
    writeFileSync(script, JSON.stringify({ turns: [{ content: [] }] }));
    const child = spawn(process.execPath, [join(__dirname, "../dist/cli.js"), "--script", script]);
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stderr).toContain('turns[0] must be an object with a non-empty "content" array');
  });
});
