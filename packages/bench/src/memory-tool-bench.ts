/**
 * `pnpm bench memory-tool`: the fixed seeded trace of memory commands (`generateTrace`, seed 1,
 * 2,000 commands by default) through `HolographicMemoryTool` and through the SDK's
 * `BetaLocalFilesystemMemoryTool` (files in a directory), in the same run, on the same disk,
 * step by step (each command runs on each tool in turn, in a seeded random order). The
 * HolographicMemoryTool runs four ways: over stdio (a real hms-mcp process and SQLite file) and
 * in process (`connection: { inProcess }`: the same server in this process, over the MCP SDK's
 * in-memory transport), each as shipped (`synchronous` full: every commit fsynced) and with
 * `synchronous` normal (fsync at checkpoints, about the filesystem tool's durability: it fsyncs
 * file contents but not renames, deletes or directories).
 *
 * Reports p50/p99 latency per command kind for each, the total time of each and their ratio
 * to the filesystem tool, and the cold connect of the hms-mcp tool over stdio (spawn +
 * initialize + first `view /memories`, median of 20), interleaved with that of the floor
 * (`floor.ts`: the smallest MCP server on the same SDK, spawned, initialized and called once)
 * and reported as a ratio to it, and with the in-process open (connect on a new data
 * directory to the first answer; in this process, and as the first open of a new process,
 * which loads hms-mcp's modules). Sanity: every file view must show the same lines in every
 * tool (the filesystem tool adds an empty last line for a final newline; that line is dropped
 * before comparing), and the final files must be identical.
 *
 * With --metrics, two more hms-mcp tools run in the same steps: `hms-metrics` and
 * `inproc-metrics`, the `hms` and `inproc` servers with their metrics on (`--metrics-port 0`,
 * prom-client counting every call) and their access log at info (one line per request on
 * stderr: run the benchmark with `2>FILE` to keep them off the terminal; `--metrics-log warn`
 * leaves the access log off, to see the metrics' own cost). The report then
 * gives the cost of both as ratios: each one's total to its counterpart's without them, per
 * round, of the rounds' medians, and of the sums of all rounds.
 *
 * Options: --length N (default 2000), --seed N (default 1), --rounds N (default 3; 0 runs only
 * the cold connects), --cold N (default 20), --dir DIR (where the stores go; default the OS
 * temp directory), --compare BIN (another hms-mcp build whose cold connect is interleaved
 * too, e.g. an earlier one; repeatable), --metrics (the metrics and access log's cost, above),
 * --metrics-log LEVEL (the log level of the tools with metrics; default info).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs, promisify } from "node:util";
import { BetaLocalFilesystemMemoryTool } from "@anthropic-ai/sdk/tools/memory/node";
import { HolographicMemoryTool } from "holographic-memory-claude-tool";
import { floorConnect, loadClient, sdkFrom, writeFloorServer } from "./floor.js";
import { type CommandKind, generateTrace, random, type TraceStep } from "./trace.js";

const { values } = parseArgs({
  options: {
    length: { type: "string", default: "2000" },
    seed: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
    cold: { type: "string", default: "20" },
    dir: { type: "string", default: tmpdir() },
    compare: { type: "string", multiple: true, default: [] },
    metrics: { type: "boolean", default: false },
    "metrics-log": { type: "string", default: "info" },
  },
});
const LENGTH = Number(values.length);
const SEED = Number(values.seed);
const ROUNDS = Number(values.rounds);
const COLD = Number(values.cold);
/** The log level of the tools with metrics: info writes an access line per request. */
const METRICS_LOG = values["metrics-log"];
if (!["info", "warn"].includes(METRICS_LOG)) throw new Error("--metrics-log takes info or warn");
const BASE = resolve(values.dir);
/**
 * Other hms-mcp builds whose cold connect is interleaved with this one's (e.g. an older build),
 * relative to where `pnpm bench` was started (pnpm runs this in packages/bench).
 */
const COMPARE = values.compare.map((bin) => resolve(process.env.INIT_CWD ?? ".", bin));

type Handlers = Record<string, (command: unknown) => Promise<unknown>>;

const execFileAsync = promisify(execFile);

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

/** The tools compared, in the order of the report; `fs`, the baseline, last. */
const ALL_TOOLS = [
  "hms",
  "hms-metrics",
  "hms-normal",
  "inproc",
  "inproc-metrics",
  "inproc-normal",
  "fs",
] as const;
type ToolName = (typeof ALL_TOOLS)[number];
/** The tools of this run: those with metrics only with --metrics. */
const TOOLS: readonly ToolName[] = ALL_TOOLS.filter(
  (name) => values.metrics || !name.endsWith("-metrics"),
);
/** Each tool with metrics and its counterpart without. */
const METRICS_PAIRS = [
  ["hms-metrics", "hms"],
  ["inproc-metrics", "inproc"],
] as const;
/** The hms-mcp tools, each compared with `fs`. */
const HMS_TOOLS = TOOLS.filter((name) => name !== "fs") as Exclude<ToolName, "fs">[];

