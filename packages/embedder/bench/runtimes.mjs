#!/usr/bin/env node
// `pnpm bench embed-runtimes [--data DIR] [--model-dir DIR] [--threads N] [--rounds N]
//                            [--abstracts N] [--claims N] [--json FILE]`
//
// The embedder on each ONNX Runtime, on the same SciFact texts in one run: the native
// onnxruntime-node and the WebAssembly build bundled in dist/ (SIMD and threads). Each round
// runs each runtime in its own process (so load time and resident memory are its own),
// alternating, and reports:
//  - load time (verification and warm-up included), abstracts/s (long texts, most at the
//    256-token cut) and claims/s (short, like recall queries) with the default plan, peak RSS;
//  - agreement: the lowest cosine between the two runtimes' vectors of a text, and for how many
//    claims the top 10 abstracts of the sample (by cosine) come in the same order. Identical
//    rankings mean recall ranks identically on either runtime (so SciFact's nDCG@10 is the
//    same), without embedding the whole corpus twice.
// Other load only slows a run down, so the best round estimates each runtime's own speed.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cosine, defaultModelDir, loadEmbedder } from "../dist/index.js";
import { cliOf } from "./cli.mjs";

const { fail, positive, findSharedScifact } = cliOf("embed-runtimes");
const { values } = parseArgs({
  options: {
    data: { type: "string" },
    "model-dir": { type: "string" },
    threads: { type: "string" },
    rounds: { type: "string", default: "3" },
    abstracts: { type: "string", default: "48" },
    claims: { type: "string", default: "300" },
    json: { type: "string" },
    child: { type: "string" },
  },
  strict: true,
});
const dataDir = values.data ?? process.env.HMS_SCIFACT_DIR ?? findSharedScifact();
const modelDir = values["model-dir"] ?? defaultModelDir();
const rounds = positive("--rounds", values.rounds);
const abstractCount = positive("--abstracts", values.abstracts);
const claimCount = positive("--claims", values.claims);
const threads = values.threads === undefined ? undefined : positive("--threads", values.threads);
const RUNTIMES = ["native", "wasm"];

const readJsonl = (path) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
const abstracts = readJsonl(join(dataDir, "corpus.jsonl"))
  .slice(0, abstractCount)
  .map((doc) => `${doc.title}\n${doc.text}`);
const claims = readJsonl(join(dataDir, "queries.jsonl"))
  .slice(0, claimCount)
  .map((query) => query.text);

if (values.child !== undefined) {
  // One runtime, one round: times and vectors for the parent.
  const started = performance.now();
  const embedder = await loadEmbedder(modelDir, {
    runtime: values.child,
    ...(threads === undefined ? {} : { threads }),
  });
  const loadMs = performance.now() - started;
  const timed = async (texts) => {
    const t = performance.now();
    const vectors = await embedder.embed(texts);
    return { perSecond: texts.length / ((performance.now() - t) / 1000), vectors };
  };
  const long = await timed(abstracts);
  const short = await timed(claims);
  await embedder.close();
  const out = process.env.HMS_BENCH_VECTORS;
  if (out !== undefined) {
    const all = [...long.vectors, ...short.vectors];
    const packed = new Float32Array(all.length * 384);
    for (const [i, vector] of all.entries()) packed.set(vector, i * 384);
    writeFileSync(out, Buffer.from(packed.buffer));
  }
  process.stdout.write(
    `${JSON.stringify({
      runtime: embedder.runtime,
      loadMs,
      abstractsPerSecond: long.perSecond,
      claimsPerSecond: short.perSecond,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
    })}\n`,
  );
  process.exit(0);
}

const results = Object.fromEntries(RUNTIMES.map((runtime) => [runtime, []]));
const vectorFiles = Object.fromEntries(
  RUNTIMES.map((runtime) => [
    runtime,
    join(process.env.TMPDIR ?? "/tmp", `embed-runtimes-${process.pid}-${runtime}.f32`),
  ]),
);
const here = fileURLToPath(import.meta.url);
for (let round = 1; round <= rounds; round++) {
  for (const runtime of RUNTIMES) {
    const args = [here, "--child", runtime, "--data", dataDir, "--model-dir", modelDir];
    args.push("--abstracts", String(abstractCount), "--claims", String(claimCount));
    if (threads !== undefined) args.push("--threads", String(threads));
    const child = spawnSync(process.execPath, args, {
      encoding: "utf8",
      env: { ...process.env, ...(round === 1 ? { HMS_BENCH_VECTORS: vectorFiles[runtime] } : {}) },
    });
    if (child.status !== 0) fail(`${runtime} failed:\n${child.stderr}`);
    const result = JSON.parse(child.stdout);
    results[runtime].push(result);
    process.stderr.write(
      `embed-runtimes: round ${round}/${rounds}, ${result.runtime}: load ${result.loadMs.toFixed(0)} ms, ` +
        `${result.abstractsPerSecond.toFixed(1)} abstracts/s, ${result.claimsPerSecond.toFixed(1)} claims/s, ` +
        `peak ${result.peakRssMiB.toFixed(0)} MiB\n`,
    );
  }
}

const unpack = (file) => {
  const bytes = readFileSync(file);
  const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return Array.from({ length: all.length / 384 }, (_, i) => all.subarray(i * 384, (i + 1) * 384));
};
const [native, wasm] = RUNTIMES.map((runtime) => unpack(vectorFiles[runtime]));
const lowestCosine = Math.min(...native.map((vector, i) => cosine(vector, wasm[i])));
const top10 = (vectors, claim) =>
  vectors
    .slice(0, abstractCount)
    .map((abstract, i) => [i, cosine(claim, abstract)])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([i]) => i)
    .join();
let sameRanking = 0;
for (let c = abstractCount; c < native.length; c++) {
  if (top10(native, native[c]) === top10(wasm, wasm[c])) sameRanking++;
}

const best = (runtime, key) => Math.max(...results[runtime].map((r) => r[key]));
const median = (runtime, key) => {
  const sorted = results[runtime].map((r) => r[key]).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const summary = {
  rounds,
  threads: threads ?? "default",
  texts: { abstracts: abstractCount, claims: claimCount },
  runtimes: Object.fromEntries(
    RUNTIMES.map((runtime) => [
      results[runtime][0].runtime,
      {
        load_ms_best: Math.round(Math.min(...results[runtime].map((r) => r.loadMs))),
        abstracts_per_s_best: +best(runtime, "abstractsPerSecond").toFixed(2),
        abstracts_per_s_median: +median(runtime, "abstractsPerSecond").toFixed(2),
        claims_per_s_best: +best(runtime, "claimsPerSecond").toFixed(1),
        claims_per_s_median: +median(runtime, "claimsPerSecond").toFixed(1),
        peak_rss_mib: Math.round(Math.max(...results[runtime].map((r) => r.peakRssMiB))),
      },
    ]),
  ),
  native_over_wasm: {
    abstracts: +(best("native", "abstractsPerSecond") / best("wasm", "abstractsPerSecond")).toFixed(
      2,
    ),
    claims: +(best("native", "claimsPerSecond") / best("wasm", "claimsPerSecond")).toFixed(2),
  },
  agreement: {
    lowest_cosine: lowestCosine,
    claims_with_the_same_top10: `${sameRanking} of ${claimCount}`,
  },
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(summary, null, 2)}\n`);
