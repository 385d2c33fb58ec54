#!/usr/bin/env node
// `pnpm bench <name> [args...]`: runs one named benchmark. Each benchmark lives in the
// package it measures; this table says where, with a line on what it measures for `pnpm bench`
// to list. `pnpm bench <name> --help` prints the comment that opens the benchmark's file (what
// it measures and the options it takes) and runs nothing: some benchmarks run for minutes, and
// not every one parses its own arguments.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { workspacePackages } from "./publishable.mjs";

const benches = {
  "recall-quality": {
    summary: "SciFact nDCG@10 through the recall tool, lexical and hybrid",
    package: "hms-mcp",
    script: "bench:recall-quality",
  },
  "recall-cost": {
    summary: "lexical recall's server CPU per query by store size (SciFact subsets)",
    package: "hms-mcp",
    script: "bench:recall-cost",
  },
  distractors: {
    summary: "paraphrase queries among thousands of unrelated notes: hit@1, MRR",
    package: "hms-mcp",
    script: "bench:distractors",
  },
  "tune-fusion": {
    summary: "the grid hybrid fusion was tuned on (SciFact train split)",
    package: "hms-mcp",
    script: "bench:tune-fusion",
  },
  "server-perf": {
    summary: "writes/s, get and recall latency at 100k memories, cold start, memory",
    package: "hms-mcp",
    script: "bench:server-perf",
  },
  "recall-by-time": {
    summary: "recall with a time range against without, 100k memories, both engines",
    package: "hms-mcp",
    script: "bench:recall-by-time",
  },
  "embed-throughput": {
    summary: "memories/s a hybrid server embeds in the background",
    package: "hms-mcp",
    script: "bench:embed-throughput",
  },
  "cold-start": {
    summary: "spawn to first tool result on each install path",
    package: "hms-mcp",
    script: "bench:cold-start",
  },
  backup: {
    summary: "hms-mcp backup of 100,000 memories under writers: its time, their p99",
    package: "hms-mcp",
    script: "bench:backup",
  },
  "notify-latency": {
    summary: "write to change notification: one process, processes, replicas",
    package: "hms-mcp",
    script: "bench:notify-latency",
  },
  "model-frontier": {
    summary: "every fetchable embedding model side by side: SciFact, LoCoMo, speed, size",
    package: "hms-mcp",
    script: "bench:model-frontier",
  },
  "embed-scifact": {
    summary: "the embedder's dense nDCG@10 on SciFact and its throughput",
    package: "@hms/embedder",
    script: "bench:scifact",
  },
  "embed-ceiling": {
    summary: "the embedder against ONNX Runtime's MatMul peaks on this CPU",
    package: "@hms/embedder",
    script: "bench:ceiling",
  },
  "embed-runtimes": {
    summary: "the embedder on native and WebAssembly ONNX Runtime, side by side",
    package: "@hms/embedder",
    script: "bench:runtimes",
  },
  "memory-tool": {
    summary: "the 2,000-command trace: HolographicMemoryTool against the SDK's filesystem tool",
    package: "@hms/bench",
    script: "bench:memory-tool",
  },
  locomo: {
    summary: "LoCoMo stored as memory files: right file, line ranges, MRR",
    package: "@hms/bench",
    script: "bench:locomo",
  },
  "history-cost": {
    summary: "what keeping history costs a write",
    package: "@hms/store",
    script: "bench:history-cost",
  },
  "sqlite-drivers": {
    summary: "node:sqlite against better-sqlite3 at 100k memories",
    package: "@hms/store",
    script: "bench:sqlite-drivers",
  },
  "history-deltas": {
    summary: "bytes per version kept whole or as a splice, and reading them back",
    package: "@hms/store",
    script: "bench:history-deltas",
  },
  "dense-trickle": {
    summary: "hybrid recall latency on PostgreSQL under a trickle of writes",
    package: "@hms/store-postgres",
    script: "bench:dense-trickle",
  },
  attack: {
    summary: "attacks on a shared server: pnpm bench attack <name> (listed by pnpm bench attack)",
    package: "hms-mcp",
    script: "bench:attack",
    // Its first argument names an attack, which answers --help itself.
    named: true,
  },
};

const [name, ...args] = process.argv.slice(2);
const asksHelp = (list) => list.some((arg) => arg === "--help" || arg === "-h");
if (name === undefined || asksHelp([name])) {
  console.log(listing());
  process.exit(0);
}
const bench = Object.hasOwn(benches, name) ? benches[name] : undefined;
if (bench === undefined) {
  console.error(`pnpm bench: no benchmark named ${JSON.stringify(name)}\n\n${listing()}`);
  process.exit(2);
}
const ownHelp = bench.named === true && args[0] !== undefined && !asksHelp([args[0]]);
if (asksHelp(args) && !ownHelp) {
  console.log(`pnpm bench ${name}: ${bench.summary}\n\n${header(bench)}`);
  process.exit(0);
}
// Benchmarks that parse their arguments with parseArgs refuse an unknown option by throwing:
// bench-arguments.mjs, loaded into each of their processes, says so in one line.
// The benchmark's name rides in the module's URL.
const refusals = pathToFileURL(join(import.meta.dirname, "bench-arguments.mjs"));
refusals.searchParams.set("bench", name);
// biome-ignore lint/suspicious/noUndeclaredEnvVars: not a turbo task; a NODE_OPTIONS of the caller's own is kept.
const callers = process.env.NODE_OPTIONS ?? "";
const result = spawnSync("pnpm", ["--filter", bench.package, "run", bench.script, ...args], {
  stdio: "inherit",
  env: {
    ...process.env,
    NODE_OPTIONS: `${callers} --import=${JSON.stringify(refusals.href)}`.trim(),
  },
});
process.exit(result.status ?? 1);

/** The usage line and every benchmark with a line on what it measures. */
function listing() {
  const width = Math.max(...Object.keys(benches).map((key) => key.length));
  const lines = Object.entries(benches).map(
    ([key, { summary }]) => `  ${key.padEnd(width)}  ${summary}`,
  );
  return [
    "usage: pnpm bench <name> [args...]   (pnpm bench <name> --help: what it measures and takes)",
    "",
    ...lines,
  ].join("\n");
}

/**
 * The comment that opens the file a benchmark runs (after a `#!` line): `//` lines or one
 * JSDoc block, without their comment marks. The file is the last `.mjs` or `.ts` named
 * by the package's script.
 */
function header({ package: packageName, script }) {
  const found = workspacePackages().find((pkg) => pkg.name === packageName);
  if (found === undefined) throw new Error(`no workspace package named ${packageName}`);
  const directory = found.dir;
  const command = found.manifest.scripts[script];
  const file = command.match(/[\w./-]+\.(?:mjs|ts)\b/g)?.at(-1);
  if (file === undefined) throw new Error(`${packageName}'s ${script} names no .mjs or .ts file`);
  const lines = readFileSync(join(directory, file), "utf8").split("\n");
  if (lines[0]?.startsWith("#!")) lines.shift();
  const text = [];
  if (lines[0]?.trim().startsWith("/**")) {
    for (const line of lines.slice(1)) {
      if (line.trim().startsWith("*/")) break;
      text.push(line.replace(/^\s*\* ?/, ""));
    }
  } else {
    for (const line of lines) {
      if (!line.startsWith("//")) break;
      text.push(line.replace(/^\/\/ ?/, ""));
    }
  }
  return text.join("\n").trim();
}
