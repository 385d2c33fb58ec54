// The embedding models @hms/embedder can fetch, side by side in one run, on what a default is
// chosen by (the table in packages/embedder/README.md):
//
//   pnpm bench model-frontier [--models ID,ID,...] [--work DIR] [--locomo DIR] [--json FILE]
//                             [--skip scifact,locomo,throughput,scale]
//
// For each model (default: every one of the embedder's MODELS; each must have been fetched
// with `pnpm fetch-model --model ID`), one after the other, each measurement in its own process:
//  - scifact: `pnpm bench recall-quality --split test` with the model: SciFact test nDCG@10,
//    hybrid (and lexical, the same for every model), and the backfill's memories/s; then dense
//    alone, from the vectors that run stored: each claim embedded by the model, each abstract
//    scored by its best passage's cosine (as hybrid's dense half ranks), nDCG@10;
//  - locomo: `pnpm bench locomo` on LoCoMo's development half (--locomo, default
//    shared/data/locomo-dev beside the repository or above it), hybrid at turn and session
//    granularity: file@10, and at session granularity the range hit and mean range lines;
//  - throughput: `pnpm bench embed-runtimes` (48 abstracts, 3 rounds): abstracts/s on the
//    native and the WebAssembly ONNX Runtime, best round;
//  - scale: `pnpm bench server-perf --memories 10000 --embedded 200 --lexical-only` is not
//    enough (it would not load the model), so the hybrid run: recall p50/p99 at 10,000
//    memories through the recall tool (random vectors but for the 200 newest, which the
//    server embeds; exact search costs the same whatever the vectors hold);
//  - size: the model directory's pinned bytes.
// --work DIR keeps each model's SciFact store (its vectors) for a later run with the same DIR
// (default: a temporary directory). The data is read in place, never copied. Quality does not
// depend on the machine's load; throughput and latency do: the output records `uptime`'s load
// before and after each model.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultModelDir, loadEmbedder, MODELS, modelById } from "@hms/embedder";
import { storeFileName } from "@hms/store";
import { openSqlite } from "@hms/store/internal";
import { checkArguments, ndcgAt10, option, readJsonl, readQrels, round } from "./support.mjs";

checkArguments("model-frontier", ["models", "work", "locomo", "json", "skip", "data"], []);

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const log = (line) => process.stderr.write(`model-frontier: ${line}\n`);
const models = option("models", "HMS_BENCH_MODELS", MODELS.map((m) => m.id).join(","))
  .split(",")
  .filter((id) => id !== "")
  .map((id) => {
    const model = modelById(id);
    if (model === undefined) {
      throw new Error(`--models: no model is called ${id} (${MODELS.map((m) => m.id).join(", ")})`);
    }
    return model;
  });
const skip = new Set(option("skip", "HMS_BENCH_SKIP", "").split(","));
const keptWork = option("work", "HMS_BENCH_WORK", undefined);
const work =
  keptWork === undefined ? mkdtempSync(join(tmpdir(), "hms-frontier-")) : resolve(keptWork);
mkdirSync(work, { recursive: true });
const scifact = option("data", "HMS_SCIFACT_DIR", findShared("scifact", "corpus.jsonl"));
const locomo = option("locomo", "HMS_LOCOMO_DATA", findShared("locomo-dev", "locomo-dev.json"));
const jsonFile = option("json", "HMS_BENCH_JSON", undefined);

