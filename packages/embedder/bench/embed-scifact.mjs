#!/usr/bin/env node
// `pnpm bench embed-scifact [--data DIR] [--model-dir DIR] [--threads N] [--split test|train]
//                           [--rounds N] [--skip-ndcg] [--skip-batches]`
//
// Checks that the embedder computes what all-MiniLM-L6-v2 should, and measures its cost:
//  1. throughput (texts/s) on SciFact abstracts (long: most reach the 256-token cut) and claims
//     (short, like recall queries) for batch sizes 1, 8 and 32 and the default plan, as ratios
//     to batch size 1 in the same run. Each measurement runs in its own process, so its
//     resident memory (idle after loading, and peak) is its own; configurations are
//     interleaved over rounds. Other load on the machine only ever slows a run down, so the
//     best round is the estimate of the embedder's own speed (the median is shown too);
//  2. memories/s as hms-mcp's worker embeds them: 48 abstracts cut into passages of at most
//     126 tokens (whole sentences, as hms-mcp cuts them), run by today's strategy ("planned":
//     the job's passages sorted by token length, model calls of at most 256 padded tokens)
//     and by the one before it ("baseline": 4 passages per call in write order), as a ratio
//     in the same run. Vectors do not depend on the strategy (a text gets the same vector
//     alone or in a batch), so nDCG is measured once;
//  3. dense-only nDCG@10 on SciFact (BEIR), the trec_eval definition, against the published
//     0.645 of all-MiniLM-L6-v2 (MTEB). Far below it means pooling, normalisation, tokenisation
//     or truncation is wrong.
// The data are read where they are (shared/data/scifact); nothing is copied.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  DEFAULT_BATCH_SIZE,
  DEFAULT_BATCH_TOKENS,
  defaultModelDir,
  loadEmbedder,
  planBatches,
} from "../dist/index.js";
import { cliOf } from "./cli.mjs";

const { fail, positive, findSharedScifact } = cliOf("embed-scifact");

const PUBLISHED_NDCG10 = 0.645;
const CONFIGS = [
  { name: "batch 1", batchSize: 1 },
  { name: "batch 8", batchSize: 8, batchTokens: Number.POSITIVE_INFINITY },
  { name: "batch 32", batchSize: 32, batchTokens: Number.POSITIVE_INFINITY },
  { name: `default (${DEFAULT_BATCH_SIZE} texts, ${DEFAULT_BATCH_TOKENS} tokens)` },
];
const SAMPLE = { abstracts: 48, claims: 300 };
/** hms-mcp's passage budget (tokens, special tokens excluded) and the memories sampled. */
const PASSAGE_TOKENS = 126;
const MEMORIES = 48;
const STRATEGIES = ["baseline", "planned"];

const { values } = parseArgs({
  options: {
    data: { type: "string" },
    "model-dir": { type: "string" },
    threads: { type: "string" },
    split: { type: "string", default: "test" },
    rounds: { type: "string", default: "3" },
    "skip-ndcg": { type: "boolean", default: false },
    "skip-batches": { type: "boolean", default: false },
    child: { type: "string" },
  },
});
const threads = values.threads === undefined ? undefined : positive("--threads", values.threads);
const rounds = positive("--rounds", values.rounds);
if (!["test", "train"].includes(values.split))
  fail(`--split is test or train, not ${values.split}`);
const dataDir = values.data ?? process.env.HMS_SCIFACT_DIR ?? findSharedScifact();
const modelDir = values["model-dir"] ?? defaultModelDir();
const threadOption = threads ? { threads } : {};
const mb = (bytes) => Math.round(bytes / 2 ** 20);
const log = (line) => process.stderr.write(`embed-scifact: ${line}\n`);

if (values.child) {
  await child(JSON.parse(values.child));
  process.exit(0);
}

// --- data -------------------------------------------------------------------------------
const corpus = readJsonl(join(dataDir, "corpus.jsonl")).map((doc) => ({
  id: doc._id,
  // As BEIR / sentence-transformers embed a document: title, a space, the text.
  text: `${doc.title ?? ""} ${doc.text ?? ""}`.trim(),
}));
const queryText = new Map(readJsonl(join(dataDir, "queries.jsonl")).map((q) => [q._id, q.text]));

// --- 1. throughput and memory, one process per measurement ----------------------------
const runs = [];
for (let round = 1; round <= rounds && !values["skip-batches"]; round++) {
  for (const kind of Object.keys(SAMPLE)) {
    for (const config of CONFIGS) {
      const args = [fileURLToPath(import.meta.url), "--data", dataDir, "--model-dir", modelDir];
      if (threads) args.push("--threads", String(threads));
      args.push("--child", JSON.stringify({ kind, config }));
      const result = spawnSync(process.execPath, args, { encoding: "utf8" });
      if (result.status !== 0) fail(`measurement failed:\n${result.stderr}`);
      const measured = JSON.parse(result.stdout);
      runs.push({ kind, config: config.name, ...measured });
      log(`round ${round} ${kind} ${config.name}: ${measured.textsPerSecond.toFixed(1)} texts/s`);
    }
  }
}

