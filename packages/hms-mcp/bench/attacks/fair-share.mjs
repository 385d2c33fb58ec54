// `pnpm bench attack fair-share [--calls 600] [--memories 2000] [--engine sqlite]
//                              [--keys memories] [--retry after] [--before <cli.js>]`
//
// Issue 22, item 2: one token's burst of expensive calls against another token's cheap ones.
// A server with a tokens file of two tokens, a and b, and --memories memory files of some
// 2 KB each. Token a sends --calls recall and export calls at once, each on its own
// connection, from 127.0.0.2 (another thread, as another program would); meanwhile token b's
// client (127.0.0.1, its own keep-alive session) calls `get` every 20 ms. Reported per build:
// b's get p50/p99/max and failures during the burst, what a's calls were answered (200, 429
// with Retry-After, ...), how long the burst took, and the server's peak RSS.
//
// --engine: sqlite (a data directory) or postgres (a new local PostgreSQL cluster, fsync on,
//   a database of its own for each build).
// --keys: memories (files under /memories/, as the memory tool writes them) or plain (keys
//   under notes/).
// --retry: after (a's call refused with 429 is sent again after its Retry-After, until it is
//   answered: the burst lasts until all are) or none (each call is sent once).
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import {
  connectClient,
  peakRss,
  runAttack,
  startHttpServer,
  wellBehavedGets,
} from "../http-attack.mjs";
import { option, round, rssMiB, tempDir } from "../support.mjs";

const TOKEN_A = "fair-share-token-of-a-".repeat(2);
const TOKEN_B = "fair-share-token-of-b-".repeat(2);

const WORDS =
  "memory project deadline meeting notes design review budget client release plan risk team customer launch metric".split(
    " ",
  );

/** About 2 KB of words, different for each `i`. */
function fileText(i) {
  const words = [];
  for (let w = 0; w < 300; w++) words.push(WORDS[(i * 7 + w * 13) % WORDS.length]);
  return `# Notes ${i}\n${words.join(" ")}\n`;
}

function tokensFile() {
  const dir = tempDir("fair-share-tokens");
  const file = join(dir.dir, "tokens.jsonl");
  const line = (name, token) =>
    JSON.stringify({
      name,
      sha256: createHash("sha256").update(token).digest("hex"),
      namespaces: ["default"],
      access: "read-write",
    });
  writeFileSync(file, `${line("a", TOKEN_A)}\n${line("b", TOKEN_B)}\n`);
  return { file, remove: dir.remove };
}

/**
 * Token a's burst, in a thread of its own so that reading its answers does not delay the
 * timing of b's calls: a session, then `calls` recalls and exports at once, each on a
 * connection of its own from 127.0.0.2. Posts the statuses and the burst's duration.
 */
