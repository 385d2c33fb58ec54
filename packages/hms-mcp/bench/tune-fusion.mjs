// How hybrid fusion's parameters were chosen: a grid over them on SciFact's TRAIN split only
// (809 queries; the test split is never read here) and, with --distractors-dir, on the
// distractor set, ranking with @hms/store's own `fuse` over the vectors the server computed.
// The stores come from
//
//   pnpm bench recall-quality --data-dir DIR     (loads SciFact and embeds it through hms-mcp)
//   pnpm bench distractors --data-dir DDIR       (the distractor set, embedded through hms-mcp)
//   pnpm bench tune-fusion --data-dir DIR [--distractors-dir DDIR]
//
// Each query's candidates (the 1,000 best by BM25, the 100 nearest by cosine) are gathered
// once; each grid point fuses them. Prints, for every lexical weight × cosine floor × cosine
// ceiling: SciFact train nDCG@10 and, with --distractors-dir, hit@1, MRR@10, the median score
// of the note found and the top score of the off-topic queries; then the effect of the depths
// at the chosen values, and the chosen values themselves (DEFAULT_FUSION).
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { defaultModelDir, loadEmbedder } from "@hms/embedder";
import { DEFAULT_FUSION, MemoryStore, storeFileName } from "@hms/store";
import { fuse, HybridRanker, LexicalRanker, VectorIndex } from "@hms/store/internal";
import { NONSENSE, QUERIES } from "./distractor-set.mjs";
import {
  checkArguments,
  ndcgAt10,
  option,
  quantile,
  readJsonl,
  readQrels,
  round,
  scifactDir,
} from "./support.mjs";

// Before any work: a misspelt option would otherwise be ignored.
checkArguments("tune-fusion", ["data", "data-dir", "distractors-dir", "model-dir"], []);

const dataDir = scifactDir();
const modelDir = option("model-dir", "HMS_MCP_MODEL_DIR", defaultModelDir());
const kept = option("data-dir", "HMS_BENCH_DATA_DIR", undefined);
const distractorsDir = option("distractors-dir", "HMS_BENCH_DISTRACTORS_DIR", undefined);
if (kept === undefined) {
  console.error(
    "tune-fusion needs --data-dir DIR holding SciFact embedded by hms-mcp: run `pnpm bench recall-quality --data-dir DIR` first",
  );
  process.exit(2);
}
for (const [dir, namespace, bench] of [
  [kept, "scifact", "recall-quality"],
  [distractorsDir, "distractors", "distractors"],
]) {
  if (
    dir !== undefined &&
    !existsSync(join(resolve(dir), "namespaces", storeFileName(namespace)))
  ) {
    console.error(`no ${namespace} store in ${dir}: run \`pnpm bench ${bench} --data-dir ${dir}\``);
    process.exit(2);
  }
}

const embedder = await loadEmbedder(modelDir);
const model = { id: embedder.modelId, dimensions: embedder.dimensions };
const opened = [];

/** A store embedded by hms-mcp, with its ranking parts on the same connection. */
function openStore(dir, namespace) {
  let db;
  const store = MemoryStore.open(join(resolve(dir), "namespaces", storeFileName(namespace)), {
    namespace,
    embeddings: { model },
    ranker: (handle) => {
      db = handle;
      return new HybridRanker(handle, model.id, new VectorIndex(handle, model.dimensions));
    },
  });
  opened.push(store);
  const pending = store.stats().recall.pending;
  if (pending > 0) throw new Error(`${pending} memories of ${dir} have no vectors yet`);
  const index = new VectorIndex(db, model.dimensions);
  index.sync();
  const keyOfRow = db.prepare("SELECT key FROM memories WHERE id = ?");
  const keyOf = { get: (id) => keyOfRow.get(id)?.key };
  return { db, index, keyOf, lexical: new LexicalRanker(db, Number.POSITIVE_INFINITY) };
}

/** Each query's fusion candidates, as HybridRanker gathers them. */
async function candidatesOf(store, texts, lexicalDepth, denseDepth) {
  const vectors = await embedder.embed(texts);
  return texts.map((text, i) => {
    const { hits, ceiling } = store.lexical.scored(text, {}, lexicalDepth);
    const scan = store.index.scan(vectors[i]);
    const byId = new Map();
    for (const hit of hits) byId.set(hit.id, { id: hit.id, lexical: hit.bm25 / ceiling });
    for (const hit of scan.best(denseDepth)) {
      byId.set(hit.id, { id: hit.id, lexical: byId.get(hit.id)?.lexical, dense: hit });
    }
    return [...byId.values()].map((c) => ({ ...c, dense: c.dense ?? scan.score(c.id) }));
  });
}

