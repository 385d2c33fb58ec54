// How hybrid recall's fusion parameters were chosen: a grid over them on SciFact's TRAIN split
// only (809 queries; the test split is never read here), ranking with @hms/store's own
// HybridRanker over the vectors the server computed. The store comes from
//
//   pnpm bench recall-quality --data-dir DIR     (loads SciFact and embeds it through hms-mcp)
//   pnpm bench tune-fusion --data-dir DIR        (this grid; queries embedded in-process)
//
// Prints nDCG@10 for each lexical weight × BM25 depth (dense depth 100), then the effect of the
// dense depth at the chosen values, and the chosen values themselves (DEFAULT_FUSION).
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { defaultModelDir, loadEmbedder } from "@hms/embedder";
import { DEFAULT_FUSION, MemoryStore, storeFileName } from "@hms/store";
import { HybridRanker, VectorIndex } from "@hms/store/internal";
import { ndcgAt10, option, readJsonl, readQrels, round, scifactDir } from "./support.mjs";

const dataDir = scifactDir();
const modelDir = option("model-dir", "HMS_MCP_MODEL_DIR", defaultModelDir());
const kept = option("data-dir", "HMS_BENCH_DATA_DIR", undefined);
if (kept === undefined) {
  console.error(
    "tune-fusion needs --data-dir DIR holding SciFact embedded by hms-mcp: run `pnpm bench recall-quality --data-dir DIR` first",
  );
  process.exit(2);
}
const file = join(resolve(kept), "namespaces", storeFileName("scifact"));
if (!existsSync(file)) {
  console.error(
    `no SciFact store in ${kept}: run \`pnpm bench recall-quality --data-dir ${kept}\` first`,
  );
  process.exit(2);
}

const qrels = readQrels(dataDir, "train");
const queries = readJsonl(join(dataDir, "queries.jsonl")).filter((query) => qrels.has(query._id));

const embedder = await loadEmbedder(modelDir);
const model = { id: embedder.modelId, dimensions: embedder.dimensions };
let db;
const store = MemoryStore.open(file, {
  namespace: "scifact",
  embeddings: { model },
  ranker: (handle) => {
    db = handle;
    return new HybridRanker(handle, model.id, new VectorIndex(handle, model.dimensions));
  },
});
try {
  const pending = store.stats().recall.pending;
  if (pending > 0) {
    throw new Error(
      `${pending} memories of ${kept} have no vectors yet; let recall-quality finish`,
    );
  }
  const index = new VectorIndex(db, model.dimensions);
  index.sync();
  const keyOf = db.prepare("SELECT key FROM memories WHERE id = ?").pluck();
  const vectors = await embedder.embed(queries.map((query) => query.text));

  const evaluate = (params) => {
    const ranker = new HybridRanker(db, model.id, index, params);
    let total = 0;
    queries.forEach((query, i) => {
      const ranked = ranker.rank(query.text, {}, 10, { vector: vectors[i] });
      const ids = ranked.map((hit) => keyOf.get(hit.id).slice("scifact/".length));
      total += ndcgAt10(ids, qrels.get(query._id));
    });
    return round(total / queries.length, 4);
  };

  const weights = [0, 0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 1];
  const depths = [20, 100, 200, 1000];
  const grid = {};
  let best = { ndcg: -1 };
  for (const lexicalDepth of depths) {
    grid[`bm25_depth_${lexicalDepth}`] = Object.fromEntries(
      weights.map((lexicalWeight) => {
        const ndcg = evaluate({ lexicalWeight, lexicalDepth, denseDepth: 100 });
        if (ndcg > best.ndcg) best = { ndcg, lexicalWeight, lexicalDepth };
        return [lexicalWeight, ndcg];
      }),
    );
  }
  const denseDepths = Object.fromEntries(
    [20, 100, 200].map((denseDepth) => [denseDepth, evaluate({ ...DEFAULT_FUSION, denseDepth })]),
  );
  console.log(
    JSON.stringify(
      {
        benchmark: "tune-fusion (SciFact train split, HybridRanker in-process)",
        queries: queries.length,
        note: "lexical weight 0 is dense only; 1 is BM25 only (over the same candidates)",
        ndcg_at_10_by_lexical_weight: grid,
        ndcg_at_10_by_dense_depth_at_default: denseDepths,
        best_on_grid: best,
        default_fusion: { ...DEFAULT_FUSION, ndcg_at_10: evaluate(DEFAULT_FUSION) },
      },
      null,
      2,
    ),
  );
} finally {
  store.close();
  await embedder.close();
}