/** How each hms-mcp tool connects, on the data directory `dir`. */
function connectTool(name: Exclude<ToolName, "fs">, dir: string): Promise<HolographicMemoryTool> {
  const normal = name.endsWith("-normal");
  const metrics = name.endsWith("-metrics");
  if (name.startsWith("inproc")) {
    return HolographicMemoryTool.connect({
      connection: {
        inProcess: {
          dataDir: dir,
          logLevel: metrics ? (METRICS_LOG as "info" | "warn") : "warn",
          ...(normal ? { synchronous: "normal" } : {}),
          ...(metrics ? { metricsPort: 0 } : {}),
        },
      },
    });
  }
  const extra = [
    ...(normal ? ["--synchronous", "normal"] : []),
    // The later --log-level wins over hmsMcp's warn.
    ...(metrics ? ["--metrics-port", "0", "--log-level", METRICS_LOG] : []),
  ];
  return HolographicMemoryTool.connect({ connection: hmsMcp(dir, extra) });
}

/**
 * Runs the trace through every tool step by step, so all meet the same disk at the same moment
 * (this machine's fsync times vary several-fold from one second to the next, which would swamp
 * a comparison of separate runs), in a new seeded random order at each step, so each tool
 * follows every other alike: in a fixed order shifted by one each step, `inproc-normal` always
 * came right after `inproc`, whose same code in the same process left it warm, and its reads
 * took about 60% of the time `inproc`'s took (view_dir p50 0.18-0.20 against 0.31-0.33 ms;
 * shuffled, both 0.30). `hms` is
 * hms-mcp over stdio as shipped (`--synchronous full`), `hms-normal` the same with
 * `--synchronous normal`, `inproc` and `inproc-normal` the same two servers run in this
 * process (`connection: { inProcess }`), `fs` the SDK's filesystem tool.
 */
async function runAll(trace: TraceStep[]): Promise<Record<ToolName, Run>> {
  const dirs = Object.fromEntries(
    TOOLS.map((name) => [name, mkdtempSync(join(BASE, `bench-${name}-`))]),
  ) as Record<ToolName, string>;
  const memories = new Map<ToolName, HolographicMemoryTool>();
  try {
    for (const name of HMS_TOOLS) memories.set(name, await connectTool(name, dirs[name]));
    const filesystem = await BetaLocalFilesystemMemoryTool.init(dirs.fs);
    const tools = Object.fromEntries(
      TOOLS.map((name) => [name, (memories.get(name) ?? filesystem) as unknown as Handlers]),
    ) as Record<ToolName, Handlers>;
    const runs = Object.fromEntries(
      TOOLS.map((name) => [name, { times: [] as number[], views: new Map<number, string>() }]),
    ) as Record<ToolName, { times: number[]; views: Map<number, string> }>;
    const shuffle = random(SEED);
    for (const [i, { kind, command }] of trace.entries()) {
      for (const name of shuffled(TOOLS, shuffle)) {
        const [ms, output] = await step(tools[name], command);
        runs[name].times.push(ms);
        if (kind === "view_file") runs[name].views.set(i, output as string);
      }
    }
    const sum = (times: number[]) => times.reduce((a, b) => a + b, 0);
    const result = {} as Record<ToolName, Run>;
    for (const name of TOOLS) {
      const memory = memories.get(name);
      result[name] = {
        ...runs[name],
        total: sum(runs[name].times),
        files: memory ? await hmsFiles(memory) : await filesystemFiles(dirs.fs),
      };
    }
    return result;
  } finally {
    for (const memory of memories.values()) await memory.close();
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
  }
}

/** `items` in a random order drawn from `rand` (Fisher-Yates). */
function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
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
 * One open of an in-process tool in this process (hms-mcp's modules loaded by an earlier
 * one): connect on a new data directory and answer the first `view /memories`.
 */
