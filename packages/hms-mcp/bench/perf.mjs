// Speed of hms-mcp through its real tools over stdio: cold start, write throughput, get and
// list latency, and recall latency at 100,000 synthetic memories, with resident memory, for
// the lexical build and (unless --lexical-only) the hybrid build. Ratios are against a plain
// `get`, or the lexical build, measured in the same run.
//
//   pnpm bench server-perf [--memories 100000] [--queries 300] [--embedded 2000]
//                          [--model-dir DIR] [--lexical-only]
//                          [--sizes 1000,10000,100000] [--compare BIN] [--curve-only]
//   pnpm bench server-perf --database-url postgres://... | --postgres [--sizes 5000,100000]
//
// With --postgres (or --database-url) and --compare BIN, the other build's server is measured
// on the same PostgreSQL database after this build's, at each size (the row
// "postgres-compare"; both builds must accept the database's schema).
//
// The lexical recall curve: recall p50/p99 at each of --sizes memories (the same synthetic
// memories and queries), for this build and, with --compare, for another build's cli.js
// (e.g. /work/wt-before/packages/hms-mcp/dist/cli.js) on the same files, one after the
// other, with their ratios. --curve-only prints only the curve. The other build reads its own
// copy of the memories, written by its own @hms/store (--compare-store, by default the
// store/dist/index.js beside that build), so a build from before a schema change can run.
//
// Hybrid at 100,000 memories: embedding them all would take about an hour on 2 cores, so the
// server embeds the newest --embedded of them itself (the backfill: indexing throughput) and
// the rest get random unit vectors written straight into the store. Exact search costs the
// same whatever the vectors hold; the queries are embedded by the real model.
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { DEFAULT_MODEL, defaultModelDir, identifyModel } from "@hms/embedder";
import { MemoryStore, storeFileName } from "@hms/store";
import { seededRandom, syntheticText, zipfVocabulary } from "@hms/test-support";
import { engineTable, formatEngineTable } from "./engines.mjs";
import { benchDatabase, checkDatabaseUrl } from "./postgres.mjs";
import {
  BIN,
  call,
  checkArguments,
  option,
  pool,
  quantile,
  round,
  rssMiB,
  spawnServer,
  summarize,
  tempDir,
  time,
} from "./support.mjs";

// Before any work: a misspelt option would otherwise be ignored.
checkArguments(
  "server-perf",
  [
    "compare",
    "compare-store",
    "database-url",
    "embedded",
    "memories",
    "model-dir",
    "queries",
    "sizes",
  ],
  ["curve-only", "lexical-only", "postgres"],
);

const MEMORIES = Number(option("memories", "HMS_BENCH_MEMORIES", "100000"));
const QUERIES = Number(option("queries", "HMS_BENCH_QUERIES", "300"));
const EMBEDDED = Number(option("embedded", "HMS_BENCH_EMBEDDED", "2000"));
const MODEL_DIR = option("model-dir", "HMS_MCP_MODEL_DIR", defaultModelDir());
const LEXICAL_ONLY = process.argv.includes("--lexical-only");
const DATABASE_URL = option("database-url", "HMS_BENCH_DATABASE_URL", undefined);
const ENGINES = DATABASE_URL !== undefined || process.argv.includes("--postgres");
const SIZES = option("sizes", "HMS_BENCH_SIZES", ENGINES ? "5000,100000" : "1000,10000,100000")
  .split(",")
  .map(Number);
const COMPARE = option("compare", "HMS_BENCH_COMPARE", undefined);
const CURVE_ONLY = process.argv.includes("--curve-only");
if (COMPARE !== undefined && !existsSync(COMPARE)) {
  throw new Error(`--compare ${COMPARE}: no such file (give a build's dist/cli.js)`);
}
const COMPARE_STORE =
  COMPARE === undefined
    ? undefined
    : option(
        "compare-store",
        "HMS_BENCH_COMPARE_STORE",
        resolve(dirname(COMPARE), "../../store/dist/index.js"),
      );
if (COMPARE_STORE !== undefined && !existsSync(COMPARE_STORE)) {
  throw new Error(
    `--compare-store ${COMPARE_STORE}: no such file (give the other build's store/dist/index.js)`,
  );
}
if (DATABASE_URL !== undefined) checkDatabaseUrl(DATABASE_URL);
for (const size of SIZES) {
  if (!Number.isInteger(size) || size < 1) throw new Error(`--sizes: ${size} is not a count`);
}

