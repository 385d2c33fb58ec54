// Recall filtered by time (modified_after / modified_before) against the same recall without a
// filter, at 100,000 memories, on SQLite and on PostgreSQL, through hms-mcp's recall tool over
// stdio, in one run: p50 and p99 per filter and their ratio to the unfiltered p50.
//
//   pnpm bench recall-by-time [--memories 100000] [--queries 200] [--k 5]
//                             [--engines sqlite,postgres] [--database-url postgres://...]
//
// The memories are memory files (tag memory-file, as the memory tool recalls them) of
// made-up words (@hms/test-support's synthetic text), written over a year in key order; one
// in five was edited again at a random later time, so a memory's last change mostly, not
// always, follows its row order.
// Filters keep the newest, the oldest and a middle slice of 1%, 10% and 50% of the memories
// (exact shares of their updated_at), each as a range a model would send; "none again" is the
// unfiltered recall once more, whose ratio to the first is the run's noise. Every query runs
// every filter and none back to back, in a rotating order, so load drifting during the run
// weighs on all of them alike. PostgreSQL is a new local cluster (fsync on) unless
// --database-url gives an empty database. The load average is recorded before and after each
// engine's figures: latencies depend on it, ratios much less, and the server's CPU time per
// recall (summed per filter from /proc) least.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { MemoryStore, storeFileName } from "@hms/store";
import { seededRandom, syntheticText, zipfVocabulary } from "@hms/test-support";
import { benchDatabase, bulkLoad, checkDatabaseUrl } from "./postgres.mjs";
import {
  call,
  checkArguments,
  option,
  round,
  spawnServerOn,
  summarize,
  tempDir,
  time,
} from "./support.mjs";

// Before any work: a misspelt option would otherwise be ignored.
checkArguments("recall-by-time", ["database-url", "engines", "k", "memories", "queries"], []);