async function inProcessOpen(): Promise<number> {
  const dir = mkdtempSync(join(BASE, "bench-open-"));
  try {
    const t0 = performance.now();
    const memory = await HolographicMemoryTool.connect({
      connection: { inProcess: { dataDir: dir, logLevel: "warn" } },
    });
    await memory.view({ command: "view", path: "/memories" });
    const elapsed = performance.now() - t0;
    await memory.close();
    return elapsed;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The first in-process open of a new Node process that has imported the tool (as an
 * application does at start) but not yet hms-mcp: the same open, with hms-mcp's modules
 * loaded by it. The child times itself, from connect to the first answer.
 */
function writeFirstOpenScript(dir: string): string {
  const source = `const { HolographicMemoryTool } = await import(${JSON.stringify(import.meta.resolve("holographic-memory-claude-tool"))});
const t0 = performance.now();
const memory = await HolographicMemoryTool.connect({
  connection: { inProcess: { dataDir: process.argv[2], logLevel: "warn" } },
});
await memory.view({ command: "view", path: "/memories" });
const open = performance.now() - t0;
await memory.close();
process.stdout.write(JSON.stringify({ open }));
`;
  const file = join(dir, "first-open.mjs");
  writeFileSync(file, source);
  return file;
}

async function firstInProcessOpen(script: string): Promise<number> {
  const dir = mkdtempSync(join(BASE, "bench-first-open-"));
  try {
    const { stdout } = await execFileAsync(process.execPath, [script, dir]);
    return (JSON.parse(stdout) as { open: number }).open;
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
    // The in-process opens, in the same rounds (their ratio to the floor is only for scale).
    const firstOpen = writeFirstOpenScript(floorDir);
    contenders.push(
      { name: "in-process", connect: inProcessOpen, samples: [] },
      { name: "in-process 1st", connect: () => firstInProcessOpen(firstOpen), samples: [] },
    );
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
  const runs = Object.fromEntries(TOOLS.map((name) => [name, [] as Run[]])) as Record<
    ToolName,
    Run[]
  >;
  for (let round = 0; round < ROUNDS; round++) {
    const result = await runAll(trace);
    let views = 0;
    for (const name of HMS_TOOLS) views = checkSame(trace, result[name], result.fs);
    console.log(
      `sanity: ${views} file views identical in all ${TOOLS.length}, and the ${Object.keys(result.fs.files).length} final files identical`,
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
    `${"kind".padEnd(12)}${"count".padStart(6)}${TOOLS.map((name) => `${name.padStart(16)}`).join("")}  ratio ${HMS_TOOLS.join(" / ")}`,
  );
  for (const kind of kinds) {
    const cells = TOOLS.map((name) => {
      const t = times(name, kind);
      return `${ms(percentile(t, 50))} / ${ms(percentile(t, 99))}`.padStart(16);
    });
    const p50 = (name: ToolName) => percentile(times(name, kind), 50);
    const ratios = HMS_TOOLS.map((name) => (p50(name) / p50("fs")).toFixed(2)).join(" / ");
    console.log(
      `${kind.padEnd(12)}${String(times("fs", kind).length / ROUNDS).padStart(6)}${cells.join("")}  ${ratios}`,
    );
  }
  const total = (name: ToolName) => median(runs[name].map((run) => run.total));
  console.log(
    `\ntotal (median of ${ROUNDS}): ${TOOLS.map((name) => `${name} ${ms(total(name))} ms`).join(", ")}`,
  );
  console.log(
    `ratio to fs: ${HMS_TOOLS.map((name) => `${name} ${(total(name) / total("fs")).toFixed(2)}`).join(", ")}`,
  );
  if (values.metrics) {
    console.log(
      `\nmetrics${METRICS_LOG === "info" ? " and access log" : ""} on / off (total time; > 1: slower with them): per round, of the medians, of all rounds' sums:`,
    );
    const sum = (name: ToolName) => runs[name].reduce((all, run) => all + run.total, 0);
    for (const [on, off] of METRICS_PAIRS) {
      const rounds = runs[on].map((run, i) => (run.total / (runs[off][i] as Run).total).toFixed(3));
      console.log(
        `${on} / ${off}: ${rounds.join(", ")}; medians ${(total(on) / total(off)).toFixed(3)}; ` +
          `all rounds ${(sum(on) / sum(off)).toFixed(3)}`,
      );
    }
  }
}

async function main(): Promise<void> {
  console.log(
    `memory-tool: ${LENGTH} commands (seed ${SEED}), ${ROUNDS} rounds, stores under ${BASE}, Node ${process.version}`,
  );
  console.log(
    "hms = HolographicMemoryTool over stdio, hms-mcp as shipped (--synchronous full); " +
      "hms-normal = the same with --synchronous normal; inproc, inproc-normal = the same two " +
      "servers in this process (connection: { inProcess }); fs = the SDK's " +
      "BetaLocalFilesystemMemoryTool",
  );
  if (values.metrics) {
    console.log(
      "hms-metrics, inproc-metrics = hms and inproc with metrics on (--metrics-port 0) and " +
        (METRICS_LOG === "info" ? "the access log at info" : "the log at warn (no access log)"),
    );
  }
  if (ROUNDS > 0) await traceBench();

  if (COLD > 0) {
    const results = await coldConnects();
    const floor = median(
      (results.find((result) => result.name === "floor") as (typeof results)[0]).samples,
    );
    const [hms] = results;
    const cold = hms?.samples ?? [];
    console.log(
      `\ncold connect (spawn + initialize + first view /memories), median of ${COLD}: ${ms(median(cold))} ms (min ${ms(Math.min(...cold))}, max ${ms(Math.max(...cold))})`,
    );
    console.log(
      "cold connects interleaved (hms-mcp and compare: spawn, initialize, stats, view /memories; " +
        "floor: spawn, initialize, one call; in-process: connect in this process on a new " +
        "data directory, initialize, stats, view /memories; in-process 1st: the same as the " +
        "first open of a new process that has imported the tool, loading hms-mcp), ms:",
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
