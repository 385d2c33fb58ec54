// Shared by the HTTP attacks (bench/attacks/sessions.mjs, slow-readers.mjs): start a build of
// hms-mcp over HTTP, keep a well-behaved client calling `get` during the attack, and report
// the server's peak RSS and that client's latencies.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIN, option, round, rssMiB, summarize, tempDir } from "./support.mjs";

export const TOKEN = "bench-token";
export const AUTH = { authorization: `Bearer ${TOKEN}` };

/**
 * The builds to attack: `--before <cli.js>` (or HMS_MCP_BEFORE_BIN) first when given, then
 * HMS_MCP_BIN or this package's build.
 */
export function builds() {
  const before = option("before", "HMS_MCP_BEFORE_BIN", undefined);
  // Extra flags for the build under test, e.g. --after-args "--max-in-flight-per-token 4".
  const afterArgs = (option("after-args", "HMS_BENCH_AFTER_ARGS", "") ?? "")
    .split(" ")
    .filter(Boolean);
  return [
    ...(before ? [{ name: "before", bin: before, args: [] }] : []),
    { name: "after", bin: BIN, args: afterArgs },
  ];
}

/**
 * Starts `bin` with --transport http on a free port and a token (HMS_MCP_TOKEN, unless
 * `options.token` is false); resolves once it listens. `options.databaseUrl` serves that
 * PostgreSQL database instead of a new data directory, whose path `dataDir` gives either way.
 */
export async function startHttpServer(bin, name, args = [], options = {}) {
  const data = tempDir(name);
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("HMS_MCP_")) delete env[key];
  if (options.token !== false) env.HMS_MCP_TOKEN = TOKEN;
  const store =
    options.databaseUrl === undefined
      ? ["--data-dir", data.dir]
      : ["--database-url", options.databaseUrl];
  const child = spawn(
    process.execPath,
    [bin, "--transport", "http", "--port", "0", ...store, "--log-level", "info", ...args],
    { env, stdio: ["ignore", "ignore", "pipe"] },
  );
  // Warnings the server logs (sessions closed, connections dropped), counted by message.
  const warnings = {};
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stderr }).on("line", (line) => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(line);
      if (match) resolve(match[1]);
      const warning = /"level":40,.*"msg":"([^"]*)"/.exec(line);
      if (warning) warnings[warning[1]] = (warnings[warning[1]] ?? 0) + 1;
    });
    child.once("exit", (code) => reject(new Error(`hms-mcp exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid,
    dataDir: data.dir,
    warnings,
    async stop() {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
      data.remove();
    },
  };
}

/** An MCP client over HTTP with the token (or `headers`, e.g. another token's). */
export async function connectClient(url, headers = AUTH) {
  const client = new Client({ name: "hms-bench-good", version: "0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  return client;
}

/**
 * Runs `probe` every `everyMs` until `stop()`: the latencies of the probes that succeeded and
 * the count of those refused or failed, by reason. A probe may return a function to run after
 * its time is taken (a session's close, say).
 */
export function probeEvery(probe, everyMs) {
  const latencies = [];
  const failures = {};
  let running = true;
  const loop = (async () => {
    while (running) {
      const start = performance.now();
      try {
        const after = await probe();
        latencies.push(performance.now() - start);
        await after?.();
      } catch (error) {
        const reason = failureReason(error);
        failures[reason] = (failures[reason] ?? 0) + 1;
      }
      await sleep(everyMs);
    }
  })();
  return async () => {
    running = false;
    await loop;
    return {
      ...(latencies.length > 0
        ? { ...summarize(latencies), max_ms: round(Math.max(...latencies)) }
        : { n: 0 }),
      failures,
    };
  };
}

/**
 * Calls `get` every `everyMs` until `stop()`: the latencies of the answered calls and the
 * count of refused or failed ones.
 */
export function wellBehavedGets(client, key, everyMs = 20) {
  return probeEvery(async () => {
    const result = await client.callTool({ name: "get", arguments: { key } });
    if (result.isError) throw new Error(result.content?.[0]?.text ?? "tool error");
  }, everyMs);
}

export function failureReason(error) {
  const status = typeof error?.code === "number" ? `HTTP ${error.code}: ` : "";
  return `${status}${String(error?.message ?? error)}`.slice(0, 60);
}

/** The server's peak RSS (VmHWM) in MiB, read now. */
export function peakRss(pid) {
  return rssMiB(pid).peak_rss_mib;
}

/**
 * Runs `attack(build)` on each build (the --before one first) and prints the results as JSON,
 * with the peak RSS ratio when there are two.
 */
export async function runAttack(name, params, attack) {
  const results = [];
  for (const build of builds()) results.push(await attack(build));
  console.log(JSON.stringify({ attack: name, ...params, results }, null, 2));
  if (results.length === 2) {
    console.log(
      `peak RSS after/before: ${round(results[1].peak_rss_mib / results[0].peak_rss_mib, 3)}`,
    );
  }
}
