#!/usr/bin/env node
// The store on its two SQLite drivers side by side, in one run on the same data: Node's own
// node:sqlite (what the store runs on) and better-sqlite3 12 (the native addon it ran on
// before; @hms/test-support's openWithBetterSqlite3 puts the store's own code on it).
//
//   pnpm bench sqlite-drivers [--memories 100000] [--writes 500] [--gets 5000]
//                             [--queries 300] [--rounds 4] [--data DIR] [--json FILE]
//
// Each driver loads its own store of --memories (`rememberMany`, 1,000 per transaction:
// memories/s); then, each round, each driver in a new process (sqlite-drivers-worker.mjs), so
// memory and cold start are that driver's alone, the order alternating:
// - cold start: from the first open of the store (which loads the driver) to the first
//   recall's answer, median over the rounds;
// - get and recall p50/p99 at --memories: --gets gets of random keys and --queries recalls
//   (2 to 6 words of the memories' vocabulary) per round, over all rounds;
// - RSS: the process's resident memory after the round's gets and recalls, median;
// - writes/s: --writes new memories written one at a time (`remember`, one transaction each,
//   synchronous FULL, the store's default), over all rounds;
// - SciFact lexical nDCG@10 (test split, k = 10, each abstract one memory as
//   `pnpm bench recall-quality` stores it), and how many queries got the same ranking on both.
// The memories are synthetic (seeded, the same for both drivers); the drivers take turns
// within each round, the order alternating. `uptime` is printed before and after: latency
// depends on the machine's load.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { quantile } from "@hms/test-support";

const HERE = dirname(fileURLToPath(import.meta.url));
const WORKER = join(HERE, "sqlite-drivers-worker.mjs");
const DRIVERS = ["better-sqlite3", "node:sqlite"];

const { values } = parseArgs({
  options: {
    memories: { type: "string", default: "100000" },
    writes: { type: "string", default: "500" },
    gets: { type: "string", default: "5000" },
    queries: { type: "string", default: "300" },
    rounds: { type: "string", default: "4" },
    data: { type: "string" },
    json: { type: "string" },
  },
});
const count = (name, least) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < least) throw new Error(`--${name} is an integer of ${least}+`);
  return n;
};
const MEMORIES = count("memories", 1000);
const WRITES = count("writes", 1);
const GETS = count("gets", 1);
const QUERIES = count("queries", 1);
const ROUNDS = count("rounds", 1);
const SCIFACT = resolve(
  process.env.INIT_CWD ?? ".",
  values.data ?? process.env.HMS_SCIFACT_DIR ?? findScifact(),
);

/** The first shared/data/scifact beside the repository or above it (read in place). */
function findScifact() {
  for (let dir = resolve(HERE, "../../.."); ; dir = dirname(dir)) {
    const candidate = join(dir, "shared", "data", "scifact");
    if (existsSync(join(candidate, "corpus.jsonl"))) return candidate;
    if (dirname(dir) === dir) {
      throw new Error("SciFact not found: --data DIR or HMS_SCIFACT_DIR (BEIR's scifact)");
    }
  }
}

const log = (line) => process.stderr.write(`sqlite-drivers: ${line}\n`);
const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();

/** Runs the worker for `task` on `driver` in a new process; resolves with its JSON answer. */
function worker(task, driver, args) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [WORKER, task, driver, JSON.stringify(args)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => {
      if (code !== 0) fail(new Error(`the ${task} worker on ${driver} exited with ${code}`));
      else done(JSON.parse(out));
    });
  });
}

const round = (value, digits) => Math.round(value * 10 ** digits) / 10 ** digits;
const median = (values) => quantile(values, 0.5);
const sum = (values) => values.reduce((a, b) => a + b, 0);

