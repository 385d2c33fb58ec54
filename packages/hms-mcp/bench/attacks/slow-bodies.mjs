// `pnpm bench attack slow-bodies [--connections 16,64,256] [--shape body] [--mode token]
//                               [--keys memories] [--from 127.0.0.2] [--hold-ms 40000]
//                               [--before <cli.js>]`
//
// Issue 22, item 1: connections that send a request's headers and then too little of it, and
// hold on. Meanwhile a well-behaved client (from 127.0.0.1, on its own keep-alive session)
// calls `get` every 20 ms and opens a new session every 200 ms. Reported per build and per
// count of slow connections: that client's get and new-session p50/p99/max and refusals (and
// its gets for 2 s before the attack, what the machine's load gives them anyway), the
// server's peak RSS, and what became of the slow connections (what they were answered, when
// they were closed, how many were still open when the run ended).
//
// --shape: body (the headers of a POST declaring 100000 bytes, then `{`; the default), short
//   (a whole tools/call but its last byte), headers (headers that stop), chunked (one chunk,
//   no Content-Length), expect (Expect: 100-continue, then no body), trickle (a body of
//   100000 bytes, one byte a second).
// --mode: token (the slow connections send the good client's token, HMS_MCP_TOKEN: everyone is
//   one client), tokens (a tokens file; the slow connections spread over four tokens and the
//   good client has a fifth), anonymous (a tokens file; the slow connections send no token).
// --keys: memories (the good client reads /memories/notes.md) or plain (notes/plain).
// --from: the address the slow connections come from (127.0.0.1 shares the good client's).
// --hold-ms: how long the run waits for the server to close the slow connections; a server
//   that has not closed them by then reports them still open.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import {
  AUTH,
  connectClient,
  peakRss,
  probeEvery,
  runAttack,
  startHttpServer,
  wellBehavedGets,
} from "../http-attack.mjs";
import { option, quantile, round, rssMiB, tempDir } from "../support.mjs";

const SHAPES = ["body", "short", "headers", "chunked", "expect", "trickle"];
const MODES = ["token", "tokens", "anonymous"];

/** Five tokens for the tokens file: a-d the slow connections', e the good client's. */
const TOKENS = ["a", "b", "c", "d", "e"].map((name) => ({
  name,
  token: `slow-bodies-token-${name}-`.repeat(2),
}));

function tokensFile() {
  const dir = tempDir("slow-bodies-tokens");
  const file = join(dir.dir, "tokens.jsonl");
  const lines = TOKENS.map(({ name, token }) =>
    JSON.stringify({
      name,
      sha256: createHash("sha256").update(token).digest("hex"),
      namespaces: ["default"],
      access: "read-write",
    }),
  );
  writeFileSync(file, `${lines.join("\n")}\n`);
  return { file, remove: dir.remove };
}

/** What a slow connection sends at once for `shape`, to the endpoint at `url`. */
function slowRequest(url, shape, headers) {
  const target = new URL(url);
  const call = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get", arguments: { key: "/memories/notes.md" } },
  });
  const head = (extra) =>
    [
      `POST ${target.pathname} HTTP/1.1`,
      `Host: ${target.host}`,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
      ...Object.entries({ ...headers, ...extra }).map(([name, value]) => `${name}: ${value}`),
    ].join("\r\n");
  switch (shape) {
    case "body":
      return `${head({ "Content-Length": "100000" })}\r\n\r\n{`;
    case "short":
      return `${head({ "Content-Length": String(Buffer.byteLength(call)) })}\r\n\r\n${call.slice(0, -1)}`;
    case "headers":
      return `${head({ "Content-Length": String(Buffer.byteLength(call)) })}\r\nX-Slow: `;
    case "chunked":
      return `${head({ "Transfer-Encoding": "chunked" })}\r\n\r\n5\r\n${call.slice(0, 5)}\r\n`;
    case "expect":
      return `${head({ "Content-Length": "100000", Expect: "100-continue" })}\r\n\r\n`;
    case "trickle":
      return `${head({ "Content-Length": "100000" })}\r\n\r\n`;
    default:
      throw new Error(`unknown shape ${shape}`);
  }
}

/**
 * Opens a slow connection from `from`; resolves once its request is written, with a promise
 * of what became of it: the status it was answered (or "none") and when it was closed.
 */
function openSlow(url, text, from, trickle) {
  const target = new URL(url);
  const opened = performance.now();
  return new Promise((resolve) => {
    const socket = connect({
      port: Number(target.port),
      host: target.hostname,
      localAddress: from,
    });
    let answer = "";
    let timer;
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("error", () => {});
    const ended = new Promise((done) =>
      socket.once("close", () => {
        clearInterval(timer);
        const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
        done({
          status: statuses.filter((s) => s !== "100").at(-1) ?? "none",
          closedMs: performance.now() - opened,
        });
      }),
    );
    socket.once("connect", () =>
      socket.write(text, () => {
        if (trickle) timer = setInterval(() => socket.write(" "), 1000);
        resolve({ socket, ended });
      }),
    );
    socket.once("error", () => resolve({ socket, ended }));
  });
}