const scifact = openStore(kept, "scifact");
const qrels = readQrels(dataDir, "train");
const trainQueries = readJsonl(join(dataDir, "queries.jsonl")).filter((q) => qrels.has(q._id));
const texts = trainQueries.map((query) => query.text);
const distractors =
  distractorsDir === undefined ? undefined : openStore(distractorsDir, "distractors");

/** nDCG@10 on SciFact train, and the distractor set's figures, for one parameter set. */
async function evaluate(params, candidates) {
  let total = 0;
  candidates.scifact.forEach((c, i) => {
    const ids = fuse(c, params)
      .slice(0, 10)
      .map((hit) => scifact.keyOf.get(hit.id).slice("scifact/".length));
    total += ndcgAt10(ids, qrels.get(trainQueries[i]._id));
  });
  const out = { scifact_train_ndcg_at_10: round(total / trainQueries.length, 4) };
  if (distractors === undefined) return out;
  let hit1 = 0;
  let rr = 0;
  const found = [];
  candidates.paraphrase.forEach((c, i) => {
    const ranked = fuse(c, params).slice(0, 10);
    const rank = ranked.findIndex((hit) => distractors.keyOf.get(hit.id) === QUERIES[i][1]);
    if (rank === 0) hit1++;
    if (rank >= 0) {
      rr += 1 / (rank + 1);
      found.push(ranked[rank].score);
    }
  });
  const noise = candidates.nonsense.map((c) => fuse(c, params)[0]?.score ?? 0);
  return {
    ...out,
    distractors_hit_at_1: round(hit1 / QUERIES.length),
    distractors_mrr_at_10: round(rr / QUERIES.length),
    found_note_median_score: round(quantile(found, 0.5)),
    nonsense_top_score_max: round(Math.max(...noise)),
  };
}

async function gather(lexicalDepth, denseDepth) {
  return {
    scifact: await candidatesOf(scifact, texts, lexicalDepth, denseDepth),
    paraphrase:
      distractors &&
      (await candidatesOf(
        distractors,
        QUERIES.map((q) => q[0]),
        lexicalDepth,
        denseDepth,
      )),
    nonsense: distractors && (await candidatesOf(distractors, NONSENSE, lexicalDepth, denseDepth)),
  };
}

try {
  const base = await gather(DEFAULT_FUSION.lexicalDepth, DEFAULT_FUSION.denseDepth);
  const grid = [];
  for (const lexicalWeight of [0.3, 0.4, 0.5, 0.6, 0.7]) {
    for (const cosineFloor of [0, 0.1, 0.2, 0.3]) {
      for (const cosineCeiling of [0.6, 0.8, 1]) {
        const params = { ...DEFAULT_FUSION, lexicalWeight, cosineFloor, cosineCeiling };
        grid.push({ lexicalWeight, cosineFloor, cosineCeiling, ...(await evaluate(params, base)) });
      }
    }
  }
  grid.sort((a, b) => b.scifact_train_ndcg_at_10 - a.scifact_train_ndcg_at_10);
  const depths = {};
  for (const [lexicalDepth, denseDepth] of [
    [100, 100],
    [1000, 20],
    [1000, 200],
  ]) {
    const params = { ...DEFAULT_FUSION, lexicalDepth, denseDepth };
    depths[`bm25_${lexicalDepth}_dense_${denseDepth}`] = await evaluate(
      params,
      await gather(lexicalDepth, denseDepth),
    );
  }
  console.log(
    JSON.stringify(
      {
        benchmark: "tune-fusion (SciFact train split, and the distractor set; fuse in-process)",
        queries: trainQueries.length,
        grid_best_scifact_first: grid,
        depths_at_default: depths,
        default_fusion: { ...DEFAULT_FUSION, ...(await evaluate(DEFAULT_FUSION, base)) },
      },
      null,
      2,
    ),
  );
} finally {
  for (const store of opened) store.close();
  await embedder.close();
}
