// Recall among thousands of unrelated notes, through the real `recall` tool of spawned hms-mcp
// servers: the notes of distractor-set.mjs (the README's Acme note and others) in a store with
// --distractors short real texts (LoCoMo turns, then SciFact titles, read at run time from
// /work/shared/data or --locomo FILE / --data DIR; never copied into the repository).
//
//   pnpm bench distractors [--distractors 3000] [--model-dir DIR] [--data-dir DIR]
//                          [--compare BIN] [--lexical-only] [--verbose]
//
// For lexical and hybrid: hit@1, hit@5, MRR@10 of the paraphrase queries, the score of the
// note found, and the top hit's score for queries that should match nothing. --compare runs
// the same queries through another build's cli.js (e.g. the build before a change) on the same
// store, in the same run. Embedding the store takes minutes on 2 cores: --data-dir keeps it
// (with its vectors) and a later run reuses it after checking it holds exactly this set.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { defaultModelDir } from "@hms/embedder";
import { NONSENSE, NOTES, QUERIES } from "./distractor-set.mjs";
import {
  BIN,
  call,
  checkArguments,
  option,
  pool,
  quantile,
  readJsonl,
  round,
  scifactDir,
  spawnServer,
  tempDir,
} from "./support.mjs";

// Before any work: a misspelt option would otherwise be ignored.
checkArguments(
  "distractors",
  ["compare", "data", "data-dir", "distractors", "locomo", "model-dir"],
  ["lexical-only", "verbose"],
);

const COUNT = Number(option("distractors", "HMS_BENCH_DISTRACTORS", "3000"));
const modelDir = option("model-dir", "HMS_MCP_MODEL_DIR", defaultModelDir());
const keptDir = option("data-dir", "HMS_BENCH_DATA_DIR", undefined);
const compare = option("compare", "HMS_BENCH_COMPARE", undefined);
const lexicalOnly = process.argv.includes("--lexical-only");
const verbose = process.argv.includes("--verbose");
const NAMESPACE = "distractors";
const K = 10;
const log = (line) => process.stderr.write(`distractors: ${line}\n`);
if (!Number.isInteger(COUNT) || COUNT < 0 || COUNT > 20000) {
  throw new Error("--distractors is a whole number from 0 to 20000");
}
if (compare !== undefined && !existsSync(compare)) {
  throw new Error(`--compare ${compare}: no such file (give a build's dist/cli.js)`);
}

/** LoCoMo turns (`Speaker: text`), then SciFact titles, up to `count` short texts. */
function distractorTexts(count) {
  const scifact = scifactDir();
  const locomo = option(
    "locomo",
    "HMS_LOCOMO_FILE",
    join(dirname(scifact), "locomo-dev", "locomo-dev.json"),
  );
  const texts = [];
  for (const conversation of JSON.parse(readFileSync(locomo, "utf8"))) {
    for (const [name, turns] of Object.entries(conversation.conversation)) {
      if (!/^session_\d+$/.test(name)) continue;
      for (const turn of turns) texts.push(`${turn.speaker}: ${turn.text}`);
    }
  }
  for (const doc of readJsonl(join(scifact, "corpus.jsonl"))) texts.push(doc.title);
  if (texts.length < count) throw new Error(`only ${texts.length} distractor texts available`);
  return texts.slice(0, count);
}

const memories = [
  ...Object.entries(NOTES).map(([key, text]) => ({ key, text })),
  ...distractorTexts(COUNT).map((text, i) => ({ key: `/memories/chat/${i}.md`, text })),
];
const sha = (text) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

/** Loads the set, or checks that a kept store holds exactly it. */
async function load(client) {
  const stats = await call(client, "stats", {});
  if (stats.memories === 0) {
    log(`storing ${memories.length} memories`);
    await pool(memories, 8, (m) => call(client, "remember", { ...m, tags: ["memory-file"] }));
    return false;
  }
  const refuse = (why) => {
    throw new Error(`--data-dir ${keptDir} is not this distractor set (${why}); use an empty one`);
  };
  if (stats.memories !== memories.length) refuse(`${stats.memories} memories`);
  for (const m of memories) {
    if ((await call(client, "get", { key: m.key })).hash !== sha(m.text)) refuse(`${m.key}`);
  }
  log(`reusing the store in ${keptDir} (checked: ${memories.length} memories)`);
  return true;
}