/** Opens a new session every `everyMs` until stopped: latencies and failures. */
function newSessions(url, headers, everyMs = 200) {
  return probeEvery(async () => {
    const client = await connectClient(url, headers);
    return () => client.close();
  }, everyMs);
}

async function attack(build, params) {
  const { count, shape, mode, keys, from, holdMs } = params;
  const tokens = mode === "token" ? undefined : tokensFile();
  const args = [...build.args, ...(tokens ? ["--tokens-file", tokens.file] : [])];
  const server = await startHttpServer(build.bin, `slow-bodies-${build.name}`, args, {
    token: mode === "token",
  });
  const good = mode === "token" ? AUTH : { authorization: `Bearer ${TOKENS[4].token}` };
  const slowHeaders = (i) =>
    mode === "token"
      ? AUTH
      : mode === "tokens"
        ? { authorization: `Bearer ${TOKENS[i % 4].token}` }
        : {};
  try {
    const client = await connectClient(server.url, good);
    const key = keys === "memories" ? "/memories/notes.md" : "notes/plain";
    await client.callTool({ name: "remember", arguments: { key, text: "kept notes" } });
    const rssBefore = rssMiB(server.pid).rss_mib;
    // The same client's gets for 2 s before the attack: what the machine gives them anyway.
    const quiet = wellBehavedGets(client, key);
    await sleep(2000);
    const getsBefore = await quiet();
    const stopGets = wellBehavedGets(client, key);
    const stopSessions = newSessions(server.url, good);
    await sleep(500);
    const started = performance.now();
    const slow = [];
    for (let i = 0; i < count; i++) {
      slow.push(
        await openSlow(
          server.url,
          slowRequest(server.url, shape, slowHeaders(i)),
          from,
          shape === "trickle",
        ),
      );
    }
    const opening_ms = round(performance.now() - started, 0);
    const outcomes = [];
    const all = Promise.all(slow.map(async ({ ended }) => outcomes.push(await ended)));
    await Promise.race([all, sleep(holdMs)]);
    const gets = await stopGets();
    const sessions = await stopSessions();
    const peak = peakRss(server.pid);
    const rssAtEnd = rssMiB(server.pid).rss_mib;
    for (const { socket } of slow) socket.destroy();
    await client.close().catch(() => {});
    const statuses = {};
    for (const { status } of outcomes) statuses[status] = (statuses[status] ?? 0) + 1;
    const closedS = outcomes.map(({ closedMs }) => closedMs / 1000);
    return {
      build: build.name,
      slow_connections: count,
      opening_ms,
      slow: {
        answered: statuses,
        closed: outcomes.length,
        still_open_at_end: count - outcomes.length,
        closed_after_s:
          closedS.length > 0
            ? {
                min: round(Math.min(...closedS), 2),
                p50: round(quantile(closedS, 0.5), 2),
                max: round(Math.max(...closedS), 2),
              }
            : null,
      },
      get_before_attack: getsBefore,
      get: gets,
      new_session: sessions,
      rss_before_attack_mib: rssBefore,
      peak_rss_mib: peak,
      rss_at_end_mib: rssAtEnd,
      server_warnings: server.warnings,
    };
  } finally {
    await server.stop();
    tokens?.remove();
  }
}

/** What `pnpm bench attack slow-bodies` takes; attack.mjs refuses anything else. */
export const options = [
  "connections",
  "shape",
  "mode",
  "keys",
  "from",
  "hold-ms",
  "before",
  "after-args",
];

export default async function slowBodies() {
  const counts = option("connections", "HMS_BENCH_CONNECTIONS", "16,64,256").split(",").map(Number);
  const shape = option("shape", "HMS_BENCH_SHAPE", "body");
  const mode = option("mode", "HMS_BENCH_MODE", "token");
  const keys = option("keys", "HMS_BENCH_KEYS", "memories");
  const from = option("from", "HMS_BENCH_FROM", "127.0.0.2");
  const holdMs = Number(option("hold-ms", "HMS_BENCH_HOLD_MS", "40000"));
  const problems = [
    counts.every((n) => Number.isSafeInteger(n) && n > 0)
      ? undefined
      : "--connections: positive integers, comma-separated",
    SHAPES.includes(shape) ? undefined : `--shape: one of ${SHAPES.join(", ")}`,
    MODES.includes(mode) ? undefined : `--mode: one of ${MODES.join(", ")}`,
    ["memories", "plain"].includes(keys) ? undefined : "--keys: memories or plain",
    Number.isSafeInteger(holdMs) && holdMs > 0 ? undefined : "--hold-ms: a positive integer",
  ].filter(Boolean);
  if (problems.length > 0) {
    console.error(`slow-bodies: ${problems.join("; ")}`);
    process.exit(2);
  }
  for (const count of counts) {
    await runAttack(
      "slow-bodies",
      { connections: count, shape, mode, keys, from, hold_ms: holdMs },
      (build) => attack(build, { count, shape, mode, keys, from, holdMs }),
    );
  }
}
