// Recall quality and latency on BEIR SciFact, through the real `recall` tool of a spawned
// hms-mcp. Each abstract is stored as one memory (title, a newline, the abstract); each
// claim is a recall query with k = 10; nDCG@10 as trec_eval defines it (binary gains from the
// qrels, log2 discount, ideal ranking from the judged relevant documents, averaged over every
// query of the split). The data is read in place (--data or HMS_SCIFACT_DIR), never copied.
//
//   pnpm bench recall-quality [--split test|train] [--data /path/to/scifact]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  call,
  option,
  pool,
  round,
  rssMiB,
  spawnServer,
  summarize,
  tempDir,
  time,
} from "./support.mjs";

const dataDir = option("data", "HMS_SCIFACT_DIR", "/work/shared/data/scifact");
const split = option("split", "HMS_SCIFACT_SPLIT", "test");

const readJsonl = (file) =>
  readFileSync(join(dataDir, file), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));

const corpus = readJsonl("corpus.jsonl");
const qrels = new Map();
for (const line of readFileSync(join(dataDir, "qrels", `${split}.tsv`), "utf8")
  .split("\n")
  .slice(1)) {
  const [query, doc, score] = line.trim().split("\t");
  if (!query || Number(score) <= 0) continue;
  if (!qrels.has(query)) qrels.set(query, new Set());
  qrels.get(query).add(doc);
}
const queries = readJsonl("queries.jsonl").filter((query) => qrels.has(query._id));

const store = tempDir("scifact");
const server = await spawnServer(store.dir, ["--namespace", "scifact"]);
try {
  const key = (id) => `scifact/${id}`;
  const writes = [];
  const load = await time(() =>
    pool(corpus, 8, async (doc) => {
      const { ms } = await time(() =>
        call(server.client, "remember", {
          key: key(doc._id),
          text: `${doc.title}\n${doc.text}`,
          tags: ["scifact"],
        }),
      );
      writes.push(ms);
    }),
  );

  let total = 0;
  const recallMs = [];
  for (const query of queries) {
    const { ms, value } = await time(() =>
      call(server.client, "recall", { query: query.text, k: 10 }),
    );
    recallMs.push(ms);
    const relevant = qrels.get(query._id);
    let dcg = 0;
    value.hits.forEach((hit, rank) => {
      if (relevant.has(hit.key.slice("scifact/".length))) dcg += 1 / Math.log2(rank + 2);
    });
    let ideal = 0;
    for (let rank = 0; rank < Math.min(relevant.size, 10); rank++) ideal += 1 / Math.log2(rank + 2);
    total += dcg / ideal;
  }

  // Baseline in the same run: a plain `get` of a stored memory, same client, same process.
  const getMs = [];
  for (let i = 0; i < queries.length; i++) {
    const doc = corpus[(i * 17) % corpus.length];
    getMs.push((await time(() => call(server.client, "get", { key: key(doc._id) }))).ms);
  }
  const recall = summarize(recallMs);
  const get = summarize(getMs);
  const stats = await call(server.client, "stats", {});
  console.log(
    JSON.stringify(
      {
        benchmark: "recall-quality (SciFact via the recall tool over stdio)",
        split,
        queries: queries.length,
        documents: corpus.length,
        ndcg_at_10: round(total / queries.length, 4),
        recall_build: stats.recall.build,
        load: {
          memories: corpus.length,
          seconds: round(load.ms / 1000, 2),
          writes_per_s: round(corpus.length / (load.ms / 1000), 0),
          concurrency: 8,
          ...summarize(writes),
        },
        recall_latency: recall,
        get_latency: get,
        recall_vs_get_p50: round(recall.p50_ms / get.p50_ms, 2),
        server_memory: rssMiB(server.pid),
      },
      null,
      2,
    ),
  );
} finally {
  await server.close();
  store.remove();
}
