// `pnpm bench attack big-answers [bytes]`: the largest memory (default 1572864 bytes, the
// --max-text-bytes cap) in the text JSON escapes worst (control characters, 6 bytes each),
// viewed and exported through the TypeScript tool (HolographicMemoryTool) over stdio, plus an
// export of three 1 MiB memories of it; and the bytes each answer takes on the wire, read
// over HTTP from the same build and store. Over stdio the MCP TypeScript SDK drops the
// connection for good on a message over 10 MiB. HMS_MCP_BIN picks the build (before/after).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { BIN, tempDir } from "../support.mjs";

// hms-mcp cannot depend on the tool (the tool's tests depend on hms-mcp), so the bench loads
// the workspace build of the tool by path; `pnpm run build` makes it.
const { HolographicMemoryTool } = await import(
  new URL("../../../holographic-memory-claude-tool/dist/index.js", import.meta.url).href
);

const CLIENT_LIMIT = 10 * 1024 * 1024;

function worstCaseText(bytes) {
  return "\u0001\u0002\u001f\u0000".repeat(Math.ceil(bytes / 4)).slice(0, bytes);
}

/** Runs `fn` and says whether it worked, or how it failed. */
async function outcome(fn) {
  try {
    await fn();
    return "works";
  } catch (error) {
    return `fails: ${String(error?.code ?? "")} ${String(error?.message ?? error).slice(0, 90)}`;
  }
}

/** hms-mcp over HTTP on `dataDir`, and a function that calls a tool and counts answer bytes. */
async function httpServer(dataDir, maxTextBytes) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("HMS_MCP_")) delete env[name];
  const child = spawn(
    process.execPath,
    [
      BIN,
      "--transport",
      "http",
      "--port",
      "0",
      "--data-dir",
      dataDir,
      "--max-text-bytes",
      maxTextBytes,
    ],
    { env, stdio: ["ignore", "ignore", "pipe"] },
  );
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stderr }).on("line", (line) => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(line);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`hms-mcp exited with ${code}`)));
  });
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  let id = 0;
  const post = (body) =>
    fetch(url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", ...body }) });
  const init = await post({
    id: ++id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench", version: "0" },
    },
  });
  headers["mcp-session-id"] = init.headers.get("mcp-session-id");
  headers["mcp-protocol-version"] = "2025-06-18";
  await init.arrayBuffer();
  await (await post({ method: "notifications/initialized" })).arrayBuffer();
  return {
    async answerBytes(name, args) {
      const response = await post({
        id: ++id,
        method: "tools/call",
        params: { name, arguments: args },
      });
      const body = Buffer.from(await response.arrayBuffer());
      return { bytes: body.length, result: JSON.parse(body.toString("utf8")).result };
    },
    stop: () => {
      child.kill("SIGTERM");
      return new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

/** What `pnpm bench attack big-answers` takes; attack.mjs refuses anything else. */
export const options = [];
export const positional = ["bytes"];

export default async function bigAnswers(args) {
  const size = Number(args[0] ?? 1572864);
  const data = tempDir("big-answers");
  const tool = await HolographicMemoryTool.connect({
    connection: {
      command: process.execPath,
      args: [BIN, "--data-dir", data.dir, "--max-text-bytes", String(size), "--log-level", "warn"],
      stderr: "ignore",
    },
  });
  const path = "/memories/largest.txt";
  const figures = { build: BIN, text_bytes: size, client_read_limit_bytes: CLIENT_LIMIT };
  try {
    figures.create = await outcome(() =>
      tool.execute({ command: "create", path, file_text: worstCaseText(size) }),
    );
    const third = worstCaseText(1024 * 1024);
    for (const n of [0, 1, 2]) {
      await tool.backend.call("remember", { key: `escaped/${n}`, text: third });
    }
    const http = await httpServer(data.dir, String(size));
    try {
      figures.get_answer_bytes = (await http.answerBytes("get", { key: path })).bytes;
      const pages = [];
      let cursor;
      do {
        const { bytes, result } = await http.answerBytes("export", {
          prefix: "escaped/",
          ...(cursor ? { cursor } : {}),
        });
        pages.push(bytes);
        cursor = result.structuredContent.next_cursor;
      } while (cursor);
      figures.export_3x1MiB_page_bytes = pages;
    } finally {
      await http.stop();
    }
    figures.view_through_tool_stdio = await outcome(() => tool.execute({ command: "view", path }));
    figures.export_through_tool_stdio = await outcome(async () => {
      let cursor;
      do {
        const page = await tool.backend.call("export", {
          prefix: "escaped/",
          ...(cursor ? { cursor } : {}),
        });
        cursor = page.next_cursor;
      } while (cursor);
    });
    figures.connection_open_after = !tool.backend.closed;
  } finally {
    await tool.close();
    data.remove();
  }
  console.log(JSON.stringify(figures, null, 2));
}
