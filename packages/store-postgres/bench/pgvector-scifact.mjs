#!/usr/bin/env node
// How much pgvector's HNSW index ranks SciFact differently from the exact scan, on real
// embeddings: the passage vectors of a SQLite store that `pnpm bench recall-quality
// --data-dir DIR` embedded (all-MiniLM-L6-v2), loaded into PGlite (PostgreSQL in WebAssembly,
// with pgvector; Debian 12 does not package pgvector for the machine's server) with this
// package's schema, and the test claims embedded by the same model. For each claim, the dense
// candidates (the 100 nearest memories, as hybrid recall asks for) come from both searches:
// how many of the exact 100 (and 10) the index finds, and the dense-only nDCG@10 of each.
// Latencies are PGlite's (WebAssembly, one connection): compare them with each other only.
//
//   pnpm --filter @hms/store-postgres bench:pgvector-scifact --store DIR/namespaces/FILE
//                                                            [--data DIR] [--model-dir DIR]
import { join } from "node:path";
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { vector } from "@electric-sql/pglite-pgvector";
import { defaultModelDir, loadEmbedder } from "@hms/embedder";
import { openSqlite } from "@hms/store/internal";
import { ndcgAt10, quantile, readJsonl, readQrels } from "@hms/test-support";
import { DenseSearch, enablePgvector, MIGRATIONS, PgvectorSearch } from "../dist/index.js";

