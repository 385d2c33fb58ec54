// Embedding throughput of the server: how many memories per second a hybrid hms-mcp embeds in
// the background, measured from outside through `stats`. Each round, for each configuration, a
// lexical server of that build stores the first N SciFact abstracts (title, a newline, the
// abstract) through `remember`; then a hybrid server of the same build opens the store and
// embeds them (the backfill), and the bench polls `stats` until nothing is pending. Then each
// memory is edited once through `remember` (--edit: a line appended, the default, or a sentence
// inserted in the middle of the abstract) and the time until every edit is
// embedded again is taken, the writes included ("edited memories/s"). Rounds
// alternate the configurations, so load on the machine hits each alike; the best round
// estimates each one's own speed and the median shows the spread.
//
//   pnpm bench embed-throughput [--memories N] [--rounds R] [--data DIR] [--model-dir DIR]
//                               [--compare BIN] [--edit append|insert-middle] [--json FILE]
//                               [--runtimes]
//
// Configurations: this build as it starts by default (one embedding worker using the available
// cores); this build with two workers (`--embed-workers 2`, one thread each on 2 cores); with
// --compare BIN, another build's cli.js with its defaults (e.g. the build issue 13 was measured
// on). With --runtimes, this build on each ONNX Runtime too (`--embed-runtime native` and
// `wasm`: the embedder's own WebAssembly build, what an install without onnxruntime-node runs).
// Ratios are to the last configuration. Needs the model (`pnpm fetch-model`).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { defaultModelDir } from "@hms/embedder";
import {
  BIN,
  call,
  checkArguments,
  option,
  pool,
  readJsonl,
  round,
  rssMiB,
  scifactDir,
  spawnServer,
  tempDir,
} from "./support.mjs";

if (process.argv.includes("--help")) {
  process.stdout.write(
    "usage: pnpm bench embed-throughput [--memories N] [--rounds R] [--data DIR]\n" +
      "                                   [--model-dir DIR] [--compare BIN]\n" +
      "                                   [--edit append|insert-middle] [--json FILE]\n" +
      "                                   [--runtimes]\n" +
      "Memories/s a hybrid hms-mcp embeds in the background (first N SciFact abstracts,\n" +
      "default 200; R alternating rounds, default 3), this build by default and with two\n" +
      "embedding workers, on each ONNX Runtime with --runtimes (native, wasm), and another\n" +
      "build's cli.js with --compare; then each memory\n" +
      "edited once (--edit, default append) and embedded again.\n",
  );
  process.exit(0);
}

// Before any work: a misspelt option would otherwise be ignored.
checkArguments(
  "embed-throughput",
  ["compare", "data", "edit", "json", "memories", "model-dir", "rounds"],
  ["runtimes"],
);

const memories = Number(option("memories", "HMS_BENCH_MEMORIES", "200"));
const rounds = Number(option("rounds", "HMS_BENCH_ROUNDS", "3"));
const modelDir = option("model-dir", "HMS_MCP_MODEL_DIR", defaultModelDir());
const compare = option("compare", "HMS_BENCH_COMPARE", undefined);
const jsonFile = option("json", "HMS_BENCH_JSON", undefined);
const edit = option("edit", "HMS_BENCH_EDIT", "append");
if (edit !== "append" && edit !== "insert-middle") {
  throw new Error(`--edit is append or insert-middle, got ${edit}`);
}

/**
 * The edit made to each memory: a line appended (as the memory tool's `insert` at the end
 * does), or a sentence inserted in the middle of the abstract (as a `str_replace` there).
 */
function editOf(text, i) {
  if (edit === "append") return `${text}\nFollow-up ${i}: checked again.`;
  const sentences = text.split(/(?<=\. )/);
  const mid = Math.ceil(sentences.length / 2);
  return [
    ...sentences.slice(0, mid),
    `We also noted follow-up point ${i} here. `,
    ...sentences.slice(mid),
  ].join("");
}
for (const [name, value] of [
  ["--memories", memories],
  ["--rounds", rounds],
]) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
}
const log = (line) => process.stderr.write(`embed-throughput: ${line}\n`);

const corpus = readJsonl(join(scifactDir(), "corpus.jsonl")).slice(0, memories);
const texts = corpus.map((doc) => `${doc.title}\n${doc.text}`);

const configs = [
  { name: "this build, default (1 worker)", bin: BIN, args: [] },
  { name: "this build, 2 workers", bin: BIN, args: ["--embed-workers", "2"] },
  ...(process.argv.includes("--runtimes")
    ? [
        { name: "this build, native runtime", bin: BIN, args: ["--embed-runtime", "native"] },
        { name: "this build, wasm runtime", bin: BIN, args: ["--embed-runtime", "wasm"] },
      ]
    : []),
  ...(compare === undefined ? [] : [{ name: `compare (${compare})`, bin: compare, args: [] }]),
];