const rand = seededRandom(42);
const word = zipfVocabulary(rand, 30000);
const data = tempDir("perf");
const results = { benchmark: "server-perf (hms-mcp tools over stdio)", memories: MEMORIES };
try {
  if (ENGINES) {
    results.engines = await engines();
  } else {
    results.recall_curve = await recallCurve();
  }
  if (!CURVE_ONLY && !ENGINES) {
    // Cold start: spawn to first tool result, on an existing small store; median of 20.
    {
      const first = await spawnServer(data.dir, ["--namespace", "cold"]);
      await call(first.client, "remember", { key: "k", text: "warm the file" });
      await first.close();
      const runs = [];
      for (let i = 0; i < 20; i++) {
        const start = performance.now();
        const server = await spawnServer(data.dir, ["--namespace", "cold"]);
        await call(server.client, "get", { key: "k" });
        runs.push(performance.now() - start);
        await server.close();
      }
      results.cold_start_ms = {
        median: round(quantile(runs, 0.5), 1),
        p90: round(quantile(runs, 0.9), 1),
      };
    }

    // Writes, gets and lists through the tools on a fresh store.
    {
      const server = await spawnServer(data.dir, ["--namespace", "writes"]);
      const texts = Array.from({ length: 1000 }, () => syntheticText(rand, word));
      const sequential = [];
      const started = performance.now();
      for (let i = 0; i < texts.length; i++) {
        sequential.push(
          (
            await time(() =>
              call(server.client, "remember", { key: `/memories/seq/${i}.md`, text: texts[i] }),
            )
          ).ms,
        );
      }
      const seqSeconds = (performance.now() - started) / 1000;
      const parallel = await time(() =>
        pool(
          texts.map((text, i) => ({ text, i })),
          16,
          ({ text, i }) => call(server.client, "remember", { key: `/memories/par/${i}.md`, text }),
        ),
      );
      const gets = [];
      for (let i = 0; i < 1000; i++) {
        gets.push(
          (
            await time(() =>
              call(server.client, "get", { key: `/memories/seq/${(i * 7) % 1000}.md` }),
            )
          ).ms,
        );
      }
      const lists = [];
      for (let i = 0; i < 200; i++) {
        lists.push(
          (await time(() => call(server.client, "list", { prefix: "/memories/seq/", limit: 100 })))
            .ms,
        );
      }
      const get = summarize(gets);
      const write = summarize(sequential);
      results.write = {
        sequential: { writes_per_s: round(texts.length / seqSeconds, 0), ...write },
        concurrent_16: { writes_per_s: round(texts.length / (parallel.ms / 1000), 0) },
        write_vs_get_p50: round(write.p50_ms / get.p50_ms, 1),
      };
      results.get_latency = get;
      results.list_100_latency = {
        ...summarize(lists),
        vs_get_p50: round(quantile(lists, 0.5) / get.p50_ms, 1),
      };
      await server.close();
    }

    // Recall at MEMORIES synthetic memories, loaded in bulk with the store library, then
    // queried through the recall tool of a freshly spawned server.
    {
      const file = join(data.dir, "namespaces", storeFileName("large"));
      const store = MemoryStore.open(file, { namespace: "large" });
      const load = performance.now();
      for (let start = 0; start < MEMORIES; start += 5000) {
        const batch = [];
        for (let i = start; i < Math.min(MEMORIES, start + 5000); i++) {
          batch.push({
            key: `/memories/notes/${i}.md`,
            text: syntheticText(rand, word),
            tags: ["memory-file"],
          });
        }
        store.rememberMany(batch);
      }
      results.bulk_load_seconds = round((performance.now() - load) / 1000, 1);
      store.close();

      const server = await spawnServer(data.dir, ["--namespace", "large"]);
      const queries = Array.from({ length: QUERIES }, () =>
        Array.from({ length: 2 + Math.floor(rand() * 5) }, word).join(" "),
      );
      const { recall, hits, tagged, get } = await recallAtSize(server.client, queries);
      results.recall_large = {
        memories: MEMORIES,
        avg_hits: round(hits / queries.length, 1),
        ...recall,
        tag_filtered: tagged,
        get_at_same_size: get,
        recall_vs_get_p50: round(recall.p50_ms / get.p50_ms, 1),
      };
      results.server_memory_after_recall = rssMiB(server.pid);
      await server.close();

      if (!LEXICAL_ONLY) {
        results.hybrid_large = await hybridLarge(file, queries, recall);
      }
    }
  }
  console.log(JSON.stringify(results, null, 2));
} finally {
  data.remove();
}

