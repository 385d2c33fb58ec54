// `pnpm bench attack slow-readers [--clients 100] [--hold-ms 20000] [--before <cli.js>]`:
// clients that ask for a large export page and never read the answer, while a well-behaved
// client calls `get`. Reports the server's peak RSS and the good client's get p50/p99, for
// the --before build (when given) and this one, in one run.
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import {
  AUTH,
  connectClient,
  peakRss,
  runAttack,
  startHttpServer,
  wellBehavedGets,
} from "../http-attack.mjs";
import { option, rssMiB } from "../support.mjs";

/**
 * 60 memories of 32 KiB of a character JSON escapes as \u0001 (6 bytes): 12 MB as JSON, the
 * largest export page a server sends. Before export pages were bounded at 256 KiB as JSON
 * (EXPORT_PAGE_BYTES) a page held them all, more than the kernel's socket buffers take, so
 * what a client did not read stayed in the server's memory; now a page holds one of them
 * (answer_bytes says which the build sends).
 */
async function seed(client) {
  const text = "\u0001".repeat(32 * 1024);
  for (let i = 0; i < 60; i++) {
    await client.callTool({ name: "remember", arguments: { key: `bulk/${i}`, text } });
  }
}

/** A raw session: the headers a request of it needs. */
async function session(url) {
  const init = await fetch(url, {
    method: "POST",
    headers: {
      ...AUTH,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "slow", version: "0" },
      },
    }),
  });
  await init.text();
  return {
    ...AUTH,
    "mcp-session-id": init.headers.get("mcp-session-id"),
    "mcp-protocol-version": "2025-06-18",
  };
}

/** The size of one export answer, read in full. */
async function exportAnswerBytes(url, headers) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: exportBody(),
  });
  return (await response.arrayBuffer()).byteLength;
}

function exportBody() {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "export", arguments: { prefix: "bulk/", limit: 1000 } },
  });
}

/** Sends an export request on a new connection and never reads the answer. */
function unreadExport(url, headers) {
  const target = new URL(url);
  const body = exportBody();
  const head = [
    `POST ${target.pathname} HTTP/1.1`,
    `Host: ${target.host}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join("\r\n");
  const socket = connect(Number(target.port), target.hostname, () => {
    socket.pause();
    socket.write(`${head}\r\n\r\n${body}`);
  });
  socket.on("error", () => {});
  return socket;
}

async function attack({ bin, name, args }, clients, holdMs) {
  const server = await startHttpServer(bin, `slow-readers-${name}`, args);
  try {
    const good = await connectClient(server.url);
    await seed(good);
    await good.callTool({
      name: "remember",
      arguments: { key: "good/key", text: "a small memory" },
    });
    const headers = await session(server.url);
    const answerBytes = await exportAnswerBytes(server.url, headers);
    const rssBefore = peakRss(server.pid);
    const stop = wellBehavedGets(good, "good/key");
    await sleep(1000);
    const sockets = Array.from({ length: clients }, () => unreadExport(server.url, headers));
    await sleep(holdMs);
    const gets = await stop();
    const peak = peakRss(server.pid);
    const heldAtEnd = rssMiB(server.pid).rss_mib;
    for (const socket of sockets) socket.destroy();
    await good.close().catch(() => {});
    return {
      build: name,
      rss_before_attack_mib: rssBefore,
      peak_rss_mib: peak,
      get: gets,
      rss_at_end_of_attack_mib: heldAtEnd,
      answer_bytes: answerBytes,
      server_warnings: server.warnings,
    };
  } finally {
    await server.stop();
  }
}

/** What `pnpm bench attack slow-readers` takes; attack.mjs refuses anything else. */
export const options = ["clients", "hold-ms", "before", "after-args"];

export default async function slowReaders() {
  const clients = Number(option("clients", "HMS_BENCH_CLIENTS", "100"));
  const holdMs = Number(option("hold-ms", "HMS_BENCH_HOLD_MS", "20000"));
  await runAttack("slow-readers", { clients, hold_ms: holdMs }, (build) =>
    attack(build, clients, holdMs),
  );
}
