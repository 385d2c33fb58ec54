#!/usr/bin/env node
// `pnpm bench embed-ceiling [--rounds N] [--json FILE] [--model-dir DIR]`
//
// How fast could the embedding model possibly run on this CPU? Measures, for 1 thread and for
// the embedder's default thread count:
//  1. what the model achieves: tokens/s and GFLOP/s on texts of 128 tokens, 2 per call (256
//     padded tokens, as hms-mcp's worker calls it), through `loadEmbedder(...).embed` and
//     through a bare ONNX Runtime session on model.onnx (the difference is tokenizing and
//     pooling);
//  2. ONNX Runtime's own ceilings for the model's matrix products (1024 rows times
//     [384 x 384], [384 x 1536] and [1536 x 384] for all-MiniLM-L6-v2): GFLOP/s of a float
//     `MatMul` with constant weights (what the model runs: ONNX Runtime turns its int8
//     weights back into float at load) and of com.microsoft `DynamicQuantizeMatMul` with int8
//     constant weights (the fastest kernel ONNX Runtime has for them), in one-node graphs
//     built here (onnx-graph.mjs), with the embedder's session options;
//  3. achieved / float peak, and int8 peak / achieved: the most a faster kernel alone could
//     give without computing less.
// Each measurement is warmed up, then timed over `--rounds` rounds interleaved across the
// configurations, so other load on the machine hits them alike; other load only slows a run
// down, so the best round estimates the speed (the median is shown too).
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import ort from "onnxruntime-node";
import { defaultModelDir, loadEmbedder, verifyModelDir } from "../dist/index.js";
import { cliOf } from "./cli.mjs";
import { dynamicQuantizeMatMulModel, matMulModel, quantizePerColumn } from "./onnx-graph.mjs";

const { fail, positive } = cliOf("embed-ceiling");

const HELP = `usage: pnpm bench embed-ceiling [--rounds N] [--json FILE] [--model-dir DIR]

How fast the embedding model runs on this CPU against how fast ONNX Runtime can multiply its
matrices (float and int8), for 1 thread and the embedder's default thread count.

  --rounds N       timed rounds per measurement, interleaved (default 5)
  --json FILE      also write the figures to FILE
  --model-dir DIR  the model directory (default: where \`pnpm fetch-model\` puts it)
  --help           this text

Results go to stdout, progress to stderr. Needs the model: run \`pnpm fetch-model\` first.`;

/** Tokens per text (special tokens included) and texts per call, as hms-mcp's worker runs. */
const TEXT_TOKENS = 128;
const TEXTS_PER_CALL = 2;
/** Rows of the standalone products: 1024 tokens, a few calls' worth. */
const ROWS = 1024;
/** Each timed measurement runs about this long (the call count is set during warm-up). */
const MEASURE_SECONDS = 0.4;

let values;
try {
  ({ values } = parseArgs({
    options: {
      rounds: { type: "string", default: "5" },
      json: { type: "string" },
      "model-dir": { type: "string" },
      help: { type: "boolean", default: false },
    },
  }));
} catch (error) {
  fail(`${error.message}\n\n${HELP}`);
}
if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const rounds = positive("--rounds", values.rounds);
const modelDir = values["model-dir"] ?? defaultModelDir();
const log = (line) => process.stderr.write(`embed-ceiling: ${line}\n`);

try {
  await verifyModelDir(modelDir);
} catch (error) {
  fail(`${error.message}\n(or pass --model-dir DIR for a model directory elsewhere)`);
}

// The embedder's default: the available parallelism, at most 4 (see loadEmbedder).
const defaultThreads = Math.min(availableParallelism(), 4);
const threadCounts = [...new Set([1, defaultThreads])];
const loadBefore = loadavg();

// --- the model's cost per token -----------------------------------------------------------
const modelConfig = JSON.parse(readFileSync(join(modelDir, "config.json"), "utf8"));
const layers = modelConfig.num_hidden_layers;
const hidden = modelConfig.hidden_size;
const intermediate = modelConfig.intermediate_size;
for (const [name, value] of Object.entries({ layers, hidden, intermediate })) {
  if (!Number.isInteger(value) || value < 1) fail(`config.json: ${name} is ${value}`);
}
// Multiply-adds per token and layer, each 2 FLOP:
//   4·H·H   the query, key, value and output projections ([H x H] each);
//   2·H·I   the feed-forward pair ([H x I] then [I x H]);
//   2·L·H   attention: the token's query against L keys, and its weights over L values.
// So FLOP per token = 2 · layers · (4·H·H + 2·H·I + 2·L·H), H hidden size, I intermediate
// size, L the padded sequence length. Embedding lookups, layer norms, softmax, GELU and biases
// are a few H per token, under 1% of this, and left out.
const flopPerToken =
  2 * layers * (4 * hidden * hidden + 2 * hidden * intermediate + 2 * TEXT_TOKENS * hidden);
