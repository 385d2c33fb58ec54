/**
 * History: what Claude changed in its memory, and how to undo it.
 *
 * 1. A memory directory kept by the Anthropic SDK's own filesystem memory tool
 *    (BetaLocalFilesystemMemoryTool, in .data/sdk-memory/) is moved into a Holographic Memory
 *    store with `hms import`, as an existing user of that tool would.
 * 2. A conversation tells Claude that Acme Corp now wants phone calls; Claude edits the file.
 * 3. The file's history shows both versions and the change between them; the imported
 *    version is restored (itself a new version, so it can be undone too).
 *
 * Without ANTHROPIC_API_KEY it runs against a scripted stand-in for the Messages API on
 * loopback (@hms/scripted-model) and says so; the memory tools, hms-mcp, hms and the store
 * are real.
 *
 *   pnpm --filter history-example start
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { BetaLocalFilesystemMemoryTool } from "@anthropic-ai/sdk/tools/memory/node";
import { parseScript, startScriptedModel } from "@hms/scripted-model";
import { HolographicMemoryTool } from "holographic-memory-claude-tool";

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA = resolve(process.env.HISTORY_EXAMPLE_DATA_DIR ?? resolve(HERE, "../.data"));
const SDK_MEMORY = join(DATA, "sdk-memory");
const STORE = join(DATA, "store");
const MODEL = process.env.HISTORY_EXAMPLE_MODEL ?? "claude-sonnet-5-5";
const FILE = "/memories/customers/acme-corp.md";

const require = createRequire(import.meta.url);

/** A program of a package this example depends on, by its bin name. */
function bin(pkg: string, name: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    bin: Record<string, string>;
  };
  return resolve(dirname(manifestPath), manifest.bin[name] as string);
}

/** Runs `hms ...args` on the store and prints what it printed. */
function hms(...args: string[]): void {
  console.log(`$ hms ${args.join(" ")}`);
  const result = spawnSync(
    process.execPath,
    [bin("hms-cli", "hms"), "--data-dir", STORE, ...args],
    {
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    },
  );
  process.stdout.write(result.stdout);
  if (result.status !== 0) throw new Error(`hms ${args[0]} failed: ${result.stderr}`);
  console.log();
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

async function main(): Promise<void> {
  rmSync(DATA, { recursive: true, force: true });

  console.log("=== 1. A memory directory of the SDK's filesystem tool, imported ===");
  const sdkTool = await BetaLocalFilesystemMemoryTool.init(SDK_MEMORY);
  await sdkTool.create({
    command: "create",
    path: FILE,
    file_text: "# Acme Corp\n- Prefers email follow-ups (not phone calls).\n",
  });
  hms("import", "--from", SDK_MEMORY);

  console.log("=== 2. A conversation in which Claude edits the file ===");
  const api = await messagesApi();
  await using memory = await HolographicMemoryTool.connect({
    connection: {
      command: process.execPath,
      args: [bin("hms-mcp", "hms-mcp"), "--data-dir", STORE, "--log-level", "warn"],
    },
  });
  try {
    const prompt = "Update Acme Corp's contact preference: they now want phone calls on Mondays.";
    console.log(`User: ${prompt}`);
    const final = await api.client.beta.messages.toolRunner({
      model: MODEL,
      max_tokens: 1024,
      messages: [{ role: "user", content: prompt }],
      tools: [memory.asTool()],
    });
    for (const block of final.content)
      if (block.type === "text") console.log(`Claude: ${block.text}`);
  } finally {
    await api.close();
  }
  console.log();

  console.log("=== 3. Its history, the change, and the imported version restored ===");
  hms("history", FILE);
  hms("diff", FILE);
  const changes = await memory.history(FILE);
  const imported = changes[changes.length - 1];
  if (imported === undefined) throw new Error(`${FILE} has no history`);
  const version = await memory.restore(FILE, imported.version);
  console.log(`memory.restore(${JSON.stringify(FILE)}, ${imported.version}) -> version ${version}`);
  console.log(await memory.view({ command: "view", path: FILE }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
