// Recall quality and cost on BEIR SciFact, lexical and hybrid in the same run, through the
// real `recall` tool of spawned hms-mcp servers. Each abstract is stored as one memory (title,
// a newline, the abstract); each claim is a recall query with k = 10; nDCG@10 as trec_eval
// defines it (binary gains from the qrels, log2 discount, ideal ranking from the judged
// relevant documents, averaged over every query of the split). The data is read in place
// (--data or HMS_SCIFACT_DIR), never copied.
//
//   pnpm bench recall-quality [--split test|train|both] [--data DIR] [--model-dir DIR]
//                             [--data-dir DIR] [--lexical-only]
//                             [--database-url postgres://... | --postgres]
//
// 1. A lexical server (no model) loads the corpus through `remember` and answers the queries.
// 2. A hybrid server (--model-dir) on the same store embeds every memory in the background
//    (the backfill: indexing throughput, and `get` latency while it runs), then answers the
//    same queries.
// Embedding SciFact takes 5-15 minutes on 2 cores. --data-dir keeps the store (with its
// vectors) between runs: a later run with the same directory reuses it, checks it holds
// exactly the corpus, skips loading and embedding, and says so ("reused": true).
// 1b. With --database-url URL (an empty database, or one a previous run loaded: checked the
// same way), or --postgres (a new local cluster, removed afterwards), a lexical server on
// PostgreSQL loads the same corpus and answers the same queries: its nDCG@10 and latency
// beside SQLite's, in the same run. (Hybrid runs on SQLite only: hms-mcp on PostgreSQL has
// no embedding model.)
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { defaultModelDir } from "@hms/embedder";
import { storeFileName } from "@hms/store";
import Database from "better-sqlite3";
import { benchDatabase, checkDatabaseUrl } from "./postgres.mjs";
import {
  call,
  ndcgAt10,
  option,
  pool,
  readJsonl,
  readQrels,
  round,
  rssMiB,
  scifactDir,
  spawnServer,
  spawnServerOn,
  summarize,
  tempDir,
  time,
} from "./support.mjs";

const dataDir = scifactDir();
const splitOption = option("split", "HMS_SCIFACT_SPLIT", "both");
const modelDir = option("model-dir", "HMS_MCP_MODEL_DIR", defaultModelDir());
const keptDir = option("data-dir", "HMS_BENCH_DATA_DIR", undefined);
const lexicalOnly = process.argv.includes("--lexical-only");
const databaseUrl = option("database-url", "HMS_BENCH_DATABASE_URL", undefined);
if (databaseUrl !== undefined) checkDatabaseUrl(databaseUrl);
const wantPostgres = databaseUrl !== undefined || process.argv.includes("--postgres");
const splits = splitOption === "both" ? ["test", "train"] : [splitOption];
for (const split of splits) {
  if (split !== "test" && split !== "train") throw new Error(`--split is test, train or both`);
}
const NAMESPACE = "scifact";
const log = (line) => process.stderr.write(`recall-quality: ${line}\n`);

const corpus = readJsonl(join(dataDir, "corpus.jsonl"));
const allQueries = readJsonl(join(dataDir, "queries.jsonl"));
const judged = Object.fromEntries(
  splits.map((split) => {
    const qrels = readQrels(dataDir, split);
    return [split, { qrels, queries: allQueries.filter((query) => qrels.has(query._id)) }];
  }),
);

const key = (id) => `scifact/${id}`;
const idOf = (key) => key.slice("scifact/".length);
const textOf = (doc) => `${doc.title}\n${doc.text}`;

/** Every query of every split through `recall`: nDCG@10 and latency per split. */
async function evaluate(client) {
  const out = {};
  for (const split of splits) {
    const { qrels, queries } = judged[split];
    let total = 0;
    const ms = [];
    let build;
    for (const query of queries) {
      const { ms: took, value } = await time(() =>
        call(client, "recall", { query: query.text, k: 10 }),
      );
      ms.push(took);
      build = value.build;
      total += ndcgAt10(
        value.hits.map((hit) => idOf(hit.key)),
        qrels.get(query._id),
      );
    }
    out[split] = {
      queries: queries.length,
      ndcg_at_10: round(total / queries.length, 4),
      build,
      recall_latency: summarize(ms),
    };
  }
  return out;
}

