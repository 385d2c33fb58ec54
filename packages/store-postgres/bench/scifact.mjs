#!/usr/bin/env node
// Recall quality and cost on BEIR SciFact, PostgreSQL beside SQLite in the same run: each
// abstract is one memory (title, a newline, the abstract) in a PgStore and in a SQLite
// MemoryStore; each claim is a recall query with k = 10; nDCG@10 as trec_eval defines it
// (binary gains, log2 discount, ideal ranking from the judged relevant documents), averaged
// over every query of the split, and recall latency (p50/p99) per engine. The data is read in
// place (--data or HMS_SCIFACT_DIR, else shared/data/scifact above the repository).
//
//   pnpm --filter @hms/store-postgres bench:scifact [--split test|train|both]
//                                                   [--database-url postgres://...] [--data DIR]
//
// Without --database-url, a temporary PostgreSQL cluster (@hms/test-support) serves the run.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MemoryStore } from "@hms/store";
import { ndcgAt10, readJsonl, readQrels, startPostgres } from "@hms/test-support";
import { PgEngine } from "../dist/index.js";

const { values } = parseArgs({
  options: {
    split: { type: "string", default: "both" },
    "database-url": { type: "string" },
    data: { type: "string" },
  },
});
const splits = values.split === "both" ? ["test", "train"] : [values.split];
for (const split of splits) {
  if (split !== "test" && split !== "train") throw new Error("--split is test, train or both");
}
const log = (line) => process.stderr.write(`scifact: ${line}\n`);

function dataDir() {
  const given = values.data ?? process.env.HMS_SCIFACT_DIR;
  if (given !== undefined) return given;
  for (let dir = resolve(dirname(fileURLToPath(import.meta.url)), "../../.."); ; ) {
    const candidate = join(dir, "shared", "data", "scifact");
    if (existsSync(join(candidate, "corpus.jsonl"))) return candidate;
    if (dirname(dir) === dir) {
      throw new Error("no SciFact data: pass --data DIR or set HMS_SCIFACT_DIR");
    }
    dir = dirname(dir);
  }
}

const round = (value, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;
function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const dir = dataDir();
const corpus = readJsonl(join(dir, "corpus.jsonl"));
const queries = readJsonl(join(dir, "queries.jsonl"));
const records = corpus.map((doc) => ({
  key: `scifact/${doc._id}`,
  text: `${doc.title}\n${doc.text}`,
  tags: ["scifact"],
}));

/** Loads the corpus in batches of 500 (one transaction each). */
async function loadInto(store) {
  const started = performance.now();
  for (let i = 0; i < records.length; i += 500) {
    await store.rememberMany(records.slice(i, i + 500));
  }
  return round((performance.now() - started) / 1000, 2);
}

async function evaluate(store) {
  const out = {};
  for (const split of splits) {
    const qrels = readQrels(dir, split);
    const judged = queries.filter((query) => qrels.has(query._id));
    let total = 0;
    const ms = [];
    for (const query of judged) {
      const started = performance.now();
      const { hits } = await store.recall(query.text, { k: 10 });
      ms.push(performance.now() - started);
      total += ndcgAt10(
        hits.map((hit) => hit.key.slice("scifact/".length)),
        qrels.get(query._id),
      );
    }
    out[split] = {
      queries: judged.length,
      ndcg_at_10: round(total / judged.length, 4),
      recall_p50_ms: round(quantile(ms, 0.5)),
      recall_p99_ms: round(quantile(ms, 0.99)),
    };
  }
  return out;
}

const server = values["database-url"] === undefined ? await startPostgres() : undefined;
const url = values["database-url"] ?? server.createDatabase("scifact");
const temp = mkdtempSync(join(tmpdir(), "hms-scifact-"));
const results = { benchmark: "scifact, PostgreSQL beside SQLite", documents: corpus.length };
try {
  const sqlite = MemoryStore.open(join(temp, "scifact.sqlite"), { synchronous: "normal" });
  log(`loading ${records.length} abstracts into SQLite`);
  const sqliteLoad = await loadInto(sqlite);
  log("SQLite: running the queries");
  results.sqlite = { load_seconds: sqliteLoad, ...(await evaluate(sqlite)) };
  sqlite.close();

  const engine = await PgEngine.open({ url });
  try {
    const pg = await engine.get("scifact");
    if ((await pg.stats()).memories === 0) {
      log(`loading ${records.length} abstracts into PostgreSQL`);
      results.postgres = { load_seconds: await loadInto(pg) };
    }
    log("PostgreSQL: running the queries");
    results.postgres = { ...results.postgres, ...(await evaluate(pg)) };
  } finally {
    await engine.close();
  }
  for (const split of splits) {
    results[`ndcg_at_10_${split}_postgres_over_sqlite`] = round(
      results.postgres[split].ndcg_at_10 / results.sqlite[split].ndcg_at_10,
      4,
    );
  }
  console.log(JSON.stringify(results, null, 2));
} finally {
  rmSync(temp, { recursive: true, force: true });
  server?.remove();
}
