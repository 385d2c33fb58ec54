/**
 * `pnpm bench memory-tool`: the fixed seeded trace of memory commands (`generateTrace`, seed 1,
 * 2,000 commands by default) through `HolographicMemoryTool` over stdio (a real hms-mcp
 * process and SQLite file) and through the SDK's `BetaLocalFilesystemMemoryTool` (files in a
 * directory), in the same run, on the same disk, step by step (each command runs on both,
 * alternating which goes first).
 *
 * Reports p50/p99 latency per command kind for each, the total time of each and their ratio,
 * and the cold connect of the hms-mcp tool (spawn + initialize + first `view /memories`,
 * median of 20). Sanity: every file view must show the same lines in both (the filesystem tool
 * adds an empty last line for a final newline; that line is dropped before comparing), and
 * the final files must be identical.
 *
 * Options: --length N (default 2000), --seed N (default 1), --rounds N (default 3),
 * --cold N (default 20), --dir DIR (where the stores go; default the OS temp directory).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { BetaLocalFilesystemMemoryTool } from "@anthropic-ai/sdk/tools/memory/node";
import { HolographicMemoryTool } from "holographic-memory-claude-tool";
import { type CommandKind, generateTrace, type TraceStep } from "./trace.js";

const { values } = parseArgs({
  options: {
    length: { type: "string", default: "2000" },
    seed: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
    cold: { type: "string", default: "20" },
    dir: { type: "string", default: tmpdir() },
  },
});
const LENGTH = Number(values.length);
const SEED = Number(values.seed);
const ROUNDS = Number(values.rounds);
const COLD = Number(values.cold);
const BASE = resolve(values.dir);

type Handlers = Record<string, (command: unknown) => Promise<unknown>>;

/** The hms-mcp to start: HMS_MCP_BIN, else this workspace's build. */
function hmsMcp(dataDir: string): { command: string; args: string[] } {
  const bin =
    process.env.HMS_MCP_BIN ??
    resolve(dirname(createRequire(import.meta.url).resolve("hms-mcp/package.json")), "dist/cli.js");
  const args = ["--data-dir", dataDir, "--log-level", "warn"];
  return bin.endsWith(".js")
    ? { command: process.execPath, args: [bin, ...args] }
    : { command: bin, args };
}

interface Run {
  /** Milliseconds per step, in trace order. */
  times: number[];
  /** Output of each file view, by step index. */
  views: Map<number, string>;
  /** Sum of the step times. */
  total: number;
  /** Every file at the end, path to text. */
  files: Record<string, string>;
}

async function step(tool: Handlers, command: TraceStep["command"]): Promise<[number, unknown]> {
  const run = tool[command.command] as (c: unknown) => Promise<unknown>;
  const t0 = performance.now();
  const output = await run.call(tool, command);
  return [performance.now() - t0, output];
}

/**
 * Runs the trace through both tools step by step, alternating which goes first at each step,
 * so both meet the same disk at the same moment (this machine's fsync times vary several-fold
 * from one second to the next, which would swamp a comparison of separate runs).
 */
async function runBoth(trace: TraceStep[]): Promise<{ hms: Run; fs: Run }> {
  const hmsDir = mkdtempSync(join(BASE, "bench-hms-"));
  const fsDir = mkdtempSync(join(BASE, "bench-fs-"));
  const memory = await HolographicMemoryTool.connect({ connection: hmsMcp(hmsDir) });
  try {
    const filesystem = await BetaLocalFilesystemMemoryTool.init(fsDir);
    const tools = { hms: memory as unknown as Handlers, fs: filesystem as unknown as Handlers };
    const runs = {
      hms: { times: [] as number[], views: new Map<number, string>() },
      fs: { times: [] as number[], views: new Map<number, string>() },
    };
    for (const [i, { kind, command }] of trace.entries()) {
      const order = i % 2 === 0 ? (["hms", "fs"] as const) : (["fs", "hms"] as const);
      for (const name of order) {
        const [ms, output] = await step(tools[name], command);
        runs[name].times.push(ms);
        if (kind === "view_file") runs[name].views.set(i, output as string);
      }
    }
    const sum = (times: number[]) => times.reduce((a, b) => a + b, 0);
    return {
      hms: { ...runs.hms, total: sum(runs.hms.times), files: await hmsFiles(memory) },
      fs: { ...runs.fs, total: sum(runs.fs.times), files: await filesystemFiles(fsDir) },
    };
  } finally {
    await memory.close();
    rmSync(hmsDir, { recursive: true, force: true });
    rmSync(fsDir, { recursive: true, force: true });
  }
}