// --- 2. memories/s by strategy, one process per measurement -------------------------------
const strategyRuns = [];
for (let round = 1; round <= rounds; round++) {
  for (const strategy of STRATEGIES) {
    const args = [fileURLToPath(import.meta.url), "--data", dataDir, "--model-dir", modelDir];
    if (threads) args.push("--threads", String(threads));
    args.push("--child", JSON.stringify({ kind: "memories", strategy }));
    const result = spawnSync(process.execPath, args, { encoding: "utf8" });
    if (result.status !== 0) fail(`measurement failed:\n${result.stderr}`);
    const measured = JSON.parse(result.stdout);
    strategyRuns.push({ strategy, ...measured });
    log(`round ${round} memories ${strategy}: ${measured.memoriesPerSecond.toFixed(2)} memories/s`);
  }
}

// --- 3. nDCG@10 -------------------------------------------------------------------------
let quality;
if (!values["skip-ndcg"]) {
  const qrels = new Map();
  for (const line of readFileSync(join(dataDir, "qrels", `${values.split}.tsv`), "utf8")
    .split("\n")
    .slice(1)) {
    if (!line.trim()) continue;
    const [query, doc, score] = line.split("\t");
    if (Number(score) <= 0) continue;
    if (!qrels.has(query)) qrels.set(query, new Set());
    qrels.get(query).add(doc);
  }
  const queryIds = [...qrels.keys()];
  const embedder = await loadEmbedder(modelDir, threadOption);
  const started = performance.now();
  const docVectors = await embedder.embed(corpus.map((d) => d.text));
  const corpusSeconds = (performance.now() - started) / 1000;
  log(`embedded ${corpus.length} abstracts in ${corpusSeconds.toFixed(1)} s`);
  const queryVectors = await embedder.embed(queryIds.map((id) => queryText.get(id) ?? ""));
  await embedder.close();
  let total = 0;
  queryIds.forEach((queryId, qi) => {
    const q = queryVectors[qi];
    // Vectors have unit length, so the dot product is the cosine.
    const scored = docVectors.map((d, di) => {
      let dot = 0;
      for (let k = 0; k < d.length; k++) dot += d[k] * q[k];
      return { id: corpus[di].id, score: dot };
    });
    // trec_eval order: score descending, then document id descending.
    scored.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const relevant = qrels.get(queryId);
    let dcg = 0;
    scored.slice(0, 10).forEach((hit, rank) => {
      if (relevant.has(hit.id)) dcg += 1 / Math.log2(rank + 2);
    });
    let ideal = 0;
    for (let rank = 0; rank < Math.min(relevant.size, 10); rank++) ideal += 1 / Math.log2(rank + 2);
    total += dcg / ideal;
  });
  quality = {
    ndcg: total / queryIds.length,
    queries: queryIds.length,
    corpusSeconds,
    peak: process.resourceUsage().maxRSS * 1024,
    model: embedder.modelId,
    dimensions: embedder.dimensions,
  };
}

// --- report -----------------------------------------------------------------------------
const out = [`embed-scifact: threads ${threads ?? "default"}, ${rounds} rounds`];
if (quality) {
  out.push("");
  out.push(
    `nDCG@10 (${values.split}, ${quality.queries} queries, ${corpus.length} documents, dense only)`,
  );
  out.push(`  ${quality.model} (${quality.dimensions} dims)   ${quality.ndcg.toFixed(4)}`);
  out.push(
    `  published all-MiniLM-L6-v2 (MTEB)  ${PUBLISHED_NDCG10.toFixed(3)}   ratio ${(quality.ndcg / PUBLISHED_NDCG10).toFixed(3)}`,
  );
  out.push(
    `  corpus embedded at ${(corpus.length / quality.corpusSeconds).toFixed(1)} texts/s (${quality.corpusSeconds.toFixed(0)} s, default plan), peak RSS ${mb(quality.peak)} MiB`,
  );
}
if (runs.length > 0) {
  out.push("");
  out.push(
    "throughput and memory (best and median of the rounds; ratio of the best to batch 1's best)",
  );
  out.push(
    `  ${"texts".padEnd(16)}${"plan".padEnd(32)}${"best/s".padStart(8)}${"ratio".padStart(7)}${"median/s".padStart(10)}${"RSS idle".padStart(10)}${"peak".padStart(10)}`,
  );
  for (const kind of Object.keys(SAMPLE)) {
    const base = Math.max(
      ...runs
        .filter((r) => r.kind === kind && r.config === CONFIGS[0].name)
        .map((r) => r.textsPerSecond),
    );
    for (const config of CONFIGS) {
      const mine = runs.filter((r) => r.kind === kind && r.config === config.name);
      const best = Math.max(...mine.map((r) => r.textsPerSecond));
      out.push(
        `  ${`${kind} (${SAMPLE[kind]})`.padEnd(16)}${config.name.padEnd(32)}${best.toFixed(1).padStart(8)}${(best / base).toFixed(2).padStart(7)}${median(
          mine.map((r) => r.textsPerSecond),
        )
          .toFixed(1)
          .padStart(
            10,
          )}${`${mb(median(mine.map((r) => r.rssLoaded)))} MiB`.padStart(10)}${`${mb(median(mine.map((r) => r.peak)))} MiB`.padStart(10)}`,
      );
    }
  }
  out.push(
    `  RSS idle: model loaded, nothing embedded; a bare node process with the libraries imported: ${mb(median(runs.map((r) => r.rssBare)))} MiB`,
  );
}
out.push("");
out.push(
  `memories/s as hms-mcp embeds them (${MEMORIES} abstracts in passages of at most ${PASSAGE_TOKENS} tokens; best and median of the rounds)`,
);
const bestOf = (strategy) =>
  Math.max(...strategyRuns.filter((r) => r.strategy === strategy).map((r) => r.memoriesPerSecond));
