// `pnpm bench attack sessions [--sessions 2000] [--before <cli.js>]`: one client opens
// sessions and never closes them, while a well-behaved client of the same token keeps using
// its own session to call `get`. Reports the server's peak RSS, the good client's get
// p50/p99 and failures (its session evicted), for the --before build (when given) and this
// one, in one run.

import {
  AUTH,
  builds,
  connectClient,
  peakRss,
  startHttpServer,
  wellBehavedGets,
} from "../http-attack.mjs";
import { option, pool, round } from "../support.mjs";

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

/** Opens one session and leaves it open; resolves with the HTTP status. */
async function openSession(url) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...AUTH,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: INITIALIZE,
  });
  await response.arrayBuffer();
  return response.status;
}

async function attack({ bin, name, args }, count) {
  const server = await startHttpServer(bin, `sessions-${name}`, args);
  try {
    const good = await connectClient(server.url);
    await good.callTool({ name: "remember", arguments: { key: "good/key", text: "a memory" } });
    const rssBefore = peakRss(server.pid);
    const stop = wellBehavedGets(good, "good/key");
    const statuses = {};
    await pool(
      Array.from({ length: count }, (_, i) => i),
      20,
      async () => {
        const status = await openSession(server.url).catch(() => "failed");
        statuses[status] = (statuses[status] ?? 0) + 1;
      },
    );
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

export default async function sessions() {
  const count = Number(option("sessions", "HMS_BENCH_SESSIONS", "2000"));
  const results = [];
  for (const build of builds()) results.push(await attack(build, count));
  console.log(JSON.stringify({ attack: "sessions", sessions: count, results }, null, 2));
  if (results.length === 2) {
    console.log(
      `peak RSS after/before: ${round(results[1].peak_rss_mib / results[0].peak_rss_mib, 3)}`,
    );
  }
}