// The products with constant weights, with their share of those multiply-adds per layer.
const shapes = [
  { name: `${hidden}x${hidden}`, k: hidden, n: hidden, perLayer: 4 },
  { name: `${hidden}x${intermediate}`, k: hidden, n: intermediate, perLayer: 1 },
  { name: `${intermediate}x${hidden}`, k: intermediate, n: hidden, perLayer: 1 },
];

// --- configurations -------------------------------------------------------------------------
/** The session options loadEmbedder uses. */
const sessionOptions = (threads) => ({
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  executionMode: "sequential",
  graphOptimizationLevel: "all",
  logSeverityLevel: 3,
  extra: { session: { intra_op: { allow_spinning: "0" } } },
});

log("checking the generated graphs against a product computed here");
await checkGraphs();

const configs = [];
const closers = [];
for (const threads of threadCounts) {
  const embedder = await loadEmbedder(modelDir, { threads });
  closers.push(() => embedder.close());
  const text = textOfTokens(TEXT_TOKENS - 2, (t) => embedder.countTokens(t));
  const texts = Array.from({ length: TEXTS_PER_CALL }, () => text);
  configs.push({
    name: "embed",
    kind: "model",
    threads,
    flopPerCall: flopPerToken * TEXT_TOKENS * TEXTS_PER_CALL,
    call: () => embedder.embed(texts),
  });

  const session = await ort.InferenceSession.create(
    join(modelDir, "model.onnx"),
    sessionOptions(threads),
  );
  closers.push(() => session.release());
  const feeds = modelFeeds(session.inputNames);
  const output = session.outputNames.includes("last_hidden_state")
    ? "last_hidden_state"
    : session.outputNames[0];
  configs.push({
    name: "session",
    kind: "model",
    threads,
    flopPerCall: flopPerToken * TEXT_TOKENS * TEXTS_PER_CALL,
    call: () => session.run(feeds, [output]),
  });

  for (const shape of shapes) {
    const weights = pseudoRandom(shape.k * shape.n, 1);
    const x = new ort.Tensor("float32", pseudoRandom(ROWS * shape.k, 2), [ROWS, shape.k]);
    const graphs = {
      float: matMulModel({ weights, k: shape.k, n: shape.n }),
      int8: dynamicQuantizeMatMulModel({
        ...quantizePerColumn(weights, shape.k, shape.n),
        k: shape.k,
        n: shape.n,
      }),
    };
    for (const [kind, graph] of Object.entries(graphs)) {
      const product = await ort.InferenceSession.create(graph, sessionOptions(threads));
      closers.push(() => product.release());
      configs.push({
        name: shape.name,
        kind,
        threads,
        shape,
        flopPerCall: 2 * ROWS * shape.k * shape.n,
        call: () => product.run({ X: x }),
      });
    }
  }
}

// --- measure ----------------------------------------------------------------------------------
for (const config of configs) {
  // Warm up (arena growth, weight packing, thread pool start), then pick a call count that
  // makes one measurement last about MEASURE_SECONDS.
  for (let i = 0; i < 3; i++) await config.call();
  const seconds = await timeCalls(config, 3);
  config.calls = Math.max(1, Math.round((MEASURE_SECONDS * 3) / seconds));
  config.rates = [];
}
for (let round = 1; round <= rounds; round++) {
  for (const config of configs) {
    const seconds = await timeCalls(config, config.calls);
    config.rates.push((config.flopPerCall * config.calls) / seconds / 1e9);
  }
  log(`round ${round}/${rounds} done`);
}
for (const close of closers) await close();
const loadAfter = loadavg();

// --- report -----------------------------------------------------------------------------------
const best = (config) => Math.max(...config.rates);
const find = (threads, name, kind) =>
  configs.find((c) => c.threads === threads && c.name === name && c.kind === kind);