const MEMORIES = Number(option("memories", "HMS_BENCH_MEMORIES", "100000"));
const QUERIES = Number(option("queries", "HMS_BENCH_QUERIES", "200"));
const K = Number(option("k", "HMS_BENCH_K", "5"));
const ENGINES = option("engines", "HMS_BENCH_ENGINES", "sqlite,postgres").split(",");
const DATABASE_URL = option("database-url", "HMS_BENCH_DATABASE_URL", undefined);
for (const [name, value] of [
  ["memories", MEMORIES],
  ["queries", QUERIES],
  ["k", K],
]) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name}: ${value} is not a count`);
}
if (MEMORIES < 200) throw new Error("--memories: at least 200, so that 1% holds 2 memories");
for (const engine of ENGINES) {
  if (engine !== "sqlite" && engine !== "postgres") {
    throw new Error(`--engines: ${engine} is not sqlite or postgres`);
  }
}
if (DATABASE_URL !== undefined) checkDatabaseUrl(DATABASE_URL);

const NAMESPACE = "recall-time";
const DAY = 86_400_000;
const START = Date.parse("2025-07-01T00:00:00.000Z");

/** The memories, their times and the queries: the same for both engines. */
function corpus() {
  const rand = seededRandom(2024);
  const word = zipfVocabulary(rand, 30000);
  const records = [];
  for (let i = 0; i < MEMORIES; i++) {
    const created = START + Math.floor((i / MEMORIES) * 365 * DAY);
    const edited = rand() < 0.2;
    const updated = edited ? created + Math.floor(rand() * (START + 365 * DAY - created)) : created;
    records.push({
      key: `/memories/notes/${i}.md`,
      text: syntheticText(rand, word),
      tags: ["memory-file"],
      metadata: {},
      version: 1,
      hash: "",
      bytes: 0,
      created_at: new Date(created).toISOString(),
      updated_at: new Date(updated).toISOString(),
    });
  }
  const queries = Array.from({ length: QUERIES }, () =>
    Array.from({ length: 2 + Math.floor(rand() * 5) }, word).join(" "),
  );
  return { records, queries };
}

/**
 * The filters: for each share, the newest, the oldest and a middle slice holding exactly that
 * share of the memories, with the arguments a client sends for it.
 */
function filters(records) {
  const times = records.map((record) => record.updated_at).sort();
  const at = (index) => times[Math.min(times.length - 1, Math.max(0, index))];
  const out = [{ name: "none", share: 1, args: {} }];
  for (const share of [0.01, 0.1, 0.5]) {
    const n = Math.round(MEMORIES * share);
    const middle = Math.floor((MEMORIES - n) / 2);
    out.push(
      { name: `newest ${share * 100}%`, share, args: { modified_after: at(MEMORIES - n) } },
      { name: `oldest ${share * 100}%`, share, args: { modified_before: at(n) } },
      {
        name: `middle ${share * 100}%`,
        share,
        args: { modified_after: at(middle), modified_before: at(middle + n) },
      },
    );
  }
  // The same recall as the first, measured again in the same rotation: how far apart two
  // runs of one recall come out, the noise any other ratio is read against.
  out.push({ name: "none again", share: 1, args: {} });
  // Times repeat (an edit can land on a creation's millisecond): say what each keeps.
  for (const filter of out) {
    const { modified_after: after = "", modified_before: before = "~" } = filter.args;
    filter.kept = times.filter((t) => t >= after && t < before).length;
  }
  return out;
}

/** `uptime`'s line, and the 1-minute load average. */
function load() {
  let line;
  try {
    line = execFileSync("uptime", { encoding: "utf8" }).trim();
  } catch {
    line = undefined;
  }
  return { uptime: line, loadavg_1m: round(loadavg()[0], 2) };
}

/**
 * Loads the records into the engine's namespace (not measured): through the store's `load` on
 * SQLite, in batches of 5,000, and in bulk on PostgreSQL (see bulkLoad).
 */
async function fill(engine, target, records) {
  if (engine === "sqlite") {
    const batches = [];
    for (let i = 0; i < records.length; i += 5000) batches.push(records.slice(i, i + 5000));
    mkdirSync(join(target.dataDir, "namespaces"), { recursive: true });
    const store = MemoryStore.open(join(target.dataDir, "namespaces", storeFileName(NAMESPACE)), {
      namespace: NAMESPACE,
    });
    try {
      for (const batch of batches) store.load(batch);
    } finally {
      store.close();
    }
    return;
  }
  const { PgEngine } = await import("@hms/store-postgres");
  const pg = await PgEngine.open({ url: target.databaseUrl });
  try {
    // In bulk (postgres.mjs): store.load takes about 60 memories/s here.
    await bulkLoad(pg, NAMESPACE, records);
    const stored = (await (await pg.get(NAMESPACE)).stats()).memories;
    if (stored !== records.length) {
      throw new Error(`bulk load stored ${stored} of ${records.length} memories`);
    }
    // Fresh statistics for the planner, as autovacuum would gather them in time.
    await pg.pool.query("ANALYZE");
  } finally {
    await pg.close();
  }
}

/**
 * CPU time the process `pid` has used, in ms (Linux /proc: user + system, in clock ticks), or
 * undefined elsewhere. Summed over many calls, it tells what a call costs the server whatever
 * else the machine runs, which latency under load does not.
 */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * Every query under every filter, rotating the order per query: latencies per filter, and the
 * server's CPU time per recall (for PostgreSQL, hms-mcp's only, not the database's).
 */
async function measure(engine, target, queries, list) {
  const server = await spawnServerOn(target, ["--namespace", NAMESPACE]);
  try {
    const recall = (query, filter) =>
      call(server.client, "recall", { query, k: K, tag: "memory-file", ...filter.args });
    for (const query of queries.slice(0, 20)) {
      for (const filter of list) await recall(query, filter);
    }
    const ms = list.map(() => []);
    const cpu = list.map(() => 0);
    const hits = list.map(() => 0);
    const before = load();
    for (const [q, query] of queries.entries()) {
      for (let j = 0; j < list.length; j++) {
        const f = (q + j) % list.length;
        const cpuBefore = cpuMs(server.pid);
        const { ms: took, value } = await time(() => recall(query, list[f]));
        const cpuAfter = cpuMs(server.pid);
        ms[f].push(took);
        if (cpuBefore !== undefined && cpuAfter !== undefined) cpu[f] += cpuAfter - cpuBefore;
        hits[f] += value.hits.length;
        for (const hit of value.hits) checkInRange(hit, list[f]);
      }
    }
    const after = load();
    const none = summarize(ms[0]);
    const cpuOf = (f) =>
      cpuMs(server.pid) === undefined ? null : round(cpu[f] / queries.length, 2);
    const rows = list.map((filter, f) => {
      const figures = summarize(ms[f]);
      return {
        engine,
        filter: filter.name,
        memories_in_range: filter.kept,
        ...figures,
        p50_vs_none: round(figures.p50_ms / none.p50_ms, 2),
        p99_vs_none: round(figures.p99_ms / none.p99_ms, 2),
        server_cpu_ms: cpuOf(f),
        server_cpu_vs_none: cpuOf(0) ? round(cpuOf(f) / cpuOf(0), 2) : null,
        avg_hits: round(hits[f] / queries.length, 2),
      };
    });
    return { load_before: before, load_after: after, rows };
  } finally {
    await server.close();
  }
}

/** A hit outside its filter's range is a wrong answer, not a figure. */
function checkInRange(hit, filter) {
  const { modified_after: after, modified_before: before } = filter.args;
  const at = hit.updated_at;
  if ((after !== undefined && at < after) || (before !== undefined && at >= before)) {
    throw new Error(`${hit.key} (updated_at ${at}) is outside the filter ${filter.name}`);
  }
}

function table(rows) {
  const header = [
    "engine",
    "filter",
    "in range",
    "p50",
    "p99",
    "p50/none",
    "p99/none",
    "server cpu",
    "cpu/none",
    "hits",
  ];
  const body = rows.map((row) => [
    row.engine,
    row.filter,
    String(row.memories_in_range),
    `${row.p50_ms} ms`,
    `${row.p99_ms} ms`,
    String(row.p50_vs_none),
    String(row.p99_vs_none),
    row.server_cpu_ms === null ? "-" : `${row.server_cpu_ms} ms`,
    String(row.server_cpu_vs_none ?? "-"),
    String(row.avg_hits),
  ]);
  const widths = header.map((_, c) => Math.max(...[header, ...body].map((line) => line[c].length)));
  return [header, ...body].map((line) => line.map((cell, c) => cell.padEnd(widths[c])).join("  "));
}

const data = tempDir("recall-time");
const results = {
  benchmark: "recall-by-time (hms-mcp's recall tool over stdio, lexical)",
  memories: MEMORIES,
  queries: QUERIES,
  k: K,
  started: load(),
  engines: {},
};
let database;
try {
  const { records, queries } = corpus();
  const list = filters(records);
  for (const engine of ENGINES) {
    let target = { dataDir: data.dir };
    if (engine === "postgres") {
      database = await benchDatabase(DATABASE_URL);
      target = { databaseUrl: database.url };
      results.postgres = { database: checkDatabaseUrl(database.url), fsync: database.fsync };
    }
    process.stderr.write(`recall-by-time: loading ${MEMORIES} memories into ${engine}\n`);
    await fill(engine, target, records);
    process.stderr.write(`recall-by-time: measuring ${engine} (${load().uptime})\n`);
    const measured = await measure(engine, target, queries, list);
    results.engines[engine] = measured;
    for (const line of table(measured.rows)) process.stderr.write(`${line}\n`);
    process.stderr.write(
      `  load: ${measured.load_before.uptime} -> ${measured.load_after.uptime}\n`,
    );
  }
  console.log(JSON.stringify(results, null, 2));
} finally {
  database?.remove();
  data.remove();
}
