// `hms-mcp backup` on SQLite while a server is written to: how long the backup of a namespace
// of N memory files takes (spawn to exit, the integrity check included), and the writers' call
// latency (p50/p99 of `remember` over HTTP) while it runs, as a ratio to the same writers' in
// the same run before it started. The store is seeded through @hms/store (each memory a memory
// file of ~60 words, so that the history holds a row each), then served by a real hms-mcp over
// HTTP; W writers write new memory files one call at a time throughout. Prints `uptime` before
// and after: figures depend on the machine's load.
//
//   pnpm bench backup [--memories N] [--writers W] [--baseline-writes K]
//
// --memories: memories seeded (default 100000); --writers: concurrent writers (default 4);
// --baseline-writes: writes timed before the backup, for the baseline (default 400).
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Namespaces } from "@hms/store";
import {
  quantile,
  seededRandom,
  startHttpProcess,
  syntheticText,
  until,
  writeLoad,
  zipfVocabulary,
} from "@hms/test-support";
import { BIN, checkArguments, option, round, tempDir } from "./support.mjs";

// Before any work: a misspelt option would otherwise be ignored.
checkArguments("backup", ["memories", "writers", "baseline-writes"], []);

const MEMORIES = Number(option("memories", "HMS_BENCH_MEMORIES", "100000"));
const WRITERS = Number(option("writers", "HMS_BENCH_WRITERS", "4"));
const BASELINE = Number(option("baseline-writes", "HMS_BENCH_BASELINE_WRITES", "400"));
for (const [name, value] of [
  ["--memories", MEMORIES],
  ["--writers", WRITERS],
  ["--baseline-writes", BASELINE],
]) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
}
const log = (line) => process.stderr.write(`backup: ${line}\n`);
const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();

const data = tempDir("backup-data");
const out = tempDir("backup-out");
const loadBefore = uptime();
log(`load before: ${loadBefore}`);
try {
  const rand = seededRandom(42);
  const word = zipfVocabulary(rand, 30000);
  const seeding = new Namespaces({ dataDir: data.dir });
  const store = seeding.get("default");
  for (let done = 0; done < MEMORIES; done += 1000) {
    const batch = [];
    for (let i = done; i < Math.min(MEMORIES, done + 1000); i++) {
      batch.push({
        key: `/memories/seed/${Math.floor(i / 1000)}/n${i}.md`,
        text: syntheticText(rand, word),
      });
    }
    store.rememberMany(batch);
  }
  seeding.close();
  log(`seeded ${MEMORIES} memories`);

  const server = await startHttpProcess({
    dataDir: data.dir,
    args: ["--namespace-arg", "--log-level", "info"],
  });
  const clients = await Promise.all(Array.from({ length: WRITERS }, () => server.connect()));
  const acked = [];
  let stop = false;
  const writers = writeLoad(clients, ["default"], acked, () => stop, 1_000_000);
  await until(() => acked.length, BASELINE);
  const baseline = acked.slice(0, BASELINE).map((write) => write.ms);
  const startedAt = acked.length;
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [BIN, "backup", "--data-dir", data.dir, "--to", join(out.dir, "b")],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const status = await new Promise((resolve) => child.once("exit", resolve));
  const seconds = (performance.now() - started) / 1000;
  const during = acked.slice(startedAt).map((write) => write.ms);
  stop = true;
  await writers;
  for (const client of clients) await client.close();
  await server.stop();
  if (status !== 0) throw new Error(`hms-mcp backup failed (${status}):\n${stderr}`);
  const bytes = Number(/(\d+) bytes/.exec(stderr)?.[1] ?? Number.NaN);
  const row = {
    memories: MEMORIES,
    writers: WRITERS,
    backup_seconds: round(seconds, 2),
    backup_mib: round(bytes / 2 ** 20, 1),
    writes_during: during.length,
    baseline_p50_ms: round(quantile(baseline, 0.5), 1),
    baseline_p99_ms: round(quantile(baseline, 0.99), 1),
    during_p50_ms: round(quantile(during, 0.5), 1),
    during_p99_ms: round(quantile(during, 0.99), 1),
  };
  row.p99_ratio = round(row.during_p99_ms / row.baseline_p99_ms, 2);
  const loadAfter = uptime();
  log(`load after: ${loadAfter}`);
  console.log(
    JSON.stringify(
      { benchmark: "backup", load_before: loadBefore, load_after: loadAfter, ...row },
      null,
      2,
    ),
  );
} finally {
  data.remove();
  out.remove();
}
