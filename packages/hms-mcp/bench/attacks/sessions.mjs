// `pnpm bench attack sessions [--sessions 2000] [--before <cli.js>]`: one client opens
// sessions and never closes them, while a well-behaved client of the same token keeps using
// its own session to call `get`. Reports the server's peak RSS, the good client's get
// p50/p99 and failures (its session evicted), for the --before build (when given) and this
// one, in one run.

import { Worker } from "node:worker_threads";
import {
  AUTH,
  connectClient,
  peakRss,
  runAttack,
  startHttpServer,
  wellBehavedGets,
} from "../http-attack.mjs";
import { option } from "../support.mjs";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "session-flood", version: "0" },
  },
});

/**
 * The flood runs in a thread of its own, as another program would: in the thread that times
 * the well-behaved client's gets, its 20 fetches at a time would delay those timings too, and
 * the bench would measure itself rather than the server.
 */
const FLOOD = `
const { parentPort, workerData } = require("node:worker_threads");
const { url, headers, body, count, concurrency } = workerData;
const statuses = {};
let next = 0;
async function open() {
  while (next < count) {
    next += 1;
    const status = await fetch(url, { method: "POST", headers, body })
      .then(async (response) => { await response.arrayBuffer(); return response.status; })
      .catch(() => "failed");
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
}
Promise.all(Array.from({ length: concurrency }, open)).then(() => parentPort.postMessage(statuses));
`;

/** Opens `count` sessions, 20 at a time, from another thread; resolves with the statuses. */
function flood(url, count) {
  const worker = new Worker(FLOOD, {
    eval: true,
    workerData: {
      url,
      headers: {
        ...AUTH,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: INITIALIZE,
      count,
      concurrency: 20,
    },
  });
  return new Promise((resolve, reject) => {
    worker.once("message", (statuses) => {
      void worker.terminate();
      resolve(statuses);
    });
    worker.once("error", reject);
  });
}

async function attack({ bin, name, args }, count) {
  const server = await startHttpServer(bin, `sessions-${name}`, args);
  try {
    const good = await connectClient(server.url);
    await good.callTool({ name: "remember", arguments: { key: "good/key", text: "a memory" } });
    const rssBefore = peakRss(server.pid);
    const stop = wellBehavedGets(good, "good/key");
    const statuses = await flood(server.url, count);
    const gets = await stop();
    const peak = peakRss(server.pid);
    await good.close().catch(() => {});
    return {
      build: name,
      rss_before_attack_mib: rssBefore,
      peak_rss_mib: peak,
      get: gets,
      initialize_statuses: statuses,
      server_warnings: server.warnings,
    };
  } finally {
    await server.stop();
  }
}

/** What `pnpm bench attack sessions` takes; attack.mjs refuses anything else. */
export const options = ["sessions", "before", "after-args"];

export default async function sessions() {
  const count = Number(option("sessions", "HMS_BENCH_SESSIONS", "2000"));
  await runAttack("sessions", { sessions: count }, (build) => attack(build, count));
}