/** The rate at which the model's constant-weight products would run, all at `kind`'s speed:
 * FLOP-weighted harmonic mean over the shapes (total FLOP over total time). */
const peak = (threads, kind) => {
  const flop = shapes.reduce((sum, s) => sum + s.perLayer * s.k * s.n, 0);
  const time = shapes.reduce(
    (sum, s) => sum + (s.perLayer * s.k * s.n) / best(find(threads, s.name, kind)),
    0,
  );
  return flop / time;
};

const summary = threadCounts.map((threads) => {
  const achieved = best(find(threads, "embed", "model"));
  const floatPeak = peak(threads, "float");
  const int8Peak = peak(threads, "int8");
  return {
    threads,
    achievedGflops: achieved,
    floatPeakGflops: floatPeak,
    int8PeakGflops: int8Peak,
    achievedOverFloatPeak: achieved / floatPeak,
    int8PeakOverAchieved: int8Peak / achieved,
  };
});

const out = [];
out.push(
  `embed-ceiling: ${cpus()[0]?.model ?? "unknown CPU"}, ${availableParallelism()} available cores, onnxruntime-node ${ortVersion()}`,
);
out.push(
  `load average ${fmt(loadBefore[0], 2)} before, ${fmt(loadAfter[0], 2)} after; ${rounds} rounds, best and median`,
);
out.push(
  `model: ${layers} layers, hidden ${hidden}, intermediate ${intermediate}; ${fmt(flopPerToken / 1e6, 2)} MFLOP per token at ${TEXT_TOKENS} tokens`,
);
out.push("");
out.push(
  `${"threads".padEnd(8)}${"measure".padEnd(44)}${"best GFLOP/s".padStart(13)}${"median".padStart(9)}${"best tokens/s".padStart(15)}`,
);
for (const config of configs) {
  const label =
    config.kind === "model"
      ? `model via ${config.name === "embed" ? "embed()" : "bare session"} (${TEXTS_PER_CALL}x${TEXT_TOKENS})`
      : `${config.kind === "float" ? "MatMul float" : "DynamicQuantizeMatMul int8"} ${ROWS}x${config.name}`;
  const tokens = config.kind === "model" ? tokensPerSecond(best(config)).padStart(15) : "";
  out.push(
    `${String(config.threads).padEnd(8)}${label.padEnd(44)}${fmt(best(config), 1).padStart(13)}${fmt(median(config.rates), 1).padStart(9)}${tokens}`,
  );
}
out.push("");
out.push(
  `products: [${ROWS} x k] · [k x n] named ${ROWS}xkxn. Peak: the model's products all at that kernel's best rate (FLOP-weighted harmonic mean, per layer ${shapes.map((s) => `${s.perLayer}·${s.k}·${s.n}`).join(" : ")})`,
);
for (const s of summary) {
  out.push(
    `${s.threads} thread${s.threads > 1 ? "s" : ""}: embed() ${fmt(s.achievedGflops, 1)} GFLOP/s = ${fmt(100 * s.achievedOverFloatPeak, 0)}% of the float peak (${fmt(s.floatPeakGflops, 1)}, ${tokensPerSecond(s.floatPeakGflops)} tokens/s); int8 peak ${fmt(s.int8PeakGflops, 1)} GFLOP/s (${tokensPerSecond(s.int8PeakGflops)} tokens/s) = at most ${fmt(s.int8PeakOverAchieved, 2)}x the achieved rate`,
  );
}
const bestSpeedup = Math.max(...summary.map((s) => s.int8PeakOverAchieved));
out.push(
  `a faster kernel alone gives at most ${fmt(bestSpeedup, 2)}x here; ${bestSpeedup >= 3 ? "3x is within that ceiling" : "3x needs fewer FLOPs (a smaller model or fewer tokens)"}`,
);
console.log(out.join("\n"));