const work = mkdtempSync(join(tmpdir(), "hms-sqlite-drivers-"));
const loadBefore = uptime();
try {
  const results = Object.fromEntries(DRIVERS.map((driver) => [driver, { samples: [] }]));
  const files = Object.fromEntries(
    DRIVERS.map((driver, i) => [driver, join(work, `store-${i}.sqlite`)]),
  );
  for (const driver of DRIVERS) {
    log(`${driver}: loading ${MEMORIES.toLocaleString("en-US")} memories`);
    Object.assign(
      results[driver],
      await worker("load", driver, { file: files[driver], memories: MEMORIES }),
    );
  }
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? DRIVERS : [...DRIVERS].reverse();
    for (const driver of order) {
      log(`round ${r + 1}/${ROUNDS}: ${driver}`);
      results[driver].samples.push(
        await worker("round", driver, {
          file: files[driver],
          memories: MEMORIES,
          gets: GETS,
          queries: QUERIES,
          writes: WRITES,
          seed: 1000 + r,
        }),
      );
    }
  }
  for (const driver of DRIVERS) {
    log(`${driver}: SciFact`);
    results[driver].scifact = await worker("scifact", driver, {
      file: join(work, `scifact-${DRIVERS.indexOf(driver)}.sqlite`),
      data: SCIFACT,
    });
  }

  const summary = Object.fromEntries(
    DRIVERS.map((driver) => {
      const { samples, ...rest } = results[driver];
      const gets = samples.flatMap((s) => s.get_ms);
      const recalls = samples.flatMap((s) => s.recall_ms);
      return [
        driver,
        {
          versions: samples[0].versions,
          writes_per_s: Math.round(
            (1000 * sum(samples.map((s) => s.writes))) / sum(samples.map((s) => s.writes_ms)),
          ),
          bulk_memories_per_s: rest.bulk_memories_per_s,
          get_p50_ms: round(quantile(gets, 0.5), 4),
          get_p99_ms: round(quantile(gets, 0.99), 4),
          recall_p50_ms: round(quantile(recalls, 0.5), 3),
          recall_p99_ms: round(quantile(recalls, 0.99), 3),
          cold_start_ms: round(median(samples.map((s) => s.cold_start_ms)), 1),
          rss_mib: round(median(samples.map((s) => s.rss_mib)), 1),
          scifact_ndcg_at_10: rest.scifact.ndcg_at_10,
          recall_hits: samples[0].hits,
        },
      ];
    }),
  );
  const [old, now] = DRIVERS.map((driver) => summary[driver]);
  const sameRankings = results[DRIVERS[0]].scifact.rankings.filter(
    (ranking, i) =>
      JSON.stringify(ranking) === JSON.stringify(results[DRIVERS[1]].scifact.rankings[i]),
  ).length;
  const sameHits = JSON.stringify(old.recall_hits) === JSON.stringify(now.recall_hits);

  // node:sqlite against better-sqlite3: above 1 is better for a rate, below 1 for a cost.
  const rows = [
    ["writes/s (remember, sync FULL)", "writes_per_s", "rate"],
    ["bulk load, memories/s", "bulk_memories_per_s", "rate"],
    ["get p50 (ms)", "get_p50_ms", "cost"],
    ["get p99 (ms)", "get_p99_ms", "cost"],
    ["recall p50 (ms)", "recall_p50_ms", "cost"],
    ["recall p99 (ms)", "recall_p99_ms", "cost"],
    ["cold start (ms)", "cold_start_ms", "cost"],
    ["RSS (MiB)", "rss_mib", "cost"],
    ["SciFact nDCG@10 (test)", "scifact_ndcg_at_10", "same"],
  ];
  const lines = [
    `sqlite-drivers: the store at ${MEMORIES.toLocaleString("en-US")} memories, ${ROUNDS} rounds`,
    `  better-sqlite3 ${old.versions.driver} (SQLite ${old.versions.sqlite}) and node:sqlite ` +
      `(Node ${now.versions.node}, SQLite ${now.versions.sqlite})`,
    `  load before: ${loadBefore}`,
    "",
    `${"".padEnd(32)}${"better-sqlite3".padStart(15)}${"node:sqlite".padStart(15)}${"node/better".padStart(13)}  within 10%`,
  ];
  for (const [label, field, kind] of rows) {
    const ratio = now[field] / old[field];
    const within =
      kind === "same"
        ? now[field] === old[field]
        : kind === "rate"
          ? ratio >= 1 / 1.1
          : ratio <= 1.1;
    lines.push(
      `${label.padEnd(32)}${String(old[field]).padStart(15)}${String(now[field]).padStart(15)}${ratio.toFixed(3).padStart(13)}  ${within ? "yes" : "NO"}`,
    );
  }
  lines.push(
    "",
    `  SciFact: ${sameRankings} of ${results[DRIVERS[0]].scifact.rankings.length} queries ranked the same by both`,
    `  recall at ${MEMORIES.toLocaleString("en-US")}: the same hits from both for the first round's queries: ${sameHits ? "yes" : "NO"}`,
    `  load after:  ${uptime()}`,
  );
  console.log(lines.join("\n"));
  if (values.json !== undefined) {
    const out = resolve(process.env.INIT_CWD ?? ".", values.json);
    writeFileSync(out, `${JSON.stringify({ summary, sameRankings, loadBefore }, null, 2)}\n`);
    log(`wrote ${out}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