for (const strategy of STRATEGIES) {
  const mine = strategyRuns.filter((r) => r.strategy === strategy);
  out.push(
    `  ${strategy.padEnd(10)}${bestOf(strategy).toFixed(2).padStart(8)} memories/s (median ${median(mine.map((r) => r.memoriesPerSecond)).toFixed(2)}), ${mine[0].passages} passages, ${mine[0].paddedTokens} padded tokens for ${mine[0].tokens}`,
  );
}
out.push(`  planned / baseline (best): ${(bestOf("planned") / bestOf("baseline")).toFixed(2)}`);
console.log(out.join("\n"));

// One measurement in its own process: load, warm up, embed the sample, report.
async function child({ kind, config, strategy }) {
  if (kind === "memories") return memoriesChild(strategy);
  const rssBare = process.memoryUsage().rss;
  const { name: _, ...options } = config;
  const embedder = await loadEmbedder(modelDir, { ...threadOption, ...options });
  const rssLoaded = process.memoryUsage().rss;
  const texts = (
    kind === "abstracts"
      ? readJsonl(join(dataDir, "corpus.jsonl")).map((d) =>
          `${d.title ?? ""} ${d.text ?? ""}`.trim(),
        )
      : readJsonl(join(dataDir, "queries.jsonl")).map((q) => q.text)
  ).slice(0, SAMPLE[kind]);
  await embedder.embed(texts.slice(0, 2));
  const started = performance.now();
  await embedder.embed(texts);
  const seconds = (performance.now() - started) / 1000;
  await embedder.close();
  process.stdout.write(
    JSON.stringify({
      textsPerSecond: texts.length / seconds,
      rssBare,
      rssLoaded,
      peak: process.resourceUsage().maxRSS * 1024,
    }),
  );
}

// hms-mcp's worker: a job's passages, embedded by `strategy`.
async function memoriesChild(strategy) {
  const embedder = await loadEmbedder(modelDir, threadOption);
  const memories = readJsonl(join(dataDir, "corpus.jsonl"))
    .slice(0, MEMORIES)
    .map((d) => `${d.title}\n${d.text}`);
  const passages = memories.flatMap((text) => toPassages(text, (t) => embedder.countTokens(t)));
  const lengths = passages.map((t) => Math.min(embedder.countTokens(t) + 2, embedder.maxTokens));
  const groups =
    strategy === "baseline"
      ? // Before: 4 passages per call, in write order.
        Array.from({ length: Math.ceil(passages.length / 4) }, (_, i) =>
          Array.from({ length: Math.min(4, passages.length - i * 4) }, (_, k) => i * 4 + k),
        )
      : planBatches(lengths, { maxTexts: passages.length, maxTokens: 256 });
  await embedder.embed(passages.slice(0, 2));
  const started = performance.now();
  for (const group of groups) await embedder.embed(group.map((k) => passages[k]));
  const seconds = (performance.now() - started) / 1000;
  await embedder.close();
  const padded = groups.reduce(
    (sum, g) => sum + g.length * Math.max(...g.map((k) => lengths[k])),
    0,
  );
  process.stdout.write(
    JSON.stringify({
      memoriesPerSecond: memories.length / seconds,
      passages: passages.length,
      tokens: lengths.reduce((a, b) => a + b, 0),
      paddedTokens: padded,
    }),
  );
}

/** Whole sentences packed into passages of at most PASSAGE_TOKENS tokens, as hms-mcp cuts. */
function toPassages(text, count) {
  const out = [];
  let current = "";
  for (const sentence of text.split(/(?<=[.!?;:\n])\s+/)) {
    const joined = current === "" ? sentence : `${current} ${sentence}`;
    if (current !== "" && count(joined) > PASSAGE_TOKENS) {
      out.push(current);
      current = sentence;
    } else current = joined;
  }
  if (current !== "") out.push(current);
  return out;
}

function median(numbers) {
  const sorted = [...numbers].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function readJsonl(path) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}