/** SQLite and PostgreSQL at each of SIZES (engines.mjs), on the database given or a new one. */
async function engines() {
  const database = await benchDatabase(DATABASE_URL);
  try {
    const engineRand = seededRandom(99);
    const engineWord = zipfVocabulary(engineRand, 30000);
    const queries = Array.from({ length: QUERIES }, () =>
      Array.from({ length: 2 + Math.floor(engineRand() * 5) }, engineWord).join(" "),
    );
    const table = await engineTable({
      sizes: SIZES,
      queries,
      memoryText: () => syntheticText(engineRand, engineWord),
      dataDir: data.dir,
      databaseUrl: database.url,
      compareBin: COMPARE,
    });
    for (const line of formatEngineTable(table.rows)) process.stderr.write(`${line}\n`);
    return {
      database: checkDatabaseUrl(database.url),
      postgres_fsync: database.fsync,
      sqlite_synchronous: "full (the store's default)",
      ...table,
    };
  } finally {
    database.remove();
  }
}

/**
 * Lexical recall p50/p99 at each of SIZES memories: one store grown from size to size (its
 * own random stream, so the memories and queries do not depend on the other sections), each
 * size queried by this build and, with --compare, by the other build, on the same file.
 */
async function recallCurve() {
  const curveRand = seededRandom(1234);
  const curveWord = zipfVocabulary(curveRand, 30000);
  const queries = Array.from({ length: QUERIES }, () =>
    Array.from({ length: 2 + Math.floor(curveRand() * 5) }, curveWord).join(" "),
  );
  // Each build reads a store its own @hms/store wrote, holding the same memories.
  const copies = [{ dir: data.dir, Store: MemoryStore }];
  if (COMPARE_STORE !== undefined) {
    const other = await import(pathToFileURL(COMPARE_STORE).href);
    copies.push({ dir: join(data.dir, "compare"), Store: other.MemoryStore });
  }
  for (const copy of copies) mkdirSync(join(copy.dir, "namespaces"), { recursive: true });
  const curve = [];
  let loaded = 0;
  for (const size of [...SIZES].sort((a, b) => a - b)) {
    const stores = copies.map(({ dir, Store }) =>
      Store.open(join(dir, "namespaces", storeFileName("curve")), { namespace: "curve" }),
    );
    while (loaded < size) {
      const batch = [];
      for (let i = loaded; i < Math.min(size, loaded + 5000); i++) {
        batch.push({ key: `/memories/notes/${i}.md`, text: syntheticText(curveRand, curveWord) });
      }
      for (const store of stores) store.rememberMany(batch);
      loaded += batch.length;
    }
    for (const store of stores) store.close();
    const point = { memories: size, this_build: await curveLatency(BIN, data.dir, queries) };
    if (COMPARE !== undefined) {
      point.compare_build = await curveLatency(COMPARE, copies[1].dir, queries);
      point.compare_over_this_p50 = round(point.compare_build.p50_ms / point.this_build.p50_ms, 2);
      point.compare_over_this_p99 = round(point.compare_build.p99_ms / point.this_build.p99_ms, 2);
    }
    process.stderr.write(`server-perf: curve ${JSON.stringify(point)}\n`);
    curve.push(point);
  }
  return { builds: { this_build: BIN, compare_build: COMPARE ?? null }, points: curve };
}

/** Recall (k = 10) latency of every query through a fresh server of build `bin`. */
async function curveLatency(bin, dataDir, queries) {
  const server = await spawnServer(dataDir, ["--namespace", "curve"], bin);
  try {
    for (const query of queries.slice(0, 20)) await call(server.client, "recall", { query });
    const ms = [];
    let hits = 0;
    for (const query of queries) {
      const { ms: took, value } = await time(() => call(server.client, "recall", { query, k: 10 }));
      ms.push(took);
      hits += value.hits.length;
    }
    return { ...summarize(ms), avg_hits: round(hits / queries.length, 1) };
  } finally {
    await server.close();
  }
}

