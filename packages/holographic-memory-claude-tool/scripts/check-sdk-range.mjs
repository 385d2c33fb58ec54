#!/usr/bin/env node
// Checks the published shape against several versions of the peer dependency: packs this
// package and its workspace dependencies, installs the tarballs in a fresh project with
// `npm install` (as a user would), and for each `@anthropic-ai/sdk` version given (default: the
// ends and middle of the peer range) runs the tool runner end to end, from ESM and from
// CommonJS, against the scripted Messages API and this workspace's hms-mcp build, then
// type-checks a consumer with `tsc --strict` and skipLibCheck off. Needs the npm registry; not
// part of CI.
//
//   pnpm --filter holographic-memory-claude-tool check:sdk-range [1.0.0 1.7.0 1.14.0]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const packages = resolve(here, "../..");
const versions = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ["1.0.0", "1.7.0", "1.14.0"];
const hmsMcp = join(packages, "hms-mcp/dist/cli.js");
const scripted = join(packages, "scripted-model/dist/cli.js");
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });

const dir = mkdtempSync(join(tmpdir(), "sdk-range-"));
try {
  const packs = join(dir, "packs");
  for (const name of [
    "memory-paths",
    "memory-core",
    "memory-backend-hms",
    "holographic-memory-claude-tool",
  ]) {
    run("pnpm", ["pack", "--pack-destination", packs], join(packages, name));
  }
  const app = join(dir, "app");
  run("mkdir", ["-p", app]);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "app", private: true, type: "module" }),
  );
  const tarballs = run("sh", ["-c", `ls ${packs}/*.tgz`])
    .trim()
    .split("\n");
  run(
    "npm",
    ["install", "--no-audit", "--no-fund", ...tarballs, "@types/node@20", "typescript@5.9.3"],
    app,
  );
  writeFileSync(
    join(app, "script.json"),
    JSON.stringify({
      turns: [
        {
          content: [
            {
              type: "tool_use",
              name: "memory",
              input: {
                command: "create",
                path: "/memories/a.md",
                file_text: "Acme prefers email.\n",
              },
            },
          ],
        },
        {
          content: [
            {
              type: "tool_use",
              name: "memory",
              input: { command: "view", path: "/memories/../etc" },
            },
            { type: "tool_use", name: "memory_recall", input: { query: "acme email" } },
          ],
        },
        { content: [{ type: "text", text: "done" }] },
      ],
    }),
  );
  writeFileSync(
    join(app, "esm.mjs"),
    `import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import Anthropic from "@anthropic-ai/sdk";
import { HolographicMemoryTool } from "holographic-memory-claude-tool";
const model = spawn(process.execPath, [${JSON.stringify(scripted)}, "--script", "script.json"], { stdio: ["ignore", "pipe", "ignore"] });
const { url } = JSON.parse(await new Promise((r) => createInterface({ input: model.stdout }).once("line", r)));
const memory = await HolographicMemoryTool.connect({ connection: { command: process.execPath, args: [${JSON.stringify(hmsMcp)}, "--data-dir", "data-" + Date.now(), "--log-level", "warn"] } });
try {
  await new Anthropic({ apiKey: "x", baseURL: url, maxRetries: 0 }).beta.messages.toolRunner({ model: "m", max_tokens: 100, messages: [{ role: "user", content: "hi" }], tools: [memory.asTool(), memory.recallTool()] });
  const requests = await (await fetch(url + "/requests")).json();
  const results = requests.flatMap((r) => { const c = r.body.messages.at(-1).content; return Array.isArray(c) ? c : []; }).filter((b) => b.type === "tool_result");
  const ok = results.length === 3 && results[0].content === "File created successfully at: /memories/a.md" && results[1].is_error === true && results[1].content.startsWith("Invalid memory path /memories/../etc:") && results[2].content.startsWith("Found 1 memory file");
  if (!ok) throw new Error("unexpected tool results: " + JSON.stringify(results));
} finally { await memory.close(); model.kill(); }
`,
  );
  writeFileSync(
    join(app, "cjs.cjs"),
    `const { HolographicMemoryTool } = require("holographic-memory-claude-tool");
const { InMemoryBackend } = require("@hms/memory-core");
const { ToolError } = require("@anthropic-ai/sdk/lib/tools/ToolError");
new HolographicMemoryTool(new InMemoryBackend()).view({ command: "view", path: "/etc" }).then(
  () => { throw new Error("a bad path was accepted"); },
  (e) => { if (!(e instanceof ToolError)) throw new Error("not the SDK's ToolError: " + e); },
);
`,
  );
  writeFileSync(
    join(app, "types.mts"),
    `import Anthropic from "@anthropic-ai/sdk";
import { HolographicMemoryTool, type RecallHit } from "holographic-memory-claude-tool";
const memory = await HolographicMemoryTool.connect({ connection: { command: "hms-mcp" }, namespace: "u", maxFileBytes: 1000 });
const hits: RecallHit[] = await memory.recall("x", 3);
await new Anthropic().beta.messages.toolRunner({ model: "m", max_tokens: 1, messages: [], tools: [memory.asTool({ cache_control: { type: "ephemeral" } }), memory.recallTool()] });
await memory.close();
export { hits };
`,
  );
  for (const version of versions) {
    run("npm", ["install", "--no-audit", "--no-fund", `@anthropic-ai/sdk@${version}`], app);
    run(process.execPath, ["esm.mjs"], app);
    run(process.execPath, ["cjs.cjs"], app);
    run(
      "npx",
      [
        "tsc",
        "--noEmit",
        "--strict",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--target",
        "es2022",
        "--types",
        "node",
        "types.mts",
      ],
      app,
    );
    console.log(`@anthropic-ai/sdk@${version}: runner (ESM), ToolError (CJS) and types ok`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
