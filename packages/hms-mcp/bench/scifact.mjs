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
//                             [--pg-vectors-from-sqlite] [--embed-runtime auto|native|wasm]
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
// beside SQLite's, in the same run.
// 2b. Then (unless --lexical-only) a hybrid server on PostgreSQL embeds the database's copy
// of the corpus from its shared queue and answers the same queries, beside SQLite's hybrid.
// With --pg-vectors-from-sqlite it does not embed a second time: the bench, acting as one
// more replica, claims the queue and saves the vectors SQLite's hybrid server computed for
// the same texts (same model, checked by hash), so the figures compare the engines' ranking
// on identical vectors; the output says so (postgres_hybrid_indexing.vectors).
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { defaultModelDir } from "@hms/embedder";
import { storeFileName } from "@hms/store";
import { openSqlite } from "@hms/store/internal";
import { benchDatabase, checkDatabaseUrl, psqlValue } from "./postgres.mjs";
import {
  call,
  checkArguments,
  ndcgAt10,
  option,
  pool,
  readJsonl,
  readQrels,
  round,
  rssMiB,
  scifactDir,
  spawnServerOn,
  summarize,
  tempDir,
  time,
} from "./support.mjs";

// Before any work: a misspelt option would otherwise be ignored.
checkArguments(
  "recall-quality",
  ["data", "data-dir", "database-url", "embed-runtime", "model-dir", "split"],
  ["lexical-only", "pg-vectors-from-sqlite", "postgres"],
);

const dataDir = scifactDir();
const splitOption = option("split", "HMS_SCIFACT_SPLIT", "both");
const modelDir = option("model-dir", "HMS_MCP_MODEL_DIR", defaultModelDir());
const keptDir = option("data-dir", "HMS_BENCH_DATA_DIR", undefined);
// The hybrid servers' ONNX Runtime (hms-mcp --embed-runtime); default: theirs (auto).
const embedRuntime = option("embed-runtime", "HMS_BENCH_EMBED_RUNTIME", undefined);
const lexicalOnly = process.argv.includes("--lexical-only");
const pgVectorsFromSqlite = process.argv.includes("--pg-vectors-from-sqlite");
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
    const sqlite = await hybridRun({ dataDir: dir }, "SQLite");
    results.hybrid_indexing = sqlite.indexing;
    results.hybrid = sqlite.hybrid;
    results.hybrid_vs_lexical = versus(sqlite.hybrid, results.lexical);
  }

  // --- 2b. hybrid on PostgreSQL, the same corpus, model and queries ---------------------
  if (postgres !== undefined && !lexicalOnly) {
    if (pgVectorsFromSqlite) await copySqliteVectors(postgres.url);
    const pg = await hybridRun({ databaseUrl: postgres.url }, "PostgreSQL");
    results.postgres_hybrid_indexing = pg.indexing;
    results.postgres_hybrid = pg.hybrid;
    results.postgres_hybrid_vs_lexical = versus(pg.hybrid, results.postgres);
    results.postgres_hybrid_vs_sqlite_hybrid = versus(pg.hybrid, results.hybrid);
  }
  console.log(JSON.stringify(results, null, 2));
} finally {
  temp?.remove();
  postgres?.remove();
}

/**
 * A hybrid server (--model-dir) on `target` (`{ dataDir }` or `{ databaseUrl }`, already
 * loaded by the lexical run): waits for the backfill to embed every memory (throughput, and
 * `get` latency while it runs), then runs every query and 300 gets.
 */
async function hybridRun(target, engine) {
  log(`hybrid (${engine}): starting with --model-dir ${modelDir}`);
  const started = performance.now();
  const hybrid = await spawnServerOn(target, [
    "--namespace",
    NAMESPACE,
    "--model-dir",
    modelDir,
    ...(embedRuntime === undefined ? [] : ["--embed-runtime", embedRuntime]),
    "--log-level",
    "info",
  ]);
  const startMs = performance.now() - started;
  try {
    const first = await call(hybrid.client, "stats", {});
    const indexing = { reused: first.recall.pending === 0, start_ms: round(startMs, 0) };
    if (target.databaseUrl !== undefined && pgVectorsFromSqlite) {
      indexing.vectors = "copied from the SQLite store (same model, same texts, checked by hash)";
    }
    if (first.recall.pending > 0) {
      log(`hybrid (${engine}): embedding ${first.recall.pending} memories (the backfill)`);
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
            log(`hybrid (${engine}): ${pending} memories still to embed`);
          }
        }
      }
      const seconds = (performance.now() - backfill) / 1000;
      indexing.memories = first.recall.pending;
      indexing.seconds = round(seconds, 1);
      indexing.memories_per_s = round(first.recall.pending / seconds, 1);
      indexing.get_latency_during_backfill = summarize(during);
    }
    const passages =
      target.databaseUrl === undefined
        ? countPassages(storePath)
        : await countPgPassages(target.databaseUrl);
    indexing.passages = passages;
    if (indexing.seconds) indexing.passages_per_s = round(passages / indexing.seconds, 1);
    log(`hybrid (${engine}): running the queries`);
    const quality = await evaluate(hybrid.client);
    const get = summarize(await gets(hybrid.client, 300));
    const stats = await call(hybrid.client, "stats", {});
    if (indexing.get_latency_during_backfill) {
      indexing.get_during_vs_idle_p50 = round(
        indexing.get_latency_during_backfill.p50_ms / get.p50_ms,
        2,
      );
    }
    return {
      indexing,
      hybrid: {
        ...quality,
        model: stats.recall.model,
        get_latency: get,
        server_memory: rssMiB(hybrid.pid),
      },
    };
  } finally {
    await hybrid.close();
  }
}