/** Waits until the hybrid server has embedded every memory. */
async function embedded(client) {
  let last = 0;
  for (;;) {
    const { pending } = (await call(client, "stats", {})).recall;
    if (pending === 0) return;
    if (Date.now() - last > 30000) {
      last = Date.now();
      log(`${pending} memories still to embed`);
    }
    await new Promise((done) => setTimeout(done, 1000));
  }
}

/** Every query through `recall`: hit@1, hit@5, MRR@10, scores of the found note and of noise. */
async function evaluate(client) {
  let hit1 = 0;
  let hit5 = 0;
  let rr = 0;
  const foundScores = [];
  const misses = [];
  let build;
  for (const [query, want] of QUERIES) {
    const result = await call(client, "recall", { query, k: K });
    build = result.build;
    const rank = result.hits.findIndex((hit) => hit.key === want);
    if (rank === 0) hit1++;
    if (rank >= 0 && rank < 5) hit5++;
    if (rank >= 0) {
      rr += 1 / (rank + 1);
      foundScores.push(result.hits[rank].score);
    }
    if (rank !== 0) {
      const top = result.hits[0];
      misses.push({ query, rank: rank < 0 ? null : rank + 1, top: top?.key, score: top?.score });
    }
  }
  const noise = [];
  for (const query of NONSENSE) {
    const { hits } = await call(client, "recall", { query, k: K });
    noise.push({ query, top: hits[0]?.key ?? null, score: hits[0]?.score ?? 0 });
  }
  const n = QUERIES.length;
  const noiseScores = noise.map((x) => x.score);
  foundScores.sort((a, b) => a - b);
  return {
    build,
    hit_at_1: round(hit1 / n),
    hit_at_5: round(hit5 / n),
    mrr_at_10: round(rr / n),
    found_note_score: {
      min: round(foundScores[0] ?? 0),
      p25: round(quantile(foundScores, 0.25) ?? 0),
      median: round(quantile(foundScores, 0.5) ?? 0),
      max: round(foundScores.at(-1) ?? 0),
    },
    nonsense_top_score: {
      mean: round(noiseScores.reduce((a, b) => a + b, 0) / noiseScores.length),
      max: round(Math.max(...noiseScores)),
    },
    ...(verbose ? { misses, nonsense: noise } : {}),
  };
}

/** Lexical, then hybrid, through the build at `bin`. */
async function runBuild(dir, bin) {
  const out = {};
  const lexical = await spawnServer(dir, ["--namespace", NAMESPACE], bin);
  try {
    out.lexical = await evaluate(lexical.client);
  } finally {
    await lexical.close();
  }
  if (lexicalOnly) return out;
  const hybrid = await spawnServer(dir, ["--namespace", NAMESPACE, "--model-dir", modelDir], bin);
  try {
    await embedded(hybrid.client);
    out.hybrid = await evaluate(hybrid.client);
  } finally {
    await hybrid.close();
  }
  return out;
}

const temp = keptDir === undefined ? tempDir("distractors") : undefined;
const dir = keptDir === undefined ? temp.dir : resolve(keptDir);
mkdirSync(dir, { recursive: true });
try {
  const server = await spawnServer(dir, ["--namespace", NAMESPACE]);
  let reused;
  try {
    reused = await load(server.client);
  } finally {
    await server.close();
  }
  const results = {
    benchmark: "distractors (paraphrase queries among unrelated notes, recall tool over stdio)",
    notes: Object.keys(NOTES).length,
    distractors: COUNT,
    queries: QUERIES.length,
    nonsense_queries: NONSENSE.length,
    k: K,
    reused,
    this_build: { bin: BIN, ...(await runBuild(dir, BIN)) },
  };
  if (compare !== undefined)
    results.compare_build = { bin: compare, ...(await runBuild(dir, compare)) };
  console.log(JSON.stringify(results, null, 2));
} finally {
  temp?.remove();
}