async function hmsFiles(memory: HolographicMemoryTool): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await memory.backend.list("/memories/")) {
    files[entry.path] = (await memory.backend.read(entry.path))?.content ?? "";
  }
  return files;
}

async function filesystemFiles(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const root = join(dir, "memories");
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    files[`/memories/${relative(root, full)}`] = readFileSync(full, "utf8");
  }
  return files;
}

/** The filesystem tool numbers an empty last line for a file's final newline; ours does not. */
function withoutFinalEmptyLine(view: string): string {
  return view.replace(/\n *\d+\t$/, "");
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] as number;
}

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(2));

function checkSame(trace: TraceStep[], hms: Run, fs: Run): void {
  let compared = 0;
  for (const [i, view] of hms.views) {
    const other = withoutFinalEmptyLine(fs.views.get(i) ?? "");
    if (view !== other) {
      throw new Error(
        `step ${i} (${JSON.stringify(trace[i]?.command)}): the views differ\n--- hms\n${view}\n--- filesystem\n${other}`,
      );
    }
    compared++;
  }
  const a = JSON.stringify(Object.entries(hms.files).sort());
  const b = JSON.stringify(Object.entries(fs.files).sort());
  if (a !== b) throw new Error("the final files differ between the two tools");
  console.log(
    `sanity: ${compared} file views identical in both tools, and the ${Object.keys(hms.files).length} final files identical`,
  );
}

async function coldConnect(): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < COLD; i++) {
    const dir = mkdtempSync(join(BASE, "bench-cold-"));
    try {
      const t0 = performance.now();
      const memory = await HolographicMemoryTool.connect({ connection: hmsMcp(dir) });
      await memory.view({ command: "view", path: "/memories" });
      samples.push(performance.now() - t0);
      await memory.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return samples;
}

async function main(): Promise<void> {
  const trace = generateTrace({ seed: SEED, length: LENGTH });
  const kinds = [...new Set(trace.map((step) => step.kind))] as CommandKind[];
  console.log(
    `memory-tool: ${LENGTH} commands (seed ${SEED}), ${ROUNDS} rounds, stores under ${BASE}, Node ${process.version}`,
  );
  const hmsRuns: Run[] = [];
  const fsRuns: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { hms, fs } = await runBoth(trace);
    checkSame(trace, hms, fs);
    hmsRuns.push(hms);
    fsRuns.push(fs);
    console.log(`round ${round + 1}: hms ${ms(hms.total)} ms, filesystem ${ms(fs.total)} ms`);
  }

  console.log("\nper command kind, all rounds (ms):");
  console.log("kind          count   hms p50   hms p99    fs p50    fs p99   p50 ratio");
  for (const kind of kinds) {
    const pick = (runs: Run[]) =>
      runs
        .flatMap((run) =>
          trace.flatMap((step, i) => (step.kind === kind ? [run.times[i] as number] : [])),
        )
        .sort((a, b) => a - b);
    const h = pick(hmsRuns);
    const f = pick(fsRuns);
    console.log(
      `${kind.padEnd(12)} ${String(h.length / ROUNDS).padStart(6)} ${ms(percentile(h, 50)).padStart(9)} ${ms(percentile(h, 99)).padStart(9)} ${ms(percentile(f, 50)).padStart(9)} ${ms(percentile(f, 99)).padStart(9)} ${(percentile(h, 50) / percentile(f, 50)).toFixed(2).padStart(11)}`,
    );
  }
  const hmsTotal = median(hmsRuns.map((run) => run.total));
  const fsTotal = median(fsRuns.map((run) => run.total));
  console.log(
    `\ntotal (median of ${ROUNDS}): hms ${ms(hmsTotal)} ms, filesystem ${ms(fsTotal)} ms; ratio hms/filesystem = ${(hmsTotal / fsTotal).toFixed(2)}`,
  );

  if (COLD > 0) {
    const cold = await coldConnect();
    console.log(
      `cold connect (spawn + initialize + first view /memories), median of ${COLD}: ${ms(median(cold))} ms (min ${ms(Math.min(...cold))}, max ${ms(Math.max(...cold))})`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
