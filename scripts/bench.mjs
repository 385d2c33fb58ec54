#!/usr/bin/env node
// `pnpm bench <name> [args...]`: runs one named benchmark. Each benchmark lives in the
// package it measures; this table only says where.
import { spawnSync } from "node:child_process";

const benches = {
  // nDCG@10 on SciFact through the real recall tool, lexical and hybrid in one run, with
  // indexing throughput, latency and memory (--split test|train|both, --data DIR,
  // --model-dir DIR, --data-dir DIR to keep and reuse the embedded store, --lexical-only).
  "recall-quality": { package: "hms-mcp", script: "bench:recall-quality" },
  // Paraphrase queries for the README's notes among thousands of distractors (LoCoMo turns,
  // SciFact titles): hit@1, hit@5, MRR and the top score of nonsense queries, lexical and
  // hybrid (--distractors N, --model-dir DIR, --data-dir DIR to keep the embedded store,
  // --compare BIN for another build in the same run, --lexical-only, --verbose).
  distractors: { package: "hms-mcp", script: "bench:distractors" },
  // How hybrid fusion was tuned: a grid on SciFact's train split over a store embedded by
  // recall-quality (--data-dir DIR).
  "tune-fusion": { package: "hms-mcp", script: "bench:tune-fusion" },
  // Cold start, write throughput, get/list latency, recall latency at 100k memories, memory;
  // the lexical recall curve at 1k/10k/100k (--sizes), against another build (--compare BIN).
  "server-perf": { package: "hms-mcp", script: "bench:server-perf" },
  // Recall filtered by time (modified_after/modified_before) against unfiltered recall at
  // 100k memories, filters keeping 1%, 10% and 50%, SQLite and PostgreSQL in one run, with the
  // load average (--memories N, --queries N, --k N, --engines sqlite,postgres,
  // --database-url URL).
  "recall-by-time": { package: "hms-mcp", script: "bench:recall-by-time" },
  // Memories/s a hybrid server embeds in the background (SciFact abstracts), this build with
  // one and two embedding workers, against another build (--compare BIN), alternating rounds.
  "embed-throughput": { package: "hms-mcp", script: "bench:embed-throughput" },
  // Spawn to first tool result on each install path: this build, another (--compare BIN), and
  // with --python the wheel (its connect() server, its hms-mcp command, uvx) with no Node.js
  // on PATH (--runs N).
  "cold-start": { package: "hms-mcp", script: "bench:cold-start" },
  // Dense nDCG@10 on SciFact, throughput by batch size, memory (needs `pnpm fetch-model`).
  "embed-scifact": { package: "@hms/embedder", script: "bench:scifact" },
  // The model's tokens/s and GFLOP/s against ONNX Runtime's float and int8 MatMul peaks on
  // this CPU: how much a faster kernel alone could give (--rounds N, --json FILE).
  "embed-ceiling": { package: "@hms/embedder", script: "bench:ceiling" },
  // The embedder on the native and the WebAssembly ONNX Runtime, same SciFact texts, one run:
  // load, abstracts/s, claims/s, memory, and whether the two rank alike (--threads N,
  // --rounds N, --abstracts N, --claims N, --json FILE).
  "embed-runtimes": { package: "@hms/embedder", script: "bench:runtimes" },
  // The seeded 2,000-command trace through HolographicMemoryTool (over stdio and in process,
  // each at full and normal durability) and the SDK's filesystem tool in one run: p50/p99 per
  // command kind, total ratios, cold connect, in-process open.
  "memory-tool": { package: "@hms/bench", script: "bench:memory-tool" },
  // LoCoMo stored as memory files (per session, per 8 turns, per turn) through the tool:
  // right file in the top 10, whether the hit's line range holds the evidence, MRR, range
  // length, latency; lexical and hybrid (--data DIR, --conversations N, --limit N, --modes,
  // --granularities, --model-dir DIR, --data-dir DIR to keep the stores, --out FILE).
  locomo: { package: "@hms/bench", script: "bench:locomo" },
  // What keeping the history of memory files costs a write, against other keys, with
  // another build's store in the same run (--compare DIR: its packages/store/dist).
  "history-cost": { package: "@hms/store", script: "bench:history-cost" },
  // The store on node:sqlite (what it runs on) and on better-sqlite3 (the native addon it ran
  // on before) side by side, on the same data: writes/s, get and recall p50/p99 at 100k
  // memories, cold start, RSS, SciFact lexical nDCG@10 (--memories N, --rounds N, --data DIR,
  // --json FILE). Run it on Node 24: better-sqlite3's addon is built for it.
  "sqlite-drivers": { package: "@hms/store", script: "bench:sqlite-drivers" },
  // What a version costs the history kept whole or as a splice (bytes per one-line edit,
  // insert, create/delete) and what reading old versions back costs, against another build's
  // store in the same run (--compare DIR: its packages/store/dist).
  "history-deltas": { package: "@hms/store", script: "bench:history-deltas" },
  // Hybrid recall latency on a 20k-memory PostgreSQL namespace under a trickle of writes,
  // against another build's store-postgres (--compare DIR: its dist) in the same run.
  "dense-trickle": { package: "@hms/store-postgres", script: "bench:dense-trickle" },
  // Attacks on a shared server (floods, oversize messages, growth...), one per file in
  // packages/hms-mcp/bench/attacks/: `pnpm bench attack <name> [args...]`.
  attack: { package: "hms-mcp", script: "bench:attack" },
};

const [name, ...args] = process.argv.slice(2);
const bench = name ? benches[name] : undefined;
if (!bench) {
  const known = Object.keys(benches);
  console.error(
    `usage: pnpm bench <name> [args...]\nknown: ${known.length ? known.join(", ") : "(none yet)"}`,
  );
  process.exit(name ? 2 : 0);
}
const result = spawnSync("pnpm", ["--filter", bench.package, "run", bench.script, ...args], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
