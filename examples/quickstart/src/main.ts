/**
 * Quick start: Claude's memory tool served from a Holographic Memory store, in TypeScript.
 *
 * Two conversations, each with its own connection to an hms-mcp server that keeps the store
 * in .data/ beside this example:
 *
 * 1. "Remember that Acme Corp prefers email follow-ups." Claude views /memories and creates
 *    a file.
 * 2. A new session asks how to follow up with Acme Corp. Claude finds the file with
 *    memory_recall, then views it.
 *
 * Then it prints the final `view /memories` and a recall.
 *
 * With ANTHROPIC_API_KEY set it talks to the Anthropic API. Without it, it runs against a
 * scripted stand-in for the Messages API on loopback (@hms/scripted-model) and says so:
 * Claude's replies are then pre-written, while the memory tool, hms-mcp and the store are real.
 * With --keep, the replies follow the store: if it already holds the file the first
 * conversation would create (a run before wrote it), Claude finds it and says so instead.
 *
 *   pnpm --filter quickstart start            # or, in this folder: pnpm start
 *   pnpm --filter quickstart start --keep     # keep the store of earlier runs
 */
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import type { BetaContentBlockParam } from "@anthropic-ai/sdk/resources/beta";
import { parseScript, startScriptedModel } from "@hms/scripted-model";
import { HolographicMemoryError, HolographicMemoryTool } from "holographic-memory-claude-tool";

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA_DIR = resolve(process.env.QUICKSTART_DATA_DIR ?? resolve(HERE, "../.data"));
const MODEL = process.env.QUICKSTART_MODEL ?? "claude-sonnet-5-5";

/** The hms-mcp to start: HMS_MCP_BIN, else the one this example depends on. */
function hmsMcp(): { command: string; args: string[] } {
  const bin =
    process.env.HMS_MCP_BIN ??
    resolve(dirname(createRequire(import.meta.url).resolve("hms-mcp/package.json")), "dist/cli.js");
  return bin.endsWith(".js")
    ? { command: process.execPath, args: [bin] }
    : { command: bin, args: [] };
}

/** The Anthropic API with a key; otherwise the scripted stand-in, said plainly. */
async function messagesApi(
  keep: boolean,
): Promise<{ client: Anthropic; close: () => Promise<void> }> {
  if (process.env.ANTHROPIC_API_KEY) {
    console.log(`Talking to the Anthropic API (model ${MODEL}).\n`);
    return { client: new Anthropic(), close: async () => {} };
  }
  const script = await scriptedReplies(keep);
  const model = await startScriptedModel({ turns: parseScript(script) });
  console.log(
    "ANTHROPIC_API_KEY is not set, so this runs OFFLINE against a scripted stand-in for the " +
      `Messages API at ${model.url}.\nClaude's replies below are pre-written; the memory tool, ` +
      "hms-mcp and the store in .data/ are real. Set ANTHROPIC_API_KEY to talk to Claude.\n",
  );
  return {
    client: new Anthropic({ apiKey: "offline", baseURL: model.url, maxRetries: 0 }),
    close: () => model.close(),
  };
}

type Script = { turns: { content: { type: string; input?: Record<string, unknown> }[] }[] };

function readScript(name: string): Script {
  return JSON.parse(readFileSync(resolve(HERE, name), "utf8")) as Script;
}

/**
 * The pre-written replies that fit the store. `scripted-replies.json` creates a file; on a kept
 * store that already holds exactly that file, `scripted-replies-kept.json` finds it instead, so
 * Claude never claims a save that the tool refused. A kept store holding another text at that
 * path is refused: no pre-written reply could describe it truthfully.
 */
async function scriptedReplies(keep: boolean): Promise<Script> {
  const fresh = readScript("scripted-replies.json");
  if (!keep) return fresh;
  const created = fresh.turns
    .flatMap((turn) => turn.content)
    .find((block) => block.type === "tool_use" && block.input?.command === "create")?.input;
  const path = String(created?.path);
  await using memory = await connect();
  let shown: string;
  try {
    shown = await memory.view({ command: "view", path });
  } catch (error) {
    if (HolographicMemoryError.isInstance(error) && error.code === "not_found") return fresh;
    throw error;
  }
  // The view's numbered lines, numbers removed, against the text the script would write.
  const stored = shown
    .split("\n")
    .slice(1)
    .map((line) => line.slice(line.indexOf("\t") + 1))
    .join("\n");
  if (stored === String(created?.file_text).replace(/\n$/, "")) {
    return readScript("scripted-replies-kept.json");
  }
  throw new Error(
    `--keep: the store in ${DATA_DIR} holds a ${path} that the scripted replies did not write, ` +
      "so they cannot follow it. Run without --keep (a new store), or set ANTHROPIC_API_KEY to " +
      "talk to Claude.",
  );
}

/** A connection to a new hms-mcp process on the store in DATA_DIR. */
function connect(): Promise<HolographicMemoryTool> {
  const { command, args } = hmsMcp();
  return HolographicMemoryTool.connect({
    connection: { command, args: [...args, "--data-dir", DATA_DIR, "--log-level", "warn"] },
  });
}

/** One conversation through the SDK's tool runner, printed as it happens. */
async function converse(client: Anthropic, memory: HolographicMemoryTool, prompt: string) {
  console.log(`User: ${prompt}`);
  const runner = client.beta.messages.toolRunner({
    model: MODEL,
    max_tokens: 1024,
    messages: [{ role: "user", content: prompt }],
    tools: [memory.asTool(), memory.recallTool()],
  });
  for await (const message of runner) {
    for (const block of message.content) {
      if (block.type === "text") console.log(`Claude: ${block.text}`);
      if (block.type === "tool_use")
        console.log(`Claude -> ${block.name}: ${JSON.stringify(block.input)}`);
    }
    // The runner reuses these results rather than running the tools again.
    const response = await runner.generateToolResponse();
    const blocks = Array.isArray(response?.content) ? response.content : [];
    for (const block of blocks as BetaContentBlockParam[]) {
      if (block.type !== "tool_result") continue;
      console.log(`  ${block.is_error ? "error" : "result"}:\n${indent(text(block.content))}`);
    }
  }
  console.log();
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { text?: string }) => part.text ?? "").join("");
}

function indent(value: string): string {
  return value
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

async function main(): Promise<void> {
  const keep = process.argv.slice(2).includes("--keep");
  if (!keep) rmSync(DATA_DIR, { recursive: true, force: true });
  const api = await messagesApi(keep);
  try {
    console.log("=== Conversation 1 ===");
    {
      await using memory = await connect();
      await converse(api.client, memory, "Remember that Acme Corp prefers email follow-ups.");
    }

    console.log("=== Conversation 2 (a new session, a new hms-mcp process, the same store) ===");
    await using memory = await connect();
    await converse(api.client, memory, "How should I follow up with Acme Corp?");

    console.log("=== view /memories ===");
    console.log(await memory.view({ command: "view", path: "/memories" }));
    console.log();
    console.log('=== memory_recall {"query": "how to contact Acme"} ===');
    console.log(await memory.recallTool().run({ query: "how to contact Acme" }));
  } finally {
    await api.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