/** Polls `stats` until nothing is pending: what was pending at the start, and the seconds. */
async function untilEmbedded(client, config) {
  let stats = await call(client, "stats", {});
  const start = performance.now();
  const todo = stats.recall.pending;
  while (stats.recall.pending > 0) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    stats = await call(client, "stats", {});
  }
  if (stats.recall.build !== "hybrid") {
    throw new Error(`${config.name}: recall is ${stats.recall.build}, not hybrid`);
  }
  return { todo, seconds: (performance.now() - start) / 1000 };
}

/** One round of one configuration: store the texts, time the backfill, then edits. */
async function measure(config) {
  const data = tempDir("embed-throughput");
  try {
    const lexical = await spawnServer(data.dir, [], config.bin);
    await pool(
      texts.map((text, i) => ({ text, key: `scifact/${i}` })),
      8,
      (memory) => call(lexical.client, "remember", memory),
    );
    await lexical.close();

    const hybrid = await spawnServer(
      data.dir,
      ["--model-dir", modelDir, ...config.args],
      config.bin,
    );
    try {
      const backfill = await untilEmbedded(hybrid.client, config);
      // Then every memory is edited once and embedded again.
      const edited = performance.now();
      await pool(
        texts.map((text, i) => ({
          text: editOf(text, i),
          key: `scifact/${i}`,
        })),
        8,
        (memory) => call(hybrid.client, "remember", memory),
      );
      const writes = (performance.now() - edited) / 1000;
      const edits = await untilEmbedded(hybrid.client, config);
      return {
        todo: backfill.todo,
        seconds: backfill.seconds,
        perSecond: backfill.todo / backfill.seconds,
        edits: memories,
        editSeconds: writes + edits.seconds,
        editsPerSecond: memories / (writes + edits.seconds),
        ...rssMiB(hybrid.pid),
      };
    } finally {
      await hybrid.close();
    }
  } finally {
    data.remove();
  }
}

const results = new Map(configs.map((config) => [config.name, []]));
for (let r = 1; r <= rounds; r++) {
  for (const config of configs) {
    const result = await measure(config);
    results.get(config.name).push(result);
    log(
      `round ${r}/${rounds}, ${config.name}: ${result.todo} memories in ` +
        `${round(result.seconds, 1)} s, ${round(result.perSecond, 2)}/s; ${result.edits} edits ` +
        `embedded in ${round(result.editSeconds, 1)} s, ${round(result.editsPerSecond, 2)}/s; ` +
        `peak RSS ${result.peak_rss_mib} MiB`,
    );
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const summary = configs.map((config) => {
  const runs = results.get(config.name);
  const rates = runs.map((run) => run.perSecond);
  const editRates = runs.map((run) => run.editsPerSecond);
  return {
    config: config.name,
    args: config.args,
    best_per_second: round(Math.max(...rates), 2),
    median_per_second: round(median(rates), 2),
    best_edits_per_second: round(Math.max(...editRates), 2),
    median_edits_per_second: round(median(editRates), 2),
    peak_rss_mib: Math.max(...runs.map((run) => run.peak_rss_mib ?? 0)),
    runs,
  };
});
const baseline = summary[summary.length - 1];
const ratio = (a, b) => round(a / b, 2);
const lines = [
  `${memories} SciFact abstracts, ${rounds} alternating rounds, edit: ${edit}; ratios to "${baseline.config}"`,
  "| configuration | new memories/s, best / median | ratio | edited memories/s, best / median | ratio | peak RSS MiB |",
  "|---|---|---|---|---|---|",
  ...summary.map(
    (s) =>
      `| ${s.config} | ${s.best_per_second} / ${s.median_per_second} | ` +
      `${ratio(s.best_per_second, baseline.best_per_second)} / ${ratio(s.median_per_second, baseline.median_per_second)} | ` +
      `${s.best_edits_per_second} / ${s.median_edits_per_second} | ` +
      `${ratio(s.best_edits_per_second, baseline.best_edits_per_second)} / ${ratio(s.median_edits_per_second, baseline.median_edits_per_second)} | ` +
      `${s.peak_rss_mib} |`,
  ),
];
process.stdout.write(`${lines.join("\n")}\n`);
if (jsonFile !== undefined) {
  writeFileSync(jsonFile, `${JSON.stringify({ memories, rounds, edit, summary }, null, 2)}\n`);
}