/** `run`'s nDCG@10 and recall latency against `base`'s, per split. */
function versus(run, base) {
  return Object.fromEntries(
    splits.map((split) => [
      split,
      {
        ndcg_difference: round(run[split].ndcg_at_10 - base[split].ndcg_at_10, 4),
        recall_p50_ratio: round(
          run[split].recall_latency.p50_ms / base[split].recall_latency.p50_ms,
          2,
        ),
        recall_p99_ratio: round(
          run[split].recall_latency.p99_ms / base[split].recall_latency.p99_ms,
          2,
        ),
      },
    ]),
  );
}

/**
 * --pg-vectors-from-sqlite: gives the PostgreSQL namespace the vectors the SQLite hybrid run's
 * server computed (the same model over the same texts), instead of embedding the corpus a
 * second time. It acts as one more replica: it takes the namespace's model, claims the queue
 * (FOR UPDATE SKIP LOCKED) and saves, for each claimed memory, the SQLite store's passages
 * and vectors of the same key, refusing any whose text hash differs.
 */
async function copySqliteVectors(url) {
  const { PgEngine } = await import("@hms/store-postgres");
  const db = openSqlite(storePath, { readOnly: true });
  try {
    const info = Object.fromEntries(
      db
        .prepare("SELECT name, value FROM store_info")
        .all()
        .map((row) => [row.name, row.value]),
    );
    const model = { id: info.embedding_model, dimensions: Number(info.embedding_dimensions) };
    if (!model.id)
      throw new Error(`${storePath} has no embedding model: run the SQLite hybrid pass first`);
    const byKey = db.prepare(
      "SELECT v.hash, v.spans, v.vectors FROM memory_vectors v JOIN memories m ON m.id = v.memory_id WHERE m.key = ?",
    );
    // A claim gives the text, not the key: the corpus maps it back (equal texts have equal
    // vectors, so which of two identical abstracts answers does not matter).
    const keyByText = new Map(corpus.map((doc) => [textOf(doc), key(doc._id)]));
    const keyOfText = (text) => keyByText.get(text);
    const engine = await PgEngine.open({ url, embeddings: { model } });
    try {
      await engine.get(NAMESPACE);
      let copied = 0;
      for (;;) {
        const batch = await engine.embeddings.claim({
          worker: "bench-copy",
          limit: 500,
          leaseMs: 600_000,
        });
        if (batch.length === 0) break;
        const items = batch.map((memory) => {
          const row = byKey.get(keyOfText(memory.text));
          if (row === undefined || row.hash !== memory.hash) {
            throw new Error(`the SQLite store has no vectors for the text of memory ${memory.id}`);
          }
          // node:sqlite reads a blob as a Uint8Array.
          const bytes = Buffer.from(row.spans.buffer, row.spans.byteOffset, row.spans.byteLength);
          const spans = [];
          for (let at = 0; at < bytes.length; at += 8) {
            spans.push({ lineStart: bytes.readUInt32LE(at), lineEnd: bytes.readUInt32LE(at + 4) });
          }
          const vectors = new Float32Array(row.vectors.byteLength / 4);
          new Uint8Array(vectors.buffer).set(row.vectors);
          return { id: memory.id, hash: memory.hash, spans, vectors };
        });
        copied += await engine.embeddings.save(items);
      }
      log(
        `postgres: copied the vectors of ${copied} memories from the SQLite store (model ${model.id})`,
      );
    } finally {
      await engine.close();
    }
  } finally {
    db.close();
  }
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
      await checkReused(
        lexical.client,
        before,
        target.databaseUrl === undefined
          ? `--data-dir ${dir}`
          : checkDatabaseUrl(target.databaseUrl),
      );
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
async function checkReused(client, stats, where) {
  const refuse = (why) => {
    throw new Error(
      `${where} holds a ${NAMESPACE} store that is not this SciFact corpus (${why}); use an empty one`,
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
  log(`reusing the store in ${where} (checked: ${corpus.length} memories, texts identical)`);
}

/** How many passage vectors the PostgreSQL database holds (every namespace). */
async function countPgPassages(url) {
  const out = await psqlValue(
    url,
    "SELECT coalesce(sum(cardinality(line_start)), 0) FROM hms_memory_vectors",
  );
  return Number(out);
}

/** How many passage vectors the store holds (read from its file after the backfill). */
function countPassages(file) {
  if (!existsSync(file)) return null;
  const db = openSqlite(file, { readOnly: true });
  try {
    const row = db
      .prepare("SELECT coalesce(sum(length(spans)), 0) / 8 AS passages FROM memory_vectors")
      .get();
    return row.passages;
  } finally {
    db.close();
  }
}
