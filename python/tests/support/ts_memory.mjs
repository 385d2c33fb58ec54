// The TypeScript side of the cross-language test: runs memory commands through
// @hms/memory-core's MemoryEngine over a minimal MemoryBackend that talks to an hms-mcp
// process with the TypeScript MCP SDK (the one hms-mcp itself is built on). It maps the
// engine's contract onto hms-mcp exactly as the memory-core README's table says, and nothing
// more; it stands in for @hms/memory-backend-hms, which does not exist yet.
//
// stdin:  {"server": [command, ...args], "commands": [command, ...]}
//         where a command is a memory tool command, or {"read": path} for a file's raw text.
// stdout: [{"output": string} | {"error": string, "code": string} | {"text": string|null}, ...]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const fromHmsMcp = createRequire(`${repo}packages/hms-mcp/package.json`);
const { Client } = fromHmsMcp("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = fromHmsMcp("@modelcontextprotocol/sdk/client/stdio.js");
const { MemoryEngine, MemoryBackendError } = createRequire(import.meta.url)(
  `${repo}packages/memory-core/dist/index.cjs`,
);

const input = JSON.parse(readFileSync(0, "utf8"));
const [command, ...args] = input.server;
const client = new Client({ name: "cross-language-test", version: "0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));

const BACKEND_CODES = new Set(["NOT_FOUND", "EXISTS", "VERSION_CONFLICT", "TOO_LARGE"]);
async function call(name, args, key) {
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError) return result.structuredContent;
  const text = result.content.map((block) => block.text ?? "").join("");
  const code = /^([A-Z_]+): /.exec(text)?.[1];
  if (BACKEND_CODES.has(code)) {
    const limit = result._meta?.["hms-mcp/error"]?.limit;
    throw new MemoryBackendError(code, key, text, { limit });
  }
  throw new Error(`hms-mcp refused ${name}: ${text}`);
}

const TAG = "memory-file";
const backend = {
  maxFileBytes: (await call("stats", {})).max_text_bytes,
  async read(path) {
    try {
      const record = await call("get", { key: path }, path);
      return { content: record.text, version: record.version };
    } catch (error) {
      if (error instanceof MemoryBackendError && error.code === "NOT_FOUND") return null;
      throw error;
    }
  },
  async list(prefix, limit) {
    const entries = [];
    let cursor;
    do {
      const page = await call("list", {
        prefix,
        tag: TAG,
        limit: Math.min(1000, limit ?? 1000),
        ...(cursor ? { cursor } : {}),
      });
      for (const item of page.items) {
        entries.push({ path: item.key, bytes: item.bytes, version: item.version });
      }
      cursor = page.next_cursor;
    } while (cursor && (limit === undefined || entries.length < limit));
    return limit === undefined ? entries : entries.slice(0, limit);
  },
  async create(path, text) {
    return (await call("remember", { key: path, text, tags: [TAG], if_absent: true }, path))
      .version;
  },
  async update(path, text, version) {
    return (await call("remember", { key: path, text, expected_version: version }, path)).version;
  },
  async delete(path, version) {
    await call("forget", { key: path, ...(version === undefined ? {} : { expected_version: version }) }, path);
  },
  async deletePrefix(prefix) {
    return (await call("forget", { prefix }, prefix)).deleted;
  },
  async move(from, to, version) {
    await call("move", { from, to, ...(version === undefined ? {} : { expected_version: version }) }, from);
  },
  async movePrefix(fromPrefix, toPrefix) {
    return (await call("move", { from_prefix: fromPrefix, to_prefix: toPrefix }, fromPrefix)).moved;
  },
};

const engine = new MemoryEngine(backend);
const results = [];
for (const item of input.commands) {
  if ("read" in item) {
    results.push({ text: (await backend.read(item.read))?.content ?? null });
    continue;
  }
  try {
    results.push({ output: await engine.execute(item) });
  } catch (error) {
    if (!(error instanceof Error) || error.name !== "MemoryToolError") throw error;
    results.push({ error: error.message, code: error.code });
  }
}
await client.close();
process.stdout.write(JSON.stringify(results));
