// The two store engines side by side through hms-mcp's real tools over stdio: write
// throughput, `get` and recall p50/p99 on SQLite and on PostgreSQL, at each of a list of store
// sizes, the same memories and queries on both, in one run and one table (server-perf's
// --database-url / --postgres mode).
//
// Each size is reached by loading the memories straight into each engine's store (SQLite's
// MemoryStore, PostgreSQL's PgEngine: the bulk load is not what is measured), then a server of
// each engine is spawned on that store and timed through its tools.
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MemoryStore, storeFileName } from "@hms/store";
import { relationSizes } from "./postgres.mjs";
import { BIN, call, pool, round, spawnServerOn, summarize, time } from "./support.mjs";

/** The namespace both engines' stores are loaded into. */
export const ENGINES_NAMESPACE = "perf-engines";

/** Opens PostgreSQL's engine (the package hms-mcp loads for --database-url). */
async function openPg(url) {
  let module;
  try {
    module = await import("@hms/store-postgres");
  } catch (error) {
    throw new Error(
      `the PostgreSQL engine (@hms/store-postgres) is not built or not installed: ${error.message}`,
    );
  }
  return module.PgEngine.open({ url });
}

/**
 * The table: for each size (ascending), both engines loaded to that size with the same
 * memories, then writes/s (sequential and 16 at once), `get` and recall latency on each.
 * `memoryText()` and `queries` come from perf.mjs's generator.
 */
export async function engineTable({
  sizes,
  queries,
  memoryText,
  dataDir,
  databaseUrl,
  compareBin,
}) {
  mkdirSync(join(dataDir, "namespaces"), { recursive: true });
  const sqliteFile = join(dataDir, "namespaces", storeFileName(ENGINES_NAMESPACE));
  const pg = await openPg(databaseUrl);
  const rows = [];
  try {
    const pgStore = await pg.get(ENGINES_NAMESPACE);
    const already = (await pgStore.stats()).memories;
    if (already > 0) {
      throw new Error(
        `namespace ${ENGINES_NAMESPACE} of the database already holds ${already} memories: ` +
          "give the bench an empty database (it loads up to the largest --sizes into it)",
      );
    }
    let loaded = 0;
    for (const size of [...sizes].sort((a, b) => a - b)) {
      const sqlite = MemoryStore.open(sqliteFile, { namespace: ENGINES_NAMESPACE });
      try {
        while (loaded < size) {
          const batch = [];
          for (let i = loaded; i < Math.min(size, loaded + 1000); i++) {
            batch.push({ key: `/memories/notes/${i}.md`, text: memoryText() });
          }
          sqlite.rememberMany(batch);
          await pgStore.rememberMany(batch);
          loaded += batch.length;
        }
      } finally {
        sqlite.close();
      }
      for (const engine of ["sqlite", "postgres"]) {
        const target = engine === "sqlite" ? { dataDir } : { databaseUrl };
        const row = { memories: size, engine, ...(await measure(target, size, queries)) };
        process.stderr.write(`server-perf: engines ${JSON.stringify(row)}\n`);
        rows.push(row);
      }
      // The other build (--compare) on the same PostgreSQL database, after this build's run
      // (so its cache is the warmer one), writing keys of its own.
      if (compareBin !== undefined) {
        const measured = await measure({ databaseUrl }, size, queries, compareBin, "compare-");
        const row = { memories: size, engine: "postgres-compare", ...measured };
        process.stderr.write(`server-perf: engines ${JSON.stringify(row)}\n`);
        rows.push(row);
      }
    }
  } finally {
    await pg.close();
  }
  // What the largest store takes in PostgreSQL (tables without TOAST, and each index), and in
  // SQLite (the file), after the writes the measures added.
  const memories = Math.max(...sizes) + 1500 * sizes.length * (compareBin === undefined ? 1 : 2);
  const relations = await relationSizes(databaseUrl);
  return {
    rows,
    postgres_over_sqlite: ratios(rows, "postgres", "sqlite"),
    ...(compareBin === undefined
      ? {}
      : {
          compare_build: compareBin,
          compare_over_this_postgres: ratios(rows, "postgres-compare", "postgres"),
        }),
    on_disk: {
      memories,
      sqlite_file_mib: round(statSync(sqliteFile).size / 1048576, 1),
      postgres_relations: relations.filter((relation) => relation.mib >= 0.1),
    },
  };
}

