// One driver's side of `pnpm bench sqlite-drivers` (sqlite-drivers.mjs), in a process of its
// own, so its memory and its start are that driver's alone:
//
//   node sqlite-drivers-worker.mjs <load|round|scifact> <better-sqlite3|node:sqlite> <json>
//
// prints one JSON answer on stdout. The memories and queries come from seeded streams, the
// same for both drivers.
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MemoryStore } from "@hms/store";
import { openSqlite } from "@hms/store/internal";
import {
  betterSqlite3Versions,
  ndcgAt10,
  openWithBetterSqlite3,
  readJsonl,
  readQrels,
  seededRandom,
  syntheticText,
  zipfVocabulary,
} from "@hms/test-support";

const [task, driver, json] = process.argv.slice(2);
const args = JSON.parse(json ?? "{}");
const DRIVERS = {
  // The store's default: node:sqlite.
  "node:sqlite": undefined,
  "better-sqlite3": openWithBetterSqlite3,
};
if (!(driver in DRIVERS)) throw new Error(`driver is one of ${Object.keys(DRIVERS).join(", ")}`);
const options = { openFile: DRIVERS[driver] };

/** The memories' words: one vocabulary; the stream words are drawn from can be switched. */
function words() {
  let stream = seededRandom(42);
  const word = zipfVocabulary(() => stream(), 30000);
  return {
    word,
    /** Draws the words from `seed`'s stream from now on. */
    reseed(seed) {
      stream = seededRandom(seed);
      return stream;
    },
  };
}

const keyOf = (i) => `/memories/notes/${i}.md`;

/** Writes the memories in bulk (`rememberMany`, 1,000 per transaction): memories/s. */
function load({ file, memories }) {
  const { word, reseed } = words();
  const rand = reseed(7);
  const store = MemoryStore.open(file, options);
  try {
    const bulk = performance.now();
    for (let start = 0; start < memories; start += 1000) {
      const batch = [];
      for (let i = start; i < Math.min(memories, start + 1000); i++) {
        batch.push({ key: keyOf(i), text: syntheticText(rand, word), tags: ["memory-file"] });
      }
      store.rememberMany(batch);
    }
    const bulkSeconds = (performance.now() - bulk) / 1000;
    return { bulk_memories_per_s: Math.round(memories / bulkSeconds) };
  } finally {
    store.close();
  }
}

/**
 * A new process's first open (which loads the driver) to its first recall's answer; then
 * `gets` gets and `queries` recalls, each timed; the resident memory; then `writes` new
 * memories written one at a time (`remember`, one transaction each), timed together.
 */
function round({ file, memories, gets, queries, writes, seed }) {
  const { word, reseed } = words();
  const rand = reseed(seed);
  const queryTexts = Array.from({ length: queries }, () =>
    Array.from({ length: 2 + Math.floor(rand() * 5) }, word).join(" "),
  );
  const keys = Array.from({ length: gets }, () => keyOf(Math.floor(rand() * memories)));

  const started = performance.now();
  const store = MemoryStore.open(file, options);
  try {
    if (store.get(keys[0]) === undefined) throw new Error(`${keys[0]} is missing`);
    store.recall(queryTexts[0], { k: 10 });
    const coldStart = performance.now() - started;

    const getMs = keys.map((key) => {
      const t = performance.now();
      store.get(key);
      return performance.now() - t;
    });
    const hits = [];
    const recallMs = queryTexts.map((query) => {
      const t = performance.now();
      const result = store.recall(query, { k: 10 });
      const ms = performance.now() - t;
      hits.push(result.hits.map((hit) => hit.key));
      return ms;
    });
    const rss = process.memoryUsage().rss / 2 ** 20;
    const texts = Array.from({ length: writes }, () => syntheticText(rand, word));
    const single = performance.now();
    texts.forEach((text, i) => {
      store.remember({ key: `/memories/new/${seed}/${i}.md`, text, tags: ["memory-file"] });
    });
    return {
      versions: versions(),
      cold_start_ms: coldStart,
      get_ms: getMs,
      recall_ms: recallMs,
      hits,
      rss_mib: rss,
      writes,
      writes_ms: performance.now() - single,
    };
  } finally {
    store.close();
  }
}

/**
 * SciFact as `pnpm bench recall-quality` stores it (each abstract one memory: its title, a
 * newline, its text), every test-split claim recalled with k = 10: nDCG@10 and the rankings.
 */
function scifact({ file, data }) {
  const store = MemoryStore.open(file, options);
  try {
    const corpus = readJsonl(join(data, "corpus.jsonl"));
    for (let start = 0; start < corpus.length; start += 1000) {
      store.rememberMany(
        corpus.slice(start, start + 1000).map((doc) => ({
          key: `scifact/${doc._id}`,
          text: `${doc.title}\n${doc.text}`,
        })),
      );
    }
    const qrels = readQrels(data, "test");
    const queries = readJsonl(join(data, "queries.jsonl")).filter((q) => qrels.has(q._id));
    let total = 0;
    const rankings = queries.map((query) => {
      const ranked = store
        .recall(String(query.text), { k: 10 })
        .hits.map((hit) => hit.key.slice("scifact/".length));
      total += ndcgAt10(ranked, qrels.get(query._id));
      return ranked;
    });
    return { ndcg_at_10: Math.round((total / queries.length) * 10000) / 10000, rankings };
  } finally {
    store.close();
  }
}

/** The driver's version and its SQLite's. */
function versions() {
  if (driver === "better-sqlite3") return betterSqlite3Versions();
  const db = openSqlite(":memory:");
  try {
    const { v } = db.prepare("SELECT sqlite_version() AS v").get();
    return { node: process.versions.node, sqlite: v };
  } finally {
    db.close();
  }
}

const TASKS = { load, round, scifact };
if (!(task in TASKS)) throw new Error(`task is one of ${Object.keys(TASKS).join(", ")}`);
process.stdout.write(JSON.stringify(TASKS[task](args)));
