// Lexical recall's cost by store size, through hms-mcp's recall tool over stdio: what a
// recall costs the server in CPU time (from /proc, so other load on the machine weighs on it
// far less than on latency) and its latency, on stores of several sizes, in one run.
//
//   pnpm bench recall-cost [--sizes 1000,all] [--split test|train] [--rounds 3]
//                          [--compare BIN] [--data DIR]
//
// For each size, a new store gets that many SciFact abstracts (every judged one first, then
// the rest in corpus order; `all` is the whole corpus), written one `remember` at a time by
// 8 callers, as a client writes memory files. The server is then left alone until its idle
// upkeep is over (its WAL truncated), and the split's claims are recalled (k = 10) --rounds
// times; the first 30 once before, as a warm-up. Reported per size: server CPU per recall
// (mean over the rounds, and the least round), p50/p99 latency, nDCG@10 on the split (on a
// subset, only the judged documents are sure to be there), and the full-text index's
// segments when the writes ended and when the queries began (each query term is looked up in
// every segment).
//
// --compare BIN: another build's cli.js (e.g. a copy of dist/ from before a change) gets its
// own stores of the same sizes the same way, and the two builds' recalls alternate round by
// round, so load drifting during the run weighs on both alike.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { storeFileName } from "@hms/store";
import { openSqlite } from "@hms/store/internal";
import {
  BIN,
  call,
  checkArguments,
  ndcgAt10,
  option,
  pool,
  readJsonl,
  readQrels,
  round,
  scifactDir,
  spawnServerOn,
  summarize,
  tempDir,
  time,
} from "./support.mjs";

checkArguments("recall-cost", ["compare", "data", "rounds", "sizes", "split"], []);

const dataDir = scifactDir();
const SPLIT = option("split", "HMS_SCIFACT_SPLIT", "test");
const ROUNDS = Number(option("rounds", "HMS_BENCH_ROUNDS", "3"));
const COMPARE = option("compare", "HMS_BENCH_COMPARE", undefined);
if (SPLIT !== "test" && SPLIT !== "train") throw new Error("--split is test or train");
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: ${ROUNDS} is not a count`);
if (COMPARE !== undefined && !existsSync(COMPARE)) {
  throw new Error(`--compare ${COMPARE}: no such file (give a build's dist/cli.js)`);
}

const NAMESPACE = "scifact";
const log = (line) => process.stderr.write(`recall-cost: ${line}\n`);

const corpus = readJsonl(join(dataDir, "corpus.jsonl"));
const qrels = readQrels(dataDir, SPLIT);
const queries = readJsonl(join(dataDir, "queries.jsonl")).filter((q) => qrels.has(q._id));
const judged = new Set();
for (const split of ["test", "train"]) {
  for (const relevant of readQrels(dataDir, split).values()) {
    for (const id of relevant) judged.add(id);
  }
}
const ordered = [
  ...corpus.filter((doc) => judged.has(doc._id)),
  ...corpus.filter((doc) => !judged.has(doc._id)),
];
const sizes = option("sizes", "HMS_BENCH_SIZES", "1000,all")
  .split(",")
  .map((size) => (size === "all" ? corpus.length : Number(size)));