/** `get` latency of `n` stored memories, the baseline of each server. */
async function gets(client, n) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const doc = corpus[(i * 17) % corpus.length];
    ms.push((await time(() => call(client, "get", { key: key(doc._id) }))).ms);
  }
  return ms;
}

const temp = keptDir === undefined ? tempDir("scifact") : undefined;
const dir = keptDir === undefined ? temp.dir : resolve(keptDir);
mkdirSync(dir, { recursive: true });
const storePath = join(dir, "namespaces", storeFileName(NAMESPACE));
const results = {
  benchmark: "recall-quality (SciFact via the recall tool over stdio)",
  documents: corpus.length,
  data_dir: keptDir === undefined ? "temporary" : dir,
};
let postgres;
try {
  if (wantPostgres) postgres = await benchDatabase(databaseUrl);
  // --- 1. lexical -----------------------------------------------------------------------
  const sqlite = await lexicalRun({ dataDir: dir });
  results.load = sqlite.load;
  results.lexical = sqlite.lexical;

  // --- 1b. lexical on PostgreSQL, the same corpus and queries ----------------------------
  if (postgres !== undefined) {
    log(`postgres: ${checkDatabaseUrl(postgres.url)}`);
    const pg = await lexicalRun({ databaseUrl: postgres.url });
    results.postgres = { database: checkDatabaseUrl(postgres.url), load: pg.load, ...pg.lexical };
    results.postgres_vs_sqlite = Object.fromEntries(
      splits.map((split) => [
        split,
        {
          ndcg_difference: round(
            pg.lexical[split].ndcg_at_10 - sqlite.lexical[split].ndcg_at_10,
            4,
          ),
          recall_p50_ratio: round(
            pg.lexical[split].recall_latency.p50_ms / sqlite.lexical[split].recall_latency.p50_ms,
            2,
          ),
          recall_p99_ratio: round(
            pg.lexical[split].recall_latency.p99_ms / sqlite.lexical[split].recall_latency.p99_ms,
            2,
          ),
        },
      ]),
    );
  }

  // --- 2. hybrid ------------------------------------------------------------------------
  if (!lexicalOnly) {
    log(`hybrid: starting with --model-dir ${modelDir}`);
    const started = performance.now();
    const hybrid = await spawnServer(dir, [
      "--namespace",
      NAMESPACE,
      "--model-dir",
      modelDir,
      "--log-level",
      "info",
    ]);
    const startMs = performance.now() - started;
    try {
      const first = await call(hybrid.client, "stats", {});
      const indexing = { reused: first.recall.pending === 0, start_ms: round(startMs, 0) };
      if (first.recall.pending > 0) {
        log(`hybrid: embedding ${first.recall.pending} memories (the backfill)`);
        // While it runs: a `get` every 50 ms, to see what the backfill costs other calls.
        const during = [];
        const backfill = performance.now();
        let pending = first.recall.pending;
        let lastLog = backfill;
        while (pending > 0) {
          during.push(
            (
              await time(() =>
                call(hybrid.client, "get", { key: key(corpus[during.length % corpus.length]._id) }),
              )
            ).ms,
          );
          await new Promise((done) => setTimeout(done, 50));
          if (during.length % 20 === 0) {
            pending = (await call(hybrid.client, "stats", {})).recall.pending;
            if (performance.now() - lastLog > 30000) {
              lastLog = performance.now();
              log(`hybrid: ${pending} memories still to embed`);
            }
          }
        }
        const seconds = (performance.now() - backfill) / 1000;
        indexing.memories = first.recall.pending;
        indexing.seconds = round(seconds, 1);
        indexing.memories_per_s = round(first.recall.pending / seconds, 1);
        indexing.get_latency_during_backfill = summarize(during);
      }
      const passages = countPassages(storePath);
      indexing.passages = passages;
      if (indexing.seconds) indexing.passages_per_s = round(passages / indexing.seconds, 1);
      results.hybrid_indexing = indexing;
      log("hybrid: running the queries");
      const quality = await evaluate(hybrid.client);
      const get = summarize(await gets(hybrid.client, 300));
      const stats = await call(hybrid.client, "stats", {});
      results.hybrid = {
        ...quality,
        model: stats.recall.model,
        get_latency: get,
        server_memory: rssMiB(hybrid.pid),
      };
      if (indexing.get_latency_during_backfill) {
        indexing.get_during_vs_idle_p50 = round(
          indexing.get_latency_during_backfill.p50_ms / get.p50_ms,
          2,
        );
      }
      results.hybrid_vs_lexical = Object.fromEntries(
        splits.map((split) => [
          split,
          {
            ndcg_gain: round(
              results.hybrid[split].ndcg_at_10 - results.lexical[split].ndcg_at_10,
              4,
            ),
            recall_p50_ratio: round(
              results.hybrid[split].recall_latency.p50_ms /
                results.lexical[split].recall_latency.p50_ms,
              2,
            ),
            recall_p99_ratio: round(
              results.hybrid[split].recall_latency.p99_ms /
                results.lexical[split].recall_latency.p99_ms,
              2,
            ),
          },
        ]),
      );
    } finally {
      await hybrid.close();
    }
  }
  console.log(JSON.stringify(results, null, 2));
} finally {
  temp?.remove();
  postgres?.remove();
}