const { values } = parseArgs({
  options: {
    store: { type: "string" },
    data: { type: "string", default: process.env.HMS_SCIFACT_DIR ?? "/work/shared/data/scifact" },
    "model-dir": { type: "string" },
    depth: { type: "string", default: "100" },
  },
});
if (values.store === undefined) {
  throw new Error("--store FILE: a SciFact store embedded by `pnpm bench recall-quality`");
}
const DEPTH = Number(values.depth);
if (!Number.isInteger(DEPTH) || DEPTH < 10) throw new Error("--depth is an integer of 10 or more");
const log = (line) => process.stderr.write(`pgvector-scifact: ${line}\n`);
const round = (value, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

// --- the embedded store --------------------------------------------------------------------
const sqlite = openSqlite(values.store, { readOnly: true });
const info = Object.fromEntries(
  sqlite
    .prepare("SELECT name, value FROM store_info")
    .all()
    .map((row) => [row.name, row.value]),
);
const dims = Number(info.embedding_dimensions);
const stored = sqlite
  .prepare(
    "SELECT m.key, v.spans, v.vectors FROM memory_vectors v JOIN memories m ON m.id = v.memory_id",
  )
  .all();
sqlite.close();
if (stored.length === 0) throw new Error(`${values.store} holds no vectors`);
log(`${stored.length} memories' vectors of ${info.embedding_model} (${dims} dimensions)`);

// --- PGlite with the schema, the memories and their vectors ----------------------------------
const pglite = await PGlite.create({ extensions: { vector, btree_gin, unaccent } });
for (const migration of MIGRATIONS) await pglite.exec(migration.sql);
const ns = Number(
  (await pglite.query("INSERT INTO hms_namespaces (name) VALUES ('scifact') RETURNING id")).rows[0]
    .id,
);
await pglite.query("INSERT INTO hms_embedding_models (ns, model, dimensions) VALUES ($1, $2, $3)", [
  ns,
  info.embedding_model,
  dims,
]);
const keyOf = new Map();
for (const row of stored) {
  const { rows } = await pglite.query(
    `INSERT INTO hms_memories (ns, key, text, version, hash, bytes, created_at, updated_at)
     VALUES ($1, $2, '', 1, 'h', 0, 'now', 'now') RETURNING id`,
    [ns, row.key],
  );
  const id = Number(rows[0].id);
  keyOf.set(id, row.key);
  const starts = [];
  const ends = [];
  // node:sqlite reads a blob as a Uint8Array.
  const spans = Buffer.from(row.spans.buffer, row.spans.byteOffset, row.spans.byteLength);
  for (let at = 0; at < spans.length; at += 8) {
    starts.push(spans.readUInt32LE(at));
    ends.push(spans.readUInt32LE(at + 4));
  }
  await pglite.query(
    `INSERT INTO hms_memory_vectors (memory_id, ns, hash, line_start, line_end, vectors)
     VALUES ($1, $2, 'h', $3::integer[], $4::integer[], $5)`,
    [id, ns, starts, ends, new Uint8Array(row.vectors)],
  );
}
const db = { query: async (text, params) => ({ rows: (await pglite.query(text, params)).rows }) };
let started = performance.now();
await enablePgvector(db, dims);
const indexSeconds = round((performance.now() - started) / 1000, 1);
const passages = Number(
  (await pglite.query("SELECT count(*) AS n FROM hms_passage_vectors")).rows[0].n,
);
log(`pgvector: ${passages} passages indexed (HNSW) in ${indexSeconds} s`);

// --- the test claims, embedded by the same model --------------------------------------------
const qrels = readQrels(values.data, "test");
const queries = readJsonl(join(values.data, "queries.jsonl")).filter((query) =>
  qrels.has(query._id),
);
const embedder = await loadEmbedder(values["model-dir"] ?? defaultModelDir());
if (embedder.dimensions !== undefined && embedder.dimensions !== dims) {
  throw new Error(`the model has ${embedder.dimensions} dimensions, the store ${dims}`);
}

const exact = new DenseSearch();
const hnsw = new PgvectorSearch(dims);
const totals = { exact: 0, hnsw: 0, found10: 0, found100: 0 };
const ms = { exact: [], hnsw: [] };
let sameTop10 = 0;
for (const query of queries) {
  const [vectorOfQuery] = await embedder.embed([query.text]);
  started = performance.now();
  const reference = await exact.nearest(db, ns, vectorOfQuery, DEPTH, undefined);
  ms.exact.push(performance.now() - started);
  started = performance.now();
  const approximate = await hnsw.nearest(db, ns, vectorOfQuery, DEPTH, undefined, []);
  ms.hnsw.push(performance.now() - started);
  const docs = (hits) => hits.map((hit) => keyOf.get(hit.id).slice("scifact/".length));
  totals.exact += ndcgAt10(docs(reference.nearest), qrels.get(query._id));
  totals.hnsw += ndcgAt10(docs(approximate.nearest), qrels.get(query._id));
  const want100 = new Set(reference.nearest.map((hit) => hit.id));
  const want10 = new Set(reference.nearest.slice(0, 10).map((hit) => hit.id));
  totals.found100 += approximate.nearest.filter((hit) => want100.has(hit.id)).length / want100.size;
  totals.found10 +=
    approximate.nearest.slice(0, 10).filter((hit) => want10.has(hit.id)).length / want10.size;
  const top = (hits) =>
    hits
      .slice(0, 10)
      .map((hit) => hit.id)
      .join(",");
  if (top(reference.nearest) === top(approximate.nearest)) sameTop10++;
}
await embedder.close();
await pglite.close();
const n = queries.length;
const summary = (list) => ({
  p50_ms: round(quantile(list, 0.5), 1),
  p99_ms: round(quantile(list, 0.99), 1),
});
console.log(
  JSON.stringify(
    {
      benchmark: "pgvector-scifact (HNSW vs exact dense candidates, SciFact test claims)",
      memories: stored.length,
      passages,
      model: info.embedding_model,
      depth: DEPTH,
      queries: n,
      hnsw_build_s: indexSeconds,
      dense_only_ndcg_at_10: { exact: round(totals.exact / n), hnsw: round(totals.hnsw / n) },
      hnsw_finds_of_exact: {
        top_10: round(totals.found10 / n),
        [`top_${DEPTH}`]: round(totals.found100 / n),
      },
      queries_with_identical_top_10: sameTop10,
      latency_pglite: { exact: summary(ms.exact), hnsw: summary(ms.hnsw) },
    },
    null,
    2,
  ),
);