const BURST = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const { url, token, calls, prefix, words, retry } = workerData;
const target = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, localAddress: "127.0.0.2" });
function post(headers, body) {
  return new Promise((resolve) => {
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream",
          authorization: "Bearer " + token, ...headers } },
      (res) => { res.resume(); res.on("end", () => resolve({ status: res.statusCode, headers: res.headers })); },
    );
    req.on("error", (error) => resolve({ status: "failed: " + error.code }));
    req.end(body);
  });
}
(async () => {
  const init = await post({}, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "burst", version: "0" } } }));
  const session = { "mcp-session-id": init.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18" };
  await post(session, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const started = performance.now();
  let refused = 0;
  let retryAfter;
  // Each call is sent again after the Retry-After of a 429, until it is answered otherwise.
  const callOnce = async (i) => {
    const body = JSON.stringify({
      jsonrpc: "2.0", id: i + 1, method: "tools/call",
      params: i % 2 === 0
        ? { name: "recall", arguments: { query: words[i % words.length] + " " + words[(i * 5) % words.length], k: 20 } }
        : { name: "export", arguments: { prefix, limit: 200 } },
    });
    for (;;) {
      const answer = await post(session, body);
      if (answer.status !== 429 || !retry) return answer;
      refused++;
      retryAfter ??= answer.headers["retry-after"];
      await new Promise((done) => setTimeout(done, Number(answer.headers["retry-after"] ?? 1) * 1000));
    }
  };
  const answers = await Promise.all(Array.from({ length: calls }, (_, i) => callOnce(i)));
  const statuses = {};
  for (const answer of answers) {
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    if (answer.status === 429) retryAfter ??= answer.headers["retry-after"];
  }
  parentPort.postMessage({ statuses, refused, retryAfter, ms: performance.now() - started });
  agent.destroy();
})();
`;

function burst(url, calls, prefix, retry) {
  const worker = new Worker(BURST, {
    eval: true,
    workerData: { url, token: TOKEN_A, calls, prefix, words: WORDS, retry },
  });
  return new Promise((resolve, reject) => {
    worker.once("message", (result) => {
      void worker.terminate();
      resolve(result);
    });
    worker.once("error", reject);
  });
}

async function attack(build, { calls, memories, keys, retry, database }) {
  const tokens = tokensFile();
  const databaseUrl = database?.createDatabase(`fair_${build.name}`);
  const server = await startHttpServer(
    build.bin,
    `fair-share-${build.name}`,
    [...build.args, "--tokens-file", tokens.file],
    { token: false, databaseUrl },
  );
  const prefix = keys === "memories" ? "/memories/" : "notes/";
  const keyOf = (i) => (keys === "memories" ? `/memories/notes-${i}.md` : `notes/${i}`);
  try {
    const b = await connectClient(server.url, { authorization: `Bearer ${TOKEN_B}` });
    const seeding = performance.now();
    for (let i = 0; i < memories; i += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, memories - i) }, (_, j) =>
          b.callTool({ name: "remember", arguments: { key: keyOf(i + j), text: fileText(i + j) } }),
        ),
      );
    }
    const seedS = round((performance.now() - seeding) / 1000, 1);
    const rssBefore = rssMiB(server.pid).rss_mib;
    const quiet = wellBehavedGets(b, keyOf(7));
    await sleep(2000);
    const getsAlone = await quiet();
    const stop = wellBehavedGets(b, keyOf(7));
    const a = await burst(server.url, calls, prefix, retry);
    const gets = await stop();
    const peak = peakRss(server.pid);
    await b.close().catch(() => {});
    return {
      build: build.name,
      seed_s: seedS,
      b_get_alone: getsAlone,
      b_get_during_burst: gets,
      a_burst: {
        answered: a.statuses,
        refused_429_then_sent_again: a.refused,
        retry_after: a.retryAfter ?? null,
        ms: round(a.ms, 0),
      },
      rss_before_attack_mib: rssBefore,
      peak_rss_mib: peak,
      server_warnings: server.warnings,
    };
  } finally {
    await server.stop();
    tokens.remove();
  }
}

/** A local PostgreSQL cluster with fsync on, as in production; a database per build. */
async function postgres() {
  const { startPostgres } = await import("@hms/test-support");
  const cluster = await startPostgres();
  cluster.psql("ALTER SYSTEM SET fsync = on");
  cluster.restart();
  return cluster;
}

/** What `pnpm bench attack fair-share` takes; attack.mjs refuses anything else. */
export const options = ["calls", "memories", "engine", "keys", "retry", "before", "after-args"];

export default async function fairShare() {
  const calls = Number(option("calls", "HMS_BENCH_CALLS", "600"));
  const memories = Number(option("memories", "HMS_BENCH_MEMORIES", "2000"));
  const engine = option("engine", "HMS_BENCH_ENGINE", "sqlite");
  const keys = option("keys", "HMS_BENCH_KEYS", "memories");
  const retry = option("retry", "HMS_BENCH_RETRY", "after");
  const problems = [
    ["after", "none"].includes(retry) ? undefined : "--retry: after or none",
    Number.isSafeInteger(calls) && calls > 0 ? undefined : "--calls: a positive integer",
    Number.isSafeInteger(memories) && memories > 0 ? undefined : "--memories: a positive integer",
    ["sqlite", "postgres"].includes(engine) ? undefined : "--engine: sqlite or postgres",
    ["memories", "plain"].includes(keys) ? undefined : "--keys: memories or plain",
  ].filter(Boolean);
  if (problems.length > 0) {
    console.error(`fair-share: ${problems.join("; ")}`);
    process.exit(2);
  }
  const database = engine === "postgres" ? await postgres() : undefined;
  try {
    await runAttack("fair-share", { calls, memories, engine, keys, retry }, (build) =>
      attack(build, { calls, memories, keys, retry: retry === "after", database }),
    );
  } finally {
    database?.remove();
  }
}
