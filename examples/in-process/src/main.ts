/**
 * In process: Claude's memory tool with hms-mcp's server running in this same process
 * (`connection: { inProcess: { dataDir } }`), over MCP's in-memory transport.
 *
 * 1. A conversation: Claude views /memories and saves that Acme Corp prefers email.
 * 2. The same store from another process: `hms`, run while the tool stays open, prints the file
 *    and moves it; the tool in this process sees the move. The store files are shared as with
 *    a server process: in process changes where the server runs, not who can reach the store.
 * 3. What a command costs here, in process and over stdio (a server process on the same
 *    store): the time to open, and a `view` on average.
 *
 * Choose in process when the agent is a Node.js program that wants the lowest cost per memory
 * command and no server to run or find; stdio (the default) when you want the server apart
 * (its own process and memory, a crash of either leaves the other standing) or your program
 * is not Node.js (the Python package starts hms-mcp this way); HTTP when one server serves many
 * users, agents or machines (tokens per namespace, the web inspector, PostgreSQL replicas).
 *
 * Without ANTHROPIC_API_KEY it runs against a scripted stand-in for the Messages API on
 * loopback (@hms/scripted-model) and says so; the memory tool, hms-mcp, hms and the store are
 * real.
 *
 *   pnpm --filter in-process-example start
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { parseScript, startScriptedModel } from "@hms/scripted-model";
import { type HmsConnection, HolographicMemoryTool } from "holographic-memory-claude-tool";

const HERE = dirname(fileURLToPath(import.meta.url));
const STORE = resolve(process.env.IN_PROCESS_EXAMPLE_DATA_DIR ?? resolve(HERE, "../.data"));
const MODEL = process.env.IN_PROCESS_EXAMPLE_MODEL ?? "claude-sonnet-5-5";
const FILE = "/memories/customers/acme-corp.md";
const MOVED = "/memories/clients/acme-corp.md";
/** Views timed each way in part 3. */
const VIEWS = 200;

const require = createRequire(import.meta.url);

/** A program of a package this example depends on, by its bin name. */
function bin(pkg: string, name: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    bin: Record<string, string>;
  };
  return resolve(dirname(manifestPath), manifest.bin[name] as string);
}

/** Runs `hms ...args` (another process) on the store and prints what it printed. */
function hms(...args: string[]): void {
  console.log(`$ hms ${args.join(" ")}`);
  const result = spawnSync(
    process.execPath,
    [bin("hms-cli", "hms"), "--data-dir", STORE, ...args],
    { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
  );
  process.stdout.write(result.stdout);
  if (result.status !== 0) throw new Error(`hms ${args[0]} failed: ${result.stderr}`);
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
      `Messages API at ${model.url}.\nClaude's replies are pre-written; the memory tool, hms-mcp, ` +
      "hms and the store are real. Set ANTHROPIC_API_KEY to talk to Claude.\n",
  );
  return {
    client: new Anthropic({ apiKey: "offline", baseURL: model.url, maxRetries: 0 }),
    close: () => model.close(),
  };
}

/** Opens a tool over `connection`, then times its first answer and `VIEWS` views of `path`. */
async function cost(connection: HmsConnection, path: string) {
  const started = performance.now();
  const memory = await HolographicMemoryTool.connect({ connection });
  try {
    await memory.view({ command: "view", path: "/memories" });
    const open = performance.now() - started;
    const viewing = performance.now();
    for (let i = 0; i < VIEWS; i++) await memory.view({ command: "view", path });
    return { open, view: (performance.now() - viewing) / VIEWS };
  } finally {
    await memory.close();
  }
}

async function main(): Promise<void> {
  rmSync(STORE, { recursive: true, force: true });

  console.log("=== 1. A conversation, with hms-mcp's server in this process ===");
  const api = await messagesApi();
  await using memory = await HolographicMemoryTool.connect({
    connection: { inProcess: { dataDir: STORE, logLevel: "warn" } },
  });
  try {
    const prompt = "Remember that Acme Corp prefers email follow-ups.";
    console.log(`User: ${prompt}`);
    const final = await api.client.beta.messages.toolRunner({
      model: MODEL,
      max_tokens: 1024,
      messages: [{ role: "user", content: prompt }],
      tools: [memory.asTool(), memory.recallTool()],
    });
    for (const block of final.content) {
      if (block.type === "text") console.log(`Claude: ${block.text}`);
    }
  } finally {
    await api.close();
  }
  console.log();

  console.log("=== 2. The same store, from another process ===");
  hms("cat", FILE);
  hms("mv", FILE, MOVED);
  console.log("The tool in this process, after the move:");
  console.log(await memory.view({ command: "view", path: "/memories" }));
  console.log();

  console.log("=== 3. What a command costs, in process and over stdio ===");
  const inProcess = await cost({ inProcess: { dataDir: STORE, logLevel: "warn" } }, MOVED);
  const stdio = await cost(
    {
      command: process.execPath,
      args: [bin("hms-mcp", "hms-mcp"), "--data-dir", STORE, "--log-level", "warn"],
    },
    MOVED,
  );
  const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
  console.log(`in process: opened in ${ms(inProcess.open)}, a view takes ${ms(inProcess.view)}`);
  console.log(`over stdio: opened in ${ms(stdio.open)}, a view takes ${ms(stdio.view)}`);
  console.log(
    "(on this machine, now: `pnpm bench memory-tool` measures a whole trace of commands). " +
      "In process saves the server process and the pipe; stdio keeps the server apart and " +
      "serves any language; HTTP serves many clients from one server.",
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