for (const size of sizes) {
  if (!Number.isInteger(size) || size < 1 || size > corpus.length) {
    throw new Error(`--sizes: each is a count from 1 to ${corpus.length}, or all`);
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time process `pid` has used, in ms (user + system, Linux /proc). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** `uptime`'s line. */
function uptime() {
  try {
    return execFileSync("uptime", { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Segments of the store's full-text index: the second number of FTS5's structure record (row
 * 10 of memories_fts_data: a 4-byte cookie, FTS5's 4-byte mark of its second format if
 * present, then the levels and the segments as SQLite varints). Read from a second connection.
 */
function segments(file) {
  const db = openSqlite(file, { readOnly: true });
  try {
    const row = db.prepare("SELECT block FROM memories_fts_data WHERE id = 10").get();
    const block = row.block;
    let at = block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1 ? 8 : 4;
    const varint = () => {
      let value = 0;
      for (let i = 0; i < 9; i++) {
        const byte = block[at++];
        if (i === 8) return value * 256 + byte;
        value = value * 128 + (byte & 0x7f);
        if ((byte & 0x80) === 0) return value;
      }
      return value;
    };
    varint(); // levels
    return varint();
  } finally {
    db.close();
  }
}

/** A store of `size` abstracts served by `bin`, written, then left idle until its upkeep ends. */
async function prepare(bin, size, label) {
  const temp = tempDir(`recall-cost-${size}`);
  const file = join(temp.dir, "namespaces", storeFileName(NAMESPACE));
  const server = await spawnServerOn({ dataDir: temp.dir }, ["--namespace", NAMESPACE], bin);
  log(`${label}: writing ${size} abstracts`);
  await pool(ordered.slice(0, size), 8, (doc) =>
    call(server.client, "remember", {
      key: `scifact/${doc._id}`,
      text: `${doc.title}\n${doc.text}`,
      tags: ["scifact"],
    }),
  );
  const written = segments(file);
  // Idle upkeep ends with the WAL checkpointed and truncated; a build without it still
  // truncates after its idle second. Waited for by polling, with no deadline.
  while (!existsSync(`${file}-wal`) || statSync(`${file}-wal`).size > 0) {
    await new Promise((done) => setTimeout(done, 100));
  }
  const idle = segments(file);
  for (const query of queries.slice(0, 30)) {
    await call(server.client, "recall", { query: query.text, k: 10 });
  }
  return {
    label,
    size,
    server,
    temp,
    segments: { after_writes: written, after_idle: idle },
    cpu: [],
    ms: [],
    ndcg: 0,
  };
}

/** One round: every query once; adds its CPU per recall and latencies to `run`. */
async function measureRound(run) {
  const before = cpuMs(run.server.pid);
  let total = 0;
  for (const query of queries) {
    const { ms, value } = await time(() =>
      call(run.server.client, "recall", { query: query.text, k: 10 }),
    );
    run.ms.push(ms);
    total += ndcgAt10(
      value.hits.map((hit) => hit.key.slice("scifact/".length)),
      qrels.get(query._id),
    );
  }
  run.cpu.push((cpuMs(run.server.pid) - before) / queries.length);
  run.ndcg = total / queries.length;
}

const builds = [{ name: "this", bin: BIN }];
if (COMPARE !== undefined) builds.push({ name: "compare", bin: resolve(COMPARE) });
const results = {
  benchmark: "recall-cost (lexical recall through the MCP tool, by store size)",
  split: SPLIT,
  queries: queries.length,
  rounds: ROUNDS,
  builds: Object.fromEntries(builds.map((build) => [build.name, build.bin])),
  uptime_before: uptime(),
  rows: [],
};
const runs = [];
try {
  for (const size of sizes) {
    for (const build of builds) runs.push(await prepare(build.bin, size, `${build.name} ${size}`));
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const run of r % 2 === 0 ? runs : [...runs].reverse()) await measureRound(run);
    log(`round ${r + 1} of ${ROUNDS} done`);
  }
  results.uptime_after = uptime();
  for (const run of runs) {
    const latency = summarize(run.ms);
    results.rows.push({
      build: run.label.split(" ")[0],
      memories: run.size,
      server_cpu_ms_per_recall: round(run.cpu.reduce((a, b) => a + b, 0) / run.cpu.length, 2),
      server_cpu_ms_least_round: round(Math.min(...run.cpu), 2),
      p50_ms: latency.p50_ms,
      p99_ms: latency.p99_ms,
      ndcg_at_10: round(run.ndcg, 4),
      index_segments: run.segments,
    });
  }
  console.log(JSON.stringify(results, null, 2));
} finally {
  for (const run of runs) {
    await run.server.close();
    run.temp.remove();
  }
}
