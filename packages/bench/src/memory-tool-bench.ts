/**
 * `pnpm bench memory-tool`: the fixed seeded trace of memory commands (`generateTrace`, seed 1,
 * 2,000 commands by default) through `HolographicMemoryTool` over stdio (a real hms-mcp
 * process and SQLite file) and through the SDK's `BetaLocalFilesystemMemoryTool` (files in a
 * directory), in the same run, on the same disk, step by step (each command runs on each
 * tool in turn, rotating which goes first). hms-mcp runs twice: as shipped
 * (`--synchronous full`: every commit fsynced) and with `--synchronous normal` (fsync at
 * checkpoints, about the filesystem tool's durability: it fsyncs file contents but not
 * renames, deletes or directories).
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
function hmsMcp(dataDir: string, extra: string[] = []): { command: string; args: string[] } {
  const bin =
    process.env.HMS_MCP_BIN ??
    resolve(dirname(createRequire(import.meta.url).resolve("hms-mcp/package.json")), "dist/cli.js");
  const args = ["--data-dir", dataDir, "--log-level", "warn", ...extra];
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

/** The tools compared, in the order of the report. */
const TOOLS = ["hms", "hms-normal", "fs"] as const;
type ToolName = (typeof TOOLS)[number];

/**
 * Runs the trace through every tool step by step, rotating which goes first at each step, so
 * all meet the same disk at the same moment (this machine's fsync times vary several-fold
 * from one second to the next, which would swamp a comparison of separate runs). `hms` is
 * hms-mcp as shipped (`--synchronous full`), `hms-normal` the same with `--synchronous normal`,
 * `fs` the SDK's filesystem tool.
 */
async function runAll(trace: TraceStep[]): Promise<Record<ToolName, Run>> {
  const dirs = {
    hms: mkdtempSync(join(BASE, "bench-hms-")),
    "hms-normal": mkdtempSync(join(BASE, "bench-hms-normal-")),
    fs: mkdtempSync(join(BASE, "bench-fs-")),
  };
  const full = await HolographicMemoryTool.connect({ connection: hmsMcp(dirs.hms) });
  const normal = await HolographicMemoryTool.connect({
    connection: hmsMcp(dirs["hms-normal"], ["--synchronous", "normal"]),
  });
  try {
    const filesystem = await BetaLocalFilesystemMemoryTool.init(dirs.fs);
    const tools: Record<ToolName, Handlers> = {
      hms: full as unknown as Handlers,
      "hms-normal": normal as unknown as Handlers,
      fs: filesystem as unknown as Handlers,
    };
    const runs = Object.fromEntries(
      TOOLS.map((name) => [name, { times: [] as number[], views: new Map<number, string>() }]),
    ) as Record<ToolName, { times: number[]; views: Map<number, string> }>;
    for (const [i, { kind, command }] of trace.entries()) {
      for (let k = 0; k < TOOLS.length; k++) {
        const name = TOOLS[(i + k) % TOOLS.length] as ToolName;
        const [ms, output] = await step(tools[name], command);
        runs[name].times.push(ms);
        if (kind === "view_file") runs[name].views.set(i, output as string);
      }
    }
    const sum = (times: number[]) => times.reduce((a, b) => a + b, 0);
    return {
      hms: { ...runs.hms, total: sum(runs.hms.times), files: await hmsFiles(full) },
      "hms-normal": {
        ...runs["hms-normal"],
        total: sum(runs["hms-normal"].times),
        files: await hmsFiles(normal),
      },
      fs: { ...runs.fs, total: sum(runs.fs.times), files: await filesystemFiles(dirs.fs) },
    };
  } finally {
    await full.close();
    await normal.close();
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
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

/** Checks that `hms` showed the same file views as `fs` and ended with the same files. */
function checkSame(trace: TraceStep[], hms: Run, fs: Run): number {
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
  return compared;
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
  console.log(
    "hms = HolographicMemoryTool over stdio, hms-mcp as shipped (--synchronous full); " +
      "hms-normal = the same with --synchronous normal; fs = the SDK's BetaLocalFilesystemMemoryTool",
  );
  const runs: Record<ToolName, Run[]> = { hms: [], "hms-normal": [], fs: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const result = await runAll(trace);
    const views = checkSame(trace, result.hms, result.fs);
    checkSame(trace, result["hms-normal"], result.fs);
    console.log(
      `sanity: ${views} file views identical in all three, and the ${Object.keys(result.fs.files).length} final files identical`,
    );
    for (const name of TOOLS) runs[name].push(result[name]);
    console.log(
      `round ${round + 1}: ${TOOLS.map((name) => `${name} ${ms(result[name].total)} ms`).join(", ")}`,
    );
  }

  const times = (name: ToolName, kind: CommandKind) =>
    runs[name]
      .flatMap((run) =>
        trace.flatMap((step, i) => (step.kind === kind ? [run.times[i] as number] : [])),
      )
      .sort((a, b) => a - b);
  console.log("\np50 / p99 per command kind, all rounds (ms); ratio = p50 / fs p50:");
  console.log(
    `${"kind".padEnd(12)}${"count".padStart(6)}${TOOLS.map((name) => `${name.padStart(16)}`).join("")}${"hms ratio".padStart(11)}${"normal ratio".padStart(14)}`,
  );
  for (const kind of kinds) {
    const cells = TOOLS.map((name) => {
      const t = times(name, kind);
      return `${ms(percentile(t, 50))} / ${ms(percentile(t, 99))}`.padStart(16);
    });
    const p50 = (name: ToolName) => percentile(times(name, kind), 50);
    console.log(
      `${kind.padEnd(12)}${String(times("fs", kind).length / ROUNDS).padStart(6)}${cells.join("")}${(p50("hms") / p50("fs")).toFixed(2).padStart(11)}${(p50("hms-normal") / p50("fs")).toFixed(2).padStart(14)}`,
    );
  }
  const total = (name: ToolName) => median(runs[name].map((run) => run.total));
  console.log(
    `\ntotal (median of ${ROUNDS}): ${TOOLS.map((name) => `${name} ${ms(total(name))} ms`).join(", ")}`,
  );
  console.log(
    `ratio to fs: hms ${(total("hms") / total("fs")).toFixed(2)}, hms-normal ${(total("hms-normal") / total("fs")).toFixed(2)}`,
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
