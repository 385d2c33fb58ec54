#!/usr/bin/env node
// Hybrid recall latency on a large PostgreSQL namespace under a steady trickle of writes, this
// build against another one in the same run. Each build gets its own database holding the same
// namespace: --memories short memories, each with one 384-float vector (deterministic random
// unit vectors: no model runs). A "reader" engine (a replica) recalls with a query vector while
// a "writer" engine on the same database rewrites one memory and saves its new vector every
// --write-every ms, so every recall sees the namespace's vectors changed since the last one.
// Rounds alternate the builds (ABBA...), so both see the same machine.
//
//   pnpm bench dense-trickle --compare /path/to/other/packages/store-postgres/dist
//                            [--memories 20000] [--rounds 4] [--recalls 30] [--write-every 200]
//
// A temporary PostgreSQL cluster (@hms/test-support) serves the run, one database per build.
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { quantile, seededUnitVector, startPostgres } from "@hms/test-support";

const { values } = parseArgs({
  options: {
    compare: { type: "string" },
    memories: { type: "string", default: "20000" },
    rounds: { type: "string", default: "4" },
    recalls: { type: "string", default: "30" },
    "write-every": { type: "string", default: "200" },
  },
});
const positive = (name) => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} is a positive integer`);
  return value;
};
const MEMORIES = positive("memories");
const ROUNDS = positive("rounds");
const RECALLS = positive("recalls");
const WRITE_EVERY = positive("write-every");
if (values.compare === undefined) {
  throw new Error("--compare DIR (the other build's packages/store-postgres/dist) is required");
}
const DIMS = 384;
const MODEL = { id: "bench-random-384", dimensions: DIMS };
const log = (line) => process.stderr.write(`dense-trickle: ${line}\n`);
/** A deterministic unit vector for `seed`. */
const unitVector = (seed) => seededUnitVector(seed, DIMS);

const textOf = (i, version) =>
  `memory ${i} about topic ${i % 97} and subject ${i % 31} v${version}`;
const seedOf = (text) => {
  const [, i, version] = /^memory (\d+) .* v(\d+)$/.exec(text);
  return Number(i) * 1000 + Number(version);
};

/** Claims every queued memory and saves its vector (the embedder's part, without a model). */
async function embedQueue(engine) {
  for (;;) {
    const batch = await engine.embeddings.claim({ worker: "bench", limit: 1000, leaseMs: 60_000 });
    if (batch.length === 0) return;
    await engine.embeddings.save(
      batch.map((memory) => ({
        id: memory.id,
        hash: memory.hash,
        spans: [{ lineStart: 1, lineEnd: 1 }],
        vectors: unitVector(seedOf(memory.text)),
      })),
    );
  }
}

async function seed(PgEngine, url) {
  const engine = await PgEngine.open({ url, embeddings: { model: MODEL } });
  try {
    const store = await engine.get("bench");
    for (let at = 0; at < MEMORIES; at += 500) {
      const inputs = [];
      for (let i = at; i < Math.min(MEMORIES, at + 500); i++) {
        inputs.push({ key: `/m/${i}`, text: textOf(i, 0) });
      }
      await store.rememberMany(inputs);
      await embedQueue(engine);
    }
  } finally {
    await engine.close();
  }
}

const round = (value, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const summary = (ms) => ({
  n: ms.length,
  p50_ms: round(quantile(ms, 0.5)),
  p99_ms: round(quantile(ms, 0.99)),
  mean_ms: round(ms.reduce((a, b) => a + b, 0) / ms.length),
});

/** One build under test: its engines on its own database. */
async function openBuild(name, dist, url) {
  const { PgEngine } = await import(pathToFileURL(resolve(dist, "index.js")).href);
  log(`${name}: seeding ${MEMORIES} memories with vectors`);
  const started = performance.now();
  await seed(PgEngine, url);
  log(`${name}: seeded in ${round((performance.now() - started) / 1000)} s`);
  const open = () => PgEngine.open({ url, poolSize: 3, embeddings: { model: MODEL } });
  const reader = await open();
  const writer = await open();
  const readStore = await reader.get("bench");
  const writeStore = await writer.get("bench");
  // The reader's first recall copies the namespace's vectors (not measured).
  await readStore.recall("topic", { vector: unitVector(1), k: 10 });
  return { name, reader, writer, readStore, writeStore, ms: [], writes: 0, version: 0 };
}

/** `RECALLS` recalls on `build` while its writer rewrites a memory every WRITE_EVERY ms. */
async function measure(build) {
  let writing = true;
  const trickle = (async () => {
    while (writing) {
      const i = Math.floor(Math.random() * MEMORIES);
      build.version++;
      await build.writeStore.remember({ key: `/m/${i}`, text: textOf(i, build.version) });
      await embedQueue(build.writer);
      build.writes++;
      await new Promise((done) => setTimeout(done, WRITE_EVERY));
    }
  })();
  try {
    for (let n = 0; n < RECALLS; n++) {
      const query = unitVector(7_000_000 + n);
      const started = performance.now();
      await build.readStore.recall(`topic ${n % 97}`, { vector: query, k: 10 });
      build.ms.push(performance.now() - started);
    }
  } finally {
    writing = false;
    await trickle;
  }
}

let server;
try {
  server = await startPostgres();
  const databaseFor = (name) => server.createDatabase(name);
  const builds = [
    await openBuild("this build", resolve(import.meta.dirname, "../dist"), databaseFor("new")),
    await openBuild("compared build", resolve(values.compare), databaseFor("old")),
  ];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        log(`round ${r + 1}/${ROUNDS}: ${build.name}`);
        await measure(build);
      }
    }
    const [current, compared] = builds;
    const a = summary(current.ms);
    const b = summary(compared.ms);
    console.log(
      JSON.stringify(
        {
          benchmark: "dense-trickle (hybrid recall on PostgreSQL under a trickle of writes)",
          memories: MEMORIES,
          dimensions: DIMS,
          rounds: ROUNDS,
          recalls_per_round: RECALLS,
          write_every_ms: WRITE_EVERY,
          compared_build: resolve(values.compare),
          this_build: {
            recall: a,
            writes: current.writes,
            dense: current.reader.embeddings.dense.counters,
          },
          compared: { recall: b, writes: compared.writes },
          ratio_this_vs_compared: {
            p50: round(a.p50_ms / b.p50_ms, 3),
            p99: round(a.p99_ms / b.p99_ms, 3),
            mean: round(a.mean_ms / b.mean_ms, 3),
          },
        },
        null,
        2,
      ),
    );
  } finally {
    for (const build of builds) await Promise.all([build.reader.close(), build.writer.close()]);
  }
} finally {
  server?.remove();
}