/**
 * The lexical server on `target` (`{ dataDir }` or `{ databaseUrl }`): loads the corpus
 * through `remember` into an empty store (or checks a kept one holds exactly it), then runs
 * every query and 300 gets.
 */
async function lexicalRun(target) {
  const out = {};
  const lexical = await spawnServerOn(target, ["--namespace", NAMESPACE]);
  try {
    const before = await call(lexical.client, "stats", {});
    if (before.memories === 0) {
      log(`loading ${corpus.length} abstracts through remember`);
      const writes = [];
      const load = await time(() =>
        pool(corpus, 8, async (doc) => {
          const { ms } = await time(() =>
            call(lexical.client, "remember", {
              key: key(doc._id),
              text: textOf(doc),
              tags: ["scifact"],
            }),
          );
          writes.push(ms);
        }),
      );
      out.load = {
        reused: false,
        memories: corpus.length,
        seconds: round(load.ms / 1000, 2),
        writes_per_s: round(corpus.length / (load.ms / 1000), 0),
        concurrency: 8,
        write_latency: summarize(writes),
      };
    } else {
      await checkReused(lexical.client, before);
      out.load = { reused: true };
    }
    log(
      `lexical (${target.databaseUrl === undefined ? "SQLite" : "PostgreSQL"}): running the queries`,
    );
    const quality = await evaluate(lexical.client);
    const get = summarize(await gets(lexical.client, 300));
    out.lexical = {
      ...quality,
      get_latency: get,
      server_memory: rssMiB(lexical.pid),
    };
  } finally {
    await lexical.close();
  }
  return out;
}

/** A reused store must hold exactly the corpus: same count, same texts (by hash). */
async function checkReused(client, stats) {
  const refuse = (why) => {
    throw new Error(
      `--data-dir ${dir} holds a ${NAMESPACE} store that is not this SciFact corpus (${why}); use an empty directory`,
    );
  };
  if (stats.memories !== corpus.length) refuse(`${stats.memories} memories, not ${corpus.length}`);
  const { createHash } = await import("node:crypto");
  for (let i = 0; i < corpus.length; i += 1) {
    const doc = corpus[i];
    const record = await call(client, "get", { key: key(doc._id) });
    const hash = `sha256:${createHash("sha256").update(textOf(doc), "utf8").digest("hex")}`;
    if (record.hash !== hash) refuse(`${key(doc._id)} differs`);
  }
  log(`reusing the store in ${dir} (checked: ${corpus.length} memories, texts identical)`);
}

/** How many passage vectors the store holds (read from its file after the backfill). */
function countPassages(file) {
  if (!existsSync(file)) return null;
  const db = new Database(file, { readonly: true });
  try {
    const row = db
      .prepare("SELECT coalesce(sum(length(spans)), 0) / 8 AS passages FROM memory_vectors")
      .get();
    return row.passages;
  } finally {
    db.close();
  }
}
