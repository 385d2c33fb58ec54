// Lock wait: another process (this bench) holds the store's write lock (BEGIN IMMEDIATE) for
// `--hold` ms while a `remember` through a real hms-mcp waits for it. Meanwhile the bench
// calls `get` back to back on a second client (HTTP sessions) and times each: the figure is
// their p50/p99 while the write waits, beside the same gets with no lock held. Run with
// HMS_MCP_BIN=<other build>/dist/cli.js for the "before" figure.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { openSqlite } from "@hms/store/internal";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIN, call, summarize, tempDir, time } from "../support.mjs";

function flag(args, name, fallback) {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
}

/** Starts hms-mcp over HTTP on a free port; resolves with its URL and how to stop it. */
async function startHttp(dataDir) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("HMS_MCP_")) delete env[name];
  const child = spawn(
    process.execPath,
    [BIN, "--data-dir", dataDir, "--log-level", "info", "--transport", "http", "--port", "0"],
    { env, stdio: ["ignore", "ignore", "pipe"] },
  );
  const url = await new Promise((resolve, reject) => {
    // The info-level "listening on <url>" line, on stderr with the rest of the log.
    createInterface({ input: child.stderr }).on("line", (line) => {
      const found = /listening on (http:\/\/[^\s"]+)/.exec(line);
      if (found) resolve(found[1]);
    });
    child.once("exit", (code) => reject(new Error(`hms-mcp exited (${code}) before listening`)));
  });
  return { url, stop: () => child.kill("SIGTERM") };
}

async function session(url) {
  const client = new Client({ name: "hms-mcp-bench", version: "0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function timedGets(client, until) {
  const ms = [];
  while (!until()) ms.push((await time(() => call(client, "get", { key: "notes/a" }))).ms);
  return ms;
}

/** What `pnpm bench attack lock-wait` takes; attack.mjs refuses anything else. */
export const options = ["hold"];

export default async function lockWait(args) {
  const holdMs = flag(args, "hold", 3000);
  const data = tempDir("lock-wait");
  const server = await startHttp(data.dir);
  const writer = await session(server.url);
  const reader = await session(server.url);
  try {
    await call(writer, "remember", { key: "notes/a", text: "first" });
    const quietEnd = Date.now() + holdMs;
    const quiet = await timedGets(reader, () => Date.now() >= quietEnd);

    const dir = join(data.dir, "namespaces");
    const file = join(
      dir,
      readdirSync(dir).find((name) => name.endsWith(".sqlite")),
    );
    const lock = openSqlite(file);
    lock.exec("BEGIN IMMEDIATE");
    setTimeout(() => lock.exec("ROLLBACK"), holdMs);
    let settled = false;
    const write = time(() => call(writer, "remember", { key: "notes/a", text: "second" }))
      .then(({ ms }) => ({ ok: true, ms }))
      .catch((error) => ({ ok: false, error: String(error) }))
      .finally(() => {
        settled = true;
      });
    const waiting = await timedGets(reader, () => settled);
    const written = await write;
    lock.close();
    console.log(
      JSON.stringify(
        {
          bin: BIN,
          hold_ms: holdMs,
          gets_without_lock: summarize(quiet),
          gets_while_write_waits: summarize(waiting),
          write: written,
        },
        null,
        2,
      ),
    );
  } finally {
    await writer.close();
    await reader.close();
    server.stop();
    data.remove();
  }
}
