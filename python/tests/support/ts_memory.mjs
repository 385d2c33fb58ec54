// The TypeScript side of the cross-language test: runs memory commands through the published
// TypeScript package, holographic-memory-claude-tool (its workspace build), against an hms-mcp
// process it starts over stdio, exactly as an application would.
//
// stdin:  {"server": [command, ...args], "commands": [command, ...]}
//         where a command is a memory tool command, or {"read": path} for a file's raw text.
// stdout: [{"output": string} | {"error": string, "code": string} | {"text": string|null}, ...]
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const { HolographicMemoryTool, HolographicMemoryError } = await import(
  `${repo}packages/holographic-memory-claude-tool/dist/index.js`
);

const input = JSON.parse(readFileSync(0, "utf8"));
const [command, ...args] = input.server;
const memory = await HolographicMemoryTool.connect({ connection: { command, args } });
const results = [];
try {
  for (const item of input.commands) {
    if ("read" in item) {
      results.push({ text: (await memory.backend.read(item.read))?.content ?? null });
      continue;
    }
    try {
      results.push({ output: await memory.execute(item) });
    } catch (error) {
      if (!(error instanceof HolographicMemoryError)) throw error;
      results.push({ error: error.message, code: error.code });
    }
  }
} finally {
  await memory.close();
}
process.stdout.write(JSON.stringify(results));
