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
 * median of 20), interleaved with that of the floor (`floor.ts`: the smallest MCP server on the
 * same SDK, spawned, initialized and called once) and reported as a ratio to it. Sanity: every
 * file view must show the same lines in both (the filesystem tool adds an empty last line for
 * a final newline; that line is dropped before comparing), and the final files must be
 * identical.
 *
 * Options: --length N (default 2000), --seed N (default 1), --rounds N (default 3; 0 runs only
 * the cold connects), --cold N (default 20), --dir DIR (where the stores go; default the OS
 * temp directory), --compare BIN (another hms-mcp build whose cold connect is interleaved
 * too, e.g. an earlier one; repeatable).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { BetaLocalFilesystemMemoryTool } from "@anthropic-ai/sdk/tools/memory/node";
import { HolographicMemoryTool } from "holographic-memory-claude-tool";
import { floorConnect, loadClient, sdkFrom, writeFloorServer } from "./floor.js";
import { type CommandKind, generateTrace, type TraceStep } from "./trace.js";

const { values } = parseArgs({
  options: {
    length: { type: "string", default: "2000" },
    seed: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
    cold: { type: "string", default: "20" },
    dir: { type: "string", default: tmpdir() },
    compare: { type: "string", multiple: true, default: [] },
  },
});
const LENGTH = Number(values.length);
const SEED = Number(values.seed);
const ROUNDS = Number(values.rounds);
const COLD = Number(values.cold);
const BASE = resolve(values.dir);
/**
 * Other hms-mcp builds whose cold connect is interleaved with this one's (e.g. an older build),
 * relative to where `pnpm bench` was started (pnpm runs this in packages/bench).
 */
const COMPARE = values.compare.map((bin) => resolve(process.env.INIT_CWD ?? ".", bin));

type Handlers = Record<string, (command: unknown) => Promise<unknown>>;

const require = createRequire(import.meta.url);
/** hms-mcp's package.json, and that of the client package the memory tool connects with. */
const HMS_MCP_PACKAGE = require.resolve("hms-mcp/package.json");
const CLIENT_PACKAGE = createRequire(require.resolve("holographic-memory-claude-tool")).resolve(
  "@hms/memory-backend-hms",
);

/** The hms-mcp to start: `bin`, else HMS_MCP_BIN, else this workspace's build. */
function hmsMcp(
  dataDir: string,
  extra: string[] = [],
  bin = process.env.HMS_MCP_BIN ?? resolve(dirname(HMS_MCP_PACKAGE), "dist/cli.js"),
): { command: string; args: string[] } {
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

/** One cold connect of the hms-mcp at `bin`: spawn, initialize, first `view /memories`. */
async function hmsColdConnect(bin: string | undefined): Promise<number> {
  const dir = mkdtempSync(join(BASE, "bench-cold-"));
  try {
    const t0 = performance.now();
    const memory = await HolographicMemoryTool.connect({ connection: hmsMcp(dir, [], bin) });
    await memory.view({ command: "view", path: "/memories" });
    const elapsed = performance.now() - t0;
    await memory.close();
    return elapsed;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The cold connects, interleaved: at each of COLD rounds, hms-mcp (this workspace's build, or
 * HMS_MCP_BIN), each `--compare` build and the floor connect once each, rotating which goes
 * first, so all of them meet the same machine load (other jobs on this machine swing start
 * times by tens of percent within seconds, which would swamp separate runs).
 */
async function coldConnects(): Promise<{ name: string; samples: number[] }[]> {
  const floorDir = mkdtempSync(join(BASE, "bench-floor-"));
  try {
    const serverSdk = sdkFrom(HMS_MCP_PACKAGE);
    const clientSdk = sdkFrom(CLIENT_PACKAGE);
    const floorServer = writeFloorServer(floorDir, serverSdk.dir);
    const client = await loadClient(clientSdk.dir);
    console.log(
      `floor = the smallest MCP server on the SDK hms-mcp loads (${serverSdk.dir}, ` +
        `version ${serverSdk.version}): one file, one tool, stdio, spawned with node; ` +
        `initialized and called once by the SDK client the hms-mcp backend uses (version ${clientSdk.version})`,
    );
    const contenders: { name: string; connect: () => Promise<number>; samples: number[] }[] = [
      { name: "hms-mcp", connect: () => hmsColdConnect(undefined), samples: [] },
      ...COMPARE.map((bin, i) => ({
        name: `compare ${i + 1}`,
        connect: () => hmsColdConnect(bin),
        samples: [] as number[],
      })),
      { name: "floor", connect: () => floorConnect(client, floorServer), samples: [] },
    ];
    for (const [i, bin] of COMPARE.entries()) console.log(`compare ${i + 1} = ${bin}`);
    for (let round = 0; round < COLD; round++) {
      for (let k = 0; k < contenders.length; k++) {
        const contender = contenders[(round + k) % contenders.length] as (typeof contenders)[0];
        contender.samples.push(await contender.connect());
      }
    }
    return contenders;
  } finally {
    rmSync(floorDir, { recursive: true, force: true });
  }
}

/** The trace through every tool, ROUNDS times: sanity checks, latency per kind, totals. */
async function traceBench(): Promise<void> {
  const trace = generateTrace({ seed: SEED, length: LENGTH });
  const kinds = [...new Set(trace.map((step) => step.kind))] as CommandKind[];
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
}

async function main(): Promise<void> {
  console.log(
    `memory-tool: ${LENGTH} commands (seed ${SEED}), ${ROUNDS} rounds, stores under ${BASE}, Node ${process.version}`,
  );
  console.log(
    "hms = HolographicMemoryTool over stdio, hms-mcp as shipped (--synchronous full); " +
      "hms-normal = the same with --synchronous normal; fs = the SDK's BetaLocalFilesystemMemoryTool",
  );
  if (ROUNDS > 0) await traceBench();

  if (COLD > 0) {
    const results = await coldConnects();
    const floor = median((results.at(-1) as (typeof results)[0]).samples);
    const [hms] = results;
    const cold = hms?.samples ?? [];
    console.log(
      `\ncold connect (spawn + initialize + first view /memories), median of ${COLD}: ${ms(median(cold))} ms (min ${ms(Math.min(...cold))}, max ${ms(Math.max(...cold))})`,
    );
    console.log(
      "cold connects interleaved (hms-mcp and compare: spawn, initialize, stats, view /memories; " +
        "floor: spawn, initialize, one call), ms:",
    );
    console.log(
      `${"".padEnd(12)}${["median", "p90", "min", "max"].map((h) => h.padStart(9)).join("")}${"/ floor".padStart(10)}`,
    );
    for (const { name, samples } of results) {
      const sorted = [...samples].sort((a, b) => a - b);
      const cells = [50, 90, 0, 100].map((p) =>
        ms(p === 0 ? (sorted[0] as number) : percentile(sorted, p)).padStart(9),
      );
      console.log(
        `${name.padEnd(12)}${cells.join("")}${(median(samples) / floor).toFixed(2).padStart(10)}`,
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