function findShared(name, file) {
  for (let dir = root; ; dir = dirname(dir)) {
    const candidate = join(dir, "shared", "data", name);
    if (existsSync(join(candidate, file))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Runs `pnpm bench <args>` from the repository root; its stdout, or throws with its stderr. */
function bench(args) {
  log(`pnpm bench ${args.join(" ")}`);
  const child = spawnSync("pnpm", ["bench", ...args], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`pnpm bench ${args[0]} exited with ${child.status}`);
  return child.stdout;
}

/** The JSON object a benchmark printed last on stdout. */
function lastJson(stdout) {
  const start = stdout.lastIndexOf("\n{\n");
  return JSON.parse(stdout.slice(start < 0 ? stdout.indexOf("{") : start + 1));
}

const load = () => loadavg().map((x) => round(x, 2));

/** Dense nDCG@10 on SciFact test from the vectors a recall-quality run stored. */
async function denseNdcg(modelDir, storeDir) {
  const file = join(storeDir, "namespaces", storeFileName("scifact"));
  const db = openSqlite(file, { readOnly: true });
  const docs = [];
  try {
    const rows = db
      .prepare(
        "SELECT m.key, v.vectors FROM memory_vectors v JOIN memories m ON m.id = v.memory_id",
      )
      .all();
    for (const row of rows) {
      const all = new Float32Array(row.vectors.byteLength / 4);
      new Uint8Array(all.buffer).set(row.vectors);
      docs.push({ id: row.key.slice("scifact/".length), vectors: all });
    }
  } finally {
    db.close();
  }
  const qrels = readQrels(scifact, "test");
  const queries = readJsonl(join(scifact, "queries.jsonl")).filter((q) => qrels.has(q._id));
  const embedder = await loadEmbedder(modelDir);
  try {
    const dims = embedder.dimensions;
    const vectors = await embedder.embed(queries.map((q) => q.text));
    let total = 0;
    queries.forEach((query, i) => {
      const q = vectors[i];
      const scored = docs.map((doc) => {
        let best = Number.NEGATIVE_INFINITY;
        for (let at = 0; at < doc.vectors.length; at += dims) {
          let dot = 0;
          for (let d = 0; d < dims; d++) dot += q[d] * doc.vectors[at + d];
          if (dot > best) best = dot;
        }
        return [doc.id, best];
      });
      scored.sort((a, b) => b[1] - a[1]);
      total += ndcgAt10(
        scored.slice(0, 10).map(([id]) => id),
        qrels.get(query._id),
      );
    });
    return { documents: docs.length, ndcg_at_10: round(total / queries.length, 4) };
  } finally {
    await embedder.close();
  }
}

const results = { benchmark: "model-frontier", started: new Date().toISOString(), models: [] };
try {
  for (const model of models) {
    const dir = defaultModelDir(model);
    const out = {
      model: model.id,
      upstream: model.upstream,
      bytes: model.files.reduce((sum, f) => sum + f.bytes, 0),
      load_before: load(),
    };
    log(`${model.id} (${dir})`);
    if (!skip.has("scifact")) {
      const storeDir = join(work, `scifact-${model.id}`);
      const run = lastJson(
        bench([
          "recall-quality",
          "--split",
          "test",
          "--model-dir",
          dir,
          "--data-dir",
          storeDir,
          ...(scifact ? ["--data", scifact] : []),
        ]),
      );
      out.scifact_test = {
        lexical: run.lexical.test.ndcg_at_10,
        hybrid: run.hybrid.test.ndcg_at_10,
        dense: (await denseNdcg(dir, storeDir)).ndcg_at_10,
        backfill_memories_per_s: run.hybrid_indexing.memories_per_s ?? null,
        hybrid_recall_p50_ms: run.hybrid.test.recall_latency.p50_ms,
      };
    }
    if (!skip.has("locomo") && locomo !== undefined) {
      const json = join(work, `locomo-${model.id}.json`);
      bench([
        "locomo",
        "--data",
        locomo,
        "--model-dir",
        dir,
        "--modes",
        "hybrid",
        "--granularities",
        "turn,session",
        "--json",
        json,
      ]);
      const rows = JSON.parse(readFileSync(json, "utf8"));
      const row = (granularity) =>
        (Array.isArray(rows) ? rows : rows.results).find((r) => r.granularity === granularity);
      const turn = row("turn");
      const session = row("session");
      out.locomo_dev = {
        turn_file_at_10: round(turn.fileRecall, 3),
        session_file_at_10: round(session.fileRecall, 3),
        session_range_hit: round(session.rangeHit, 3),
        session_range_lines: round(session.rangeLinesJudged, 2),
      };
    }
    if (!skip.has("throughput")) {
      const json = join(work, `runtimes-${model.id}.json`);
      bench(["embed-runtimes", "--model-dir", dir, "--rounds", "3", "--json", json]);
      const runtimes = JSON.parse(readFileSync(json, "utf8")).runtimes;
      out.abstracts_per_s = {
        native: runtimes["onnxruntime-node"]?.abstracts_per_s_best ?? null,
        wasm: runtimes["onnxruntime-web"]?.abstracts_per_s_best ?? null,
      };
    }
    if (!skip.has("scale")) {
      const perf = lastJson(
        bench([
          "server-perf",
          "--memories",
          "10000",
          "--embedded",
          "200",
          "--queries",
          "200",
          "--model-dir",
          dir,
        ]),
      );
      out.recall_at_10000 = {
        hybrid_p50_ms: perf.hybrid_large?.recall?.p50_ms ?? null,
        hybrid_p99_ms: perf.hybrid_large?.recall?.p99_ms ?? null,
        lexical_p50_ms: perf.recall_large?.p50_ms ?? null,
      };
    }
    out.load_after = load();
    results.models.push(out);
    log(JSON.stringify(out));
  }
  console.log(JSON.stringify(results, null, 2));
  if (jsonFile !== undefined)
    writeFileSync(resolve(jsonFile), `${JSON.stringify(results, null, 2)}\n`);
} finally {
  if (keptWork === undefined) rmSync(work, { recursive: true, force: true });
}