/**
 * One engine at one size, through a freshly spawned server of build `bin` (this one by
 * default), its writes under keys that start with `label`.
 */
async function measure(target, size, queries, bin = BIN, label = "") {
  const server = await spawnServerOn(target, ["--namespace", ENGINES_NAMESPACE], bin);
  try {
    // Writes of new keys (they grow the store by 1,500 memories; the next size loads past them).
    const sequential = [];
    const started = performance.now();
    for (let i = 0; i < 500; i++) {
      const key = `/memories/writes/${size}/${label}seq-${i}.md`;
      sequential.push(
        (await time(() => call(server.client, "remember", { key, text: `w ${i}` }))).ms,
      );
    }
    const seqSeconds = (performance.now() - started) / 1000;
    const concurrent = await time(() =>
      pool(
        Array.from({ length: 1000 }, (_, i) => i),
        16,
        (i) =>
          call(server.client, "remember", {
            key: `/memories/writes/${size}/${label}par-${i}.md`,
            text: `w ${i}`,
          }),
      ),
    );
    const gets = [];
    for (let i = 0; i < 300; i++) {
      const key = `/memories/notes/${(i * 331) % size}.md`;
      gets.push((await time(() => call(server.client, "get", { key }))).ms);
    }
    for (const query of queries.slice(0, 20)) await call(server.client, "recall", { query });
    const recalls = [];
    let hits = 0;
    for (const query of queries) {
      const { ms, value } = await time(() => call(server.client, "recall", { query, k: 10 }));
      recalls.push(ms);
      hits += value.hits.length;
    }
    const write = summarize(sequential);
    const get = summarize(gets);
    const recall = summarize(recalls);
    return {
      writes_per_s: round(500 / seqSeconds, 0),
      write_p50_ms: write.p50_ms,
      write_p99_ms: write.p99_ms,
      concurrent_16_writes_per_s: round(1000 / (concurrent.ms / 1000), 0),
      get_p50_ms: get.p50_ms,
      get_p99_ms: get.p99_ms,
      recall_p50_ms: recall.p50_ms,
      recall_p99_ms: recall.p99_ms,
      recall_avg_hits: round(hits / queries.length, 1),
    };
  } finally {
    await server.close();
  }
}

/** Engine `top`'s figure over engine `base`'s at each size (above 1: `top` slower or more). */
function ratios(rows, top, base) {
  const fields = [
    "writes_per_s",
    "concurrent_16_writes_per_s",
    "get_p50_ms",
    "get_p99_ms",
    "recall_p50_ms",
    "recall_p99_ms",
  ];
  const out = [];
  for (const row of rows.filter((r) => r.engine === top)) {
    const under = rows.find((r) => r.engine === base && r.memories === row.memories);
    out.push({
      memories: row.memories,
      ...Object.fromEntries(fields.map((field) => [field, round(row[field] / under[field], 2)])),
    });
  }
  return out;
}

/** The table as aligned text lines, for stderr (the JSON on stdout is the record). */
export function formatEngineTable(rows) {
  const header = [
    "memories",
    "engine",
    "writes/s",
    "16 at once/s",
    "get p50",
    "get p99",
    "recall p50",
    "recall p99",
  ];
  const body = rows.map((row) => [
    String(row.memories),
    row.engine,
    String(row.writes_per_s),
    String(row.concurrent_16_writes_per_s),
    `${row.get_p50_ms} ms`,
    `${row.get_p99_ms} ms`,
    `${row.recall_p50_ms} ms`,
    `${row.recall_p99_ms} ms`,
  ]);
  const widths = header.map((_, c) => Math.max(...[header, ...body].map((line) => line[c].length)));
  return [header, ...body].map((line) => line.map((cell, c) => cell.padEnd(widths[c])).join("  "));
}