/**
 * Latency on the large store, the same for both builds: recall of every query (k = 10, after
 * 20 warm-up queries; with the hits found), recall filtered by tag (the first 100), and `get`
 * of 300 memories as the baseline at the same size.
 */
async function recallAtSize(client, queries) {
  for (const query of queries.slice(0, 20)) await call(client, "recall", { query }); // warm-up
  const recalls = [];
  let hits = 0;
  for (const query of queries) {
    const { ms, value } = await time(() => call(client, "recall", { query, k: 10 }));
    recalls.push(ms);
    hits += value.hits.length;
  }
  const tagged = [];
  for (const query of queries.slice(0, 100)) {
    tagged.push(
      (await time(() => call(client, "recall", { query, k: 10, tag: "memory-file" }))).ms,
    );
  }
  const gets = [];
  for (let i = 0; i < 300; i++) {
    const key = `/memories/notes/${(i * 331) % MEMORIES}.md`;
    gets.push((await time(() => call(client, "get", { key }))).ms);
  }
  return { recall: summarize(recalls), hits, tagged: summarize(tagged), get: summarize(gets) };
}

/**
 * The hybrid build on the large store: random vectors for all but the newest EMBEDDED
 * memories, a server that embeds those (timed), then the lexical run's queries again.
 */
async function hybridLarge(file, queries, lexicalRecall) {
  // The store takes the model the server will load (ids differ between models).
  const manifest = (await identifyModel(MODEL_DIR)) ?? DEFAULT_MODEL;
  const model = { id: manifest.id, dimensions: 384 };
  const store = MemoryStore.open(file, { namespace: "large", embeddings: { model } });
  const synthetic = performance.now();
  const vectorRand = seededRandom(7);
  for (;;) {
    // Newest first: skip the EMBEDDED newest, which the server embeds itself.
    const batch = store.embeddings.pending(EMBEDDED + 2000).slice(EMBEDDED);
    if (batch.length === 0) break;
    store.embeddings.save(
      batch.map((memory) => {
        const vector = new Float32Array(384);
        let norm = 0;
        for (let d = 0; d < 384; d++) {
          vector[d] = vectorRand() - 0.5;
          norm += vector[d] * vector[d];
        }
        for (let d = 0; d < 384; d++) vector[d] /= Math.sqrt(norm);
        const lines = memory.text.split("\n").length;
        return { ...memory, spans: [{ lineStart: 1, lineEnd: lines }], vectors: vector };
      }),
    );
  }
  const pending = store.stats().recall.pending;
  store.close();
  const out = { synthetic_vectors_seconds: round((performance.now() - synthetic) / 1000, 1) };

  const start = performance.now();
  const server = await spawnServer(data.dir, [
    "--namespace",
    "large",
    "--model-dir",
    MODEL_DIR,
    "--log-level",
    "info",
  ]);
  await call(server.client, "stats", {});
  out.start_ms = round(performance.now() - start, 0);
  out.start_vs_lexical_cold_start = round(out.start_ms / results.cold_start_ms.median, 1);
  const during = [];
  const backfill = performance.now();
  for (;;) {
    during.push(
      (await time(() => call(server.client, "get", { key: `/memories/notes/${during.length}.md` })))
        .ms,
    );
    await new Promise((done) => setTimeout(done, 50));
    if (during.length % 20 === 0 && (await call(server.client, "stats", {})).recall.pending === 0) {
      break;
    }
  }
  const seconds = (performance.now() - backfill) / 1000;
  out.indexing = {
    memories: pending,
    text: "3 to 10 lines of 5 to 14 made-up words (Zipf-distributed), about 250 tokens",
    seconds: round(seconds, 1),
    memories_per_s: round(pending / seconds, 1),
    get_latency_during: summarize(during),
  };

  const { recall, tagged, get } = await recallAtSize(server.client, queries);
  out.recall = {
    memories: MEMORIES,
    ...recall,
    tag_filtered: tagged,
    vs_lexical_p50: round(recall.p50_ms / lexicalRecall.p50_ms, 2),
    vs_lexical_p99: round(recall.p99_ms / lexicalRecall.p99_ms, 2),
  };
  out.get_latency = get;
  out.get_during_backfill_vs_idle_p50 = round(
    out.indexing.get_latency_during.p50_ms / out.get_latency.p50_ms,
    2,
  );
  out.server_memory = rssMiB(server.pid);
  await server.close();
  return out;
}
