/**
 * A long-running agent: Claude's memory tool with context editing.
 *
 * An agent that works for long fills its context with tool results (pages, logs, tickets)
 * it no longer needs. Context editing (`context_management` with `clear_tool_uses_20250919`)
 * lets the API drop the oldest of them once the context passes a size, while the memory tool
 * keeps what matters: Claude writes what it learns to /memories as it goes, and the memory
 * tool's own results are kept out of what is cleared (`exclude_tools`), so its notes stay in
 * view. Here Claude works through a queue of three support tickets (`read_ticket`, a local
 * tool returning each ticket with its attached log), saving each customer's preference; by the
 * third ticket the first one's text has been cleared, and Claude reads its notes instead.
 *
 * With ANTHROPIC_API_KEY set it talks to the Anthropic API (with this short queue the context
 * may never reach the trigger, so nothing is cleared). Without it, it runs against a scripted
 * stand-in for the Messages API on loopback (@hms/scripted-model), which checks every request's
 * context editing as the API takes it, and says so: Claude's replies and the API's report of
 * what it cleared are then pre-written, while the memory tool, hms-mcp and the store are real.
 *
 *   pnpm --filter context-editing-example start      # or, in this folder: pnpm start
 */
import { readFileSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import type {
  BetaContentBlockParam,
  BetaContextManagementConfig,
} from "@anthropic-ai/sdk/resources/beta";
import { parseScript, startScriptedModel } from "@hms/scripted-model";
import { HolographicMemoryTool } from "holographic-memory-claude-tool";
import { readTicket, TICKET_IDS } from "./tickets.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA_DIR = resolve(process.env.CONTEXT_EDITING_DATA_DIR ?? resolve(HERE, "../.data"));
const MODEL = process.env.CONTEXT_EDITING_MODEL ?? "claude-sonnet-5-5";

/** Context editing needs this beta, named in the request's `betas`. */
const CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27";

/**
 * Past 30,000 input tokens, clear the oldest tool uses (at least 2,000 tokens' worth, so that
 * a cleared prompt cache is worth it), keeping the 3 most recent, and never the memory tool's:
 * its results are Claude's own notes.
 */
function contextManagement(memoryToolName: string): BetaContextManagementConfig {
  return {
    edits: [
      {
        type: "clear_tool_uses_20250919",
        trigger: { type: "input_tokens", value: 30_000 },
        keep: { type: "tool_uses", value: 3 },
        clear_at_least: { type: "input_tokens", value: 2_000 },
        exclude_tools: [memoryToolName],
      },
    ],
  };
}

const readTicketTool = betaTool({
  name: "read_ticket",
  description: "Reads a support ticket by its id (T-101 ...), with the log attached to it.",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string" } },
    required: ["id"],
    additionalProperties: false,
  },
  run: ({ id }) => readTicket(id),
});

/** The Anthropic API with a key; otherwise the scripted stand-in, said plainly. */
async function messagesApi(): Promise<{ client: Anthropic; close: () => Promise<void> }> {
  if (process.env.ANTHROPIC_API_KEY) {
    console.log(`Talking to the Anthropic API (model ${MODEL}).\n`);
    return { client: new Anthropic(), close: async () => {} };
  }
  const script = JSON.parse(readFileSync(resolve(HERE, "scripted-replies.json"), "utf8"));
  const model = await startScriptedModel({ turns: parseScript(script) });
  console.log(
    "ANTHROPIC_API_KEY is not set, so this runs OFFLINE against a scripted stand-in for the " +
      `Messages API at ${model.url}.\nClaude's replies and what the API cleared are pre-written; ` +
      "the memory tool, hms-mcp and the store in .data/ are real, and the stand-in checks each " +
      "request's context editing. Set ANTHROPIC_API_KEY to talk to Claude.\n",
  );
  return {
    client: new Anthropic({ apiKey: "offline", baseURL: model.url, maxRetries: 0 }),
    close: () => model.close(),
  };
}

async function main(): Promise<void> {
  rmSync(DATA_DIR, { recursive: true, force: true });
  const api = await messagesApi();
  try {
    // The bare name "hms-mcp": the one installed in this project's node_modules.
    await using memory = await HolographicMemoryTool.connect({
      connection: { command: "hms-mcp", args: ["--data-dir", DATA_DIR] },
    });
    const memoryTool = memory.asTool();
    const prompt =
      `Work through the support queue, tickets ${TICKET_IDS.join(", ")}, one at a time. ` +
      "Save what you learn about each customer in your memory as you go: old ticket texts " +
      "are cleared from the conversation once it grows long.";
    console.log(`User: ${prompt}`);
    const runner = api.client.beta.messages.toolRunner({
      model: MODEL,
      max_tokens: 2048,
      betas: [CONTEXT_MANAGEMENT_BETA],
      context_management: contextManagement(memoryTool.name),
      messages: [{ role: "user", content: prompt }],
      tools: [memoryTool, memory.recallTool(), readTicketTool],
    });
    for await (const message of runner) {
      for (const edit of message.context_management?.applied_edits ?? []) {
        if (edit.type === "clear_tool_uses_20250919") {
          console.log(
            `[context editing: the API cleared ${edit.cleared_tool_uses} tool use(s), ` +
              `${edit.cleared_input_tokens} input tokens, from this request]`,
          );
        }
      }
      for (const block of message.content) {
        if (block.type === "text") console.log(`Claude: ${block.text}`);
        if (block.type === "tool_use")
          console.log(`Claude -> ${block.name}: ${JSON.stringify(block.input)}`);
      }
      // The runner reuses these results rather than running the tools again.
      const response = await runner.generateToolResponse();
      const blocks = Array.isArray(response?.content) ? response.content : [];
      for (const block of blocks as BetaContentBlockParam[]) {
        if (block.type === "tool_result") console.log(summary(text(block.content)));
      }
    }
    console.log();
    console.log("=== view /memories ===");
    console.log(await memory.view({ command: "view", path: "/memories" }));
  } finally {
    await api.close();
  }
}

/** A tool result as printed: a ticket by its first two lines and its size, the rest whole. */
function summary(result: string): string {
  const lines = result.split("\n");
  const shown = lines[0]?.startsWith("Ticket ")
    ? [...lines.slice(0, 2), `(${lines.length} lines, ${result.length} characters)`]
    : lines;
  return shown.map((line) => `    ${line}`).join("\n");
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { text?: string }) => part.text ?? "").join("");
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