if (values.json) {
  const figures = {
    cpu: cpus()[0]?.model,
    availableParallelism: availableParallelism(),
    onnxruntimeNode: ortVersion(),
    loadAverage: { before: loadBefore, after: loadAfter },
    rounds,
    model: { layers, hidden, intermediate, textTokens: TEXT_TOKENS, textsPerCall: TEXTS_PER_CALL },
    flopPerToken,
    rows: ROWS,
    measurements: configs.map((c) => ({
      threads: c.threads,
      kind: c.kind,
      name: c.name,
      flopPerCall: c.flopPerCall,
      callsPerRound: c.calls,
      bestGflops: best(c),
      medianGflops: median(c.rates),
      gflopsByRound: c.rates,
      ...(c.kind === "model" ? { bestTokensPerSecond: (best(c) * 1e9) / flopPerToken } : {}),
    })),
    summary,
  };
  writeFileSync(values.json, `${JSON.stringify(figures, null, 2)}\n`);
  log(`figures written to ${values.json}`);
}

// --- helpers ----------------------------------------------------------------------------------

async function timeCalls(config, calls) {
  const started = performance.now();
  for (let i = 0; i < calls; i++) await config.call();
  return (performance.now() - started) / 1000;
}

/** A text of exactly `tokens` tokens (special tokens excluded) by the model's tokenizer. */
function textOfTokens(tokens, count) {
  const words =
    "the embedding model turns each memory into a vector so that recall can find it by meaning even when no word is shared with the query".split(
      " ",
    );
  let text = "";
  for (let i = 0; count(text) < tokens; i++) {
    const next = text ? `${text} ${words[i % words.length]}` : words[0];
    if (count(next) > tokens) break;
    text = next;
  }
  if (count(text) !== tokens) fail(`could not build a text of ${tokens} tokens`);
  return text;
}

/** Feeds for the bare session: [CLS], arbitrary word ids, [SEP]; the ids do not change the cost. */
function modelFeeds(inputNames) {
  const shape = [TEXTS_PER_CALL, TEXT_TOKENS];
  const size = TEXTS_PER_CALL * TEXT_TOKENS;
  const ids = new BigInt64Array(size);
  for (let i = 0; i < size; i++) {
    const position = i % TEXT_TOKENS;
    ids[i] = position === 0 ? 101n : position === TEXT_TOKENS - 1 ? 102n : BigInt(2000 + i);
  }
  const feeds = {
    input_ids: new ort.Tensor("int64", ids, shape),
    attention_mask: new ort.Tensor("int64", new BigInt64Array(size).fill(1n), shape),
  };
  if (inputNames.includes("token_type_ids")) {
    feeds.token_type_ids = new ort.Tensor("int64", new BigInt64Array(size), shape);
  }
  return feeds;
}

/** The generated graphs must compute the product they claim before they are timed. */
async function checkGraphs() {
  const [m, k, n] = [3, 6, 4];
  const w = pseudoRandom(k * n, 3);
  const x = pseudoRandom(m * k, 4);
  const expected = [];
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let t = 0; t < k; t++) sum += x[i * k + t] * w[t * n + j];
      expected.push(sum);
    }
  }
  const checks = [
    { kind: "float MatMul", graph: matMulModel({ weights: w, k, n }), tolerance: 1e-5 },
    {
      kind: "int8 DynamicQuantizeMatMul",
      graph: dynamicQuantizeMatMulModel({ ...quantizePerColumn(w, k, n), k, n }),
      // 8-bit activations and 7-bit weights over 6 terms in [-1, 1].
      tolerance: 0.05,
    },
  ];
  for (const { kind, graph, tolerance } of checks) {
    const session = await ort.InferenceSession.create(graph, sessionOptions(1));
    const y = (await session.run({ X: new ort.Tensor("float32", x, [m, k]) })).Y;
    await session.release();
    const error = Math.max(...expected.map((value, i) => Math.abs(value - y.data[i])));
    if (y.dims.join() !== `${m},${n}` || !(error <= tolerance)) {
      fail(`${kind}: [${y.dims}] with max abs error ${error} against the product computed here`);
    }
  }
}

/** Deterministic values in [-1, 1]. */
function pseudoRandom(count, seed) {
  return Float32Array.from({ length: count }, (_, i) => Math.sin(seed * 7.31 + i * 1.37));
}

function ortVersion() {
  return createRequire(import.meta.url)("onnxruntime-node/package.json").version;
}

/** The model's tokens/s at a rate in GFLOP/s. */
function tokensPerSecond(gflops) {
  return fmt((gflops * 1e9) / flopPerToken, 0);
}

function median(numbers) {
  const sorted = [...numbers].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function fmt(value, digits) {
  return value.toFixed(digits);
}
