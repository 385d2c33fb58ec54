/**
 * Watch: one agent reacts to another's write.
 *
 * Two agents share one Holographic Memory store, each through its own hms-mcp process. The
 * reviewer watches /memories/research (`memory.watch`, MCP's resources/subscribe); the
 * researcher, in a conversation of its own, writes a finding there. The reviewer hears of it
 * as soon as it is written, without polling, and runs a conversation that reviews it.
 *
 * Without ANTHROPIC_API_KEY both conversations run against a scripted stand-in for the Messages
 * API on loopback (@hms/scripted-model) and say so; the memory tools, the two hms-mcp
 * processes and the store are real.
 *
 *   pnpm --filter watch-example start
 */
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { parseScript, startScriptedModel } from "@hms/scripted-model";
import { HolographicMemoryTool, type MemoryChange } from "holographic-memory-claude-tool";

const HERE = dirname(fileURLToPath(import.meta.url));
const STORE = resolve(process.env.WATCH_EXAMPLE_DATA_DIR ?? resolve(HERE, "../.data"));
const MODEL = process.env.WATCH_EXAMPLE_MODEL ?? "claude-sonnet-5-5";

const require = createRequire(import.meta.url);

/** An agent's memory tool: an hms-mcp process of its own on the shared store. */
function connect(): Promise<HolographicMemoryTool> {
  const manifestPath = require.resolve("hms-mcp/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    bin: Record<string, string>;
  };
  const server = resolve(dirname(manifestPath), manifest.bin["hms-mcp"] as string);
  return HolographicMemoryTool.connect({
    connection: {
      command: process.execPath,
      args: [server, "--data-dir", STORE, "--log-level", "warn"],
    },
  });
}

async function messagesApi(): Promise<{ client: Anthropic; close: () => Promise<void> }> {
  if (process.env.ANTHROPIC_API_KEY) {
    console.log(`Talking to the Anthropic API (model ${MODEL}).\n`);
    return { client: new Anthropic(), close: async () => {} };
  }
  const script = readFileSync(resolve(HERE, "scripted-replies.json"), "utf8");
  const model = await startScriptedModel({ turns: parseScript(JSON.parse(script)) });
  console.log(
    "ANTHROPIC_API_KEY is not set, so this runs OFFLINE against a scripted stand-in for the " +
      `Messages API at ${model.url}.\nClaude's replies are pre-written; the memory tools, both ` +
      "hms-mcp processes and the store are real. Set ANTHROPIC_API_KEY to talk to Claude.\n",
  );
  return {
    client: new Anthropic({ apiKey: "offline", baseURL: model.url, maxRetries: 0 }),
    close: () => model.close(),
  };
}

/** One conversation of an agent with its memory tool; prints Claude's last words. */
async function converse(
  api: Anthropic,
  who: string,
  memory: HolographicMemoryTool,
  prompt: string,
): Promise<void> {
  console.log(`${who} <- ${prompt}`);
  const final = await api.beta.messages.toolRunner({
    model: MODEL,
    max_tokens: 1024,
    messages: [{ role: "user", content: prompt }],
    tools: [memory.asTool()],
  });
  for (const block of final.content) {
    if (block.type === "text") console.log(`${who}: ${block.text}`);
  }
}

async function main(): Promise<void> {
  rmSync(STORE, { recursive: true, force: true });
  const api = await messagesApi();
  await using reviewer = await connect();
  await using researcher = await connect();
  try {
    // The reviewer listens before anyone writes: it hears of every finding from now on.
    let heard: (change: MemoryChange) => void = () => {};
    const firstFinding = new Promise<MemoryChange>((resolvePromise) => {
      heard = resolvePromise;
    });
    const stop = await reviewer.watch("/memories/research", (change) => {
      console.log(`reviewer heard: ${change.op} ${change.path}`);
      if (change.op === "create" || change.op === "update") heard(change);
    });
    console.log("reviewer is watching /memories/research\n");

    await converse(
      api.client,
      "researcher",
      researcher,
      "Record what we learned about Acme's and Globex's pricing.",
    );
    const change = await firstFinding;
    console.log();
    await converse(
      api.client,
      "reviewer",
      reviewer,
      `${change.path} was just written by the researcher: review it, and note what needs checking.`,
    );
    await stop();
    console.log();
    console.log(await reviewer.view({ command: "view", path: "/memories/reviews/pricing.md" }));
  } finally {
    await api.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
