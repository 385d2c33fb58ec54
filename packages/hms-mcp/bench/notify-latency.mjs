// Change notifications, from a write to its notification at a subscriber: p50/p99 in one
// process (two HTTP sessions of one server: the subscriber on its event stream), across
// processes (two hms-mcp over stdio on one SQLite data directory: the subscriber's server
// polls the history every 100 ms), and across replicas (two hms-mcp on one PostgreSQL
// database: LISTEN/NOTIFY). Each sample is one write of a memory file by the writer, timed from
// the write's call to the notification's arrival (the write's own round trip included); samples
// are spaced by a random pause so that writes fall anywhere in the poll's period. Prints
// `uptime` before and after: figures depend on the machine's load.
//
//   pnpm bench notify-latency [--samples N] [--database-url URL | --no-postgres]
//
// Targets (issue 24): p99 50 ms in one process, 500 ms across processes, 1 s across replicas.
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { hear, memoryUri, startHttpProcess, startStdio } from "@hms/test-support";
import { benchDatabase } from "./postgres.mjs";
import { call, checkArguments, option, quantile, round, tempDir } from "./support.mjs";

// Before any work: a misspelt option would otherwise be ignored.
checkArguments("notify-latency", ["database-url", "samples"], ["no-postgres"]);

const samples = Number(option("samples", "HMS_BENCH_SAMPLES", "200"));
if (!Number.isInteger(samples) || samples < 1)
  throw new Error("--samples must be a positive integer");
const withPostgres = !process.argv.includes("--no-postgres");
const givenUrl = option("database-url", "HMS_BENCH_DATABASE_URL", undefined);
const log = (line) => process.stderr.write(`notify-latency: ${line}\n`);
const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `samples` writes by `writer`, each timed until `subscriber` (subscribed to /memories of the
 * default namespace) hears of it.
 */
async function measure(name, writer, subscriber) {
  const heard = hear(subscriber);
  await subscriber.subscribeResource({ uri: memoryUri("default", "/memories") });
  const key = `/memories/bench/${name.replaceAll(" ", "-")}.md`;
  const uri = memoryUri("default", key);
  const latencies = [];
  for (let i = 0; i < samples; i++) {
    const before = heard.updates.length;
    const start = performance.now();
    const told = heard.until((h, at = heard.updates.indexOf(h)) => h.uri === uri && at >= before);
    await call(writer, "remember", { key, text: `sample ${i}` });
    await told;
    latencies.push(performance.now() - start);
    await pause(Math.random() * 100);
  }
  const row = {
    case: name,
    samples,
    p50_ms: round(quantile(latencies, 0.5), 1),
    p99_ms: round(quantile(latencies, 0.99), 1),
    max_ms: round(Math.max(...latencies), 1),
  };
  log(`${name}: p50 ${row.p50_ms} ms, p99 ${row.p99_ms} ms`);
  return row;
}

const rows = [];
const loadBefore = uptime();
log(`load before: ${loadBefore}`);

{
  const data = tempDir("notify-one");
  const server = await startHttpProcess({ dataDir: data.dir, args: ["--log-level", "info"] });
  try {
    const writer = await server.connect();
    const subscriber = await server.connect();
    rows.push(await measure("one process (HTTP sessions)", writer, subscriber));
    await writer.close();
    await subscriber.close();
  } finally {
    await server.stop();
    data.remove();
  }
}

{
  const data = tempDir("notify-processes");
  const writer = await startStdio({ dataDir: data.dir });
  const subscriber = await startStdio({ dataDir: data.dir });
  try {
    rows.push(await measure("across processes (SQLite)", writer.client, subscriber.client));
  } finally {
    await writer.close();
    await subscriber.close();
    data.remove();
  }
}

if (withPostgres) {
  const database = await benchDatabase(givenUrl);
  try {
    const writer = await startStdio({ databaseUrl: database.url });
    const subscriber = await startStdio({ databaseUrl: database.url });
    try {
      rows.push(await measure("across replicas (PostgreSQL)", writer.client, subscriber.client));
    } finally {
      await writer.close();
      await subscriber.close();
    }
  } finally {
    database.remove();
  }
}

const loadAfter = uptime();
console.log(JSON.stringify({ load_before: loadBefore, load_after: loadAfter, rows }, null, 2));
console.table(rows);
console.log(`uptime before: ${loadBefore}\nuptime after:  ${loadAfter}`);
