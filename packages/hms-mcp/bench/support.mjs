// Shared helpers for hms-mcp benchmarks: spawn the built server, time calls, summarize.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { quantile } from "@hms/test-support";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

// BEIR files, nDCG@10 and nearest-rank quantiles, shared with the other packages' benchmarks.
export { ndcgAt10, quantile, readJsonl, readQrels } from "@hms/test-support";

export const BIN =
  process.env.HMS_MCP_BIN ?? resolve(dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");

/** A temporary data directory, removed by the returned function. */
export function tempDir(name) {
  const dir = mkdtempSync(join(tmpdir(), `hms-bench-${name}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Spawns hms-mcp (the build at `bin`) over stdio and connects the official MCP client. */
export async function spawnServer(dataDir, args = [], bin = BIN) {
  return spawnServerOn({ dataDir }, args, bin);
}

/**
 * As {@link spawnServer}, on either engine: `{ dataDir }` (SQLite) or `{ databaseUrl }`
 * (PostgreSQL, `--database-url`).
 */
export async function spawnServerOn(target, args = [], bin = BIN) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("HMS_MCP_")) delete env[name];
  const store =
    target.databaseUrl !== undefined
      ? ["--database-url", target.databaseUrl]
      : ["--data-dir", target.dataDir];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...store, "--log-level", "warn", ...args],
    env,
    stderr: "inherit",
  });
  const client = new Client({ name: "hms-mcp-bench", version: "0" });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

/** Calls a tool; throws on a tool error. Returns the structured content. */
export async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${result.content?.[0]?.text}`);
  return result.structuredContent;
}

/** Times `fn` once, in milliseconds. */
export async function time(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

export function summarize(values) {
  return {
    n: values.length,
    p50_ms: round(quantile(values, 0.5)),
    p99_ms: round(quantile(values, 0.99)),
    mean_ms: round(values.reduce((a, b) => a + b, 0) / values.length),
  };
}

export function round(value, digits = 3) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Resident set size of a process, in MiB (Linux /proc). */
export function rssMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
    const peak = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
    return { rss_mib: round(kb / 1024, 1), peak_rss_mib: round(peak / 1024, 1) };
  } catch {
    return { rss_mib: null, peak_rss_mib: null };
  }
}

/** Runs `task(item)` over `items` with at most `concurrency` in flight. */
export async function pool(items, concurrency, task) {
  let next = 0;
  const workers = Array.from({ length: concurrency }, async () => {
    while (next < items.length) {
      const item = items[next++];
      await task(item);
    }
  });
  await Promise.all(workers);
}

/**
 * Refuses, before any work and with exit code 2, an argument that is not one of the bench's:
 * `--name value` for each of `options`, `--name` alone for each of `flags`, and up to one plain
 * value for each of `positional` (names, for the message) before them. `option` reads only the
 * names it is asked for, so a misspelt one would be ignored and the bench would run for minutes
 * on its default. `argv` is the process's arguments unless given (an attack's, after its name).
 */
export function checkArguments(
  bench,
  options,
  flags = [],
  { argv = process.argv.slice(2), positional = [] } = {},
) {
  const takes = [
    ...positional.map((name) => `[${name}]`),
    ...options.map((name) => `--${name} VALUE`),
    ...flags.map((name) => `--${name}`),
  ];
  const refuse = (why) => {
    console.error(
      `pnpm bench ${bench}: ${why}. It takes ${takes.join(", ") || "no arguments"} ` +
        `(pnpm bench ${bench} --help says what each does).`,
    );
    process.exit(2);
  };
  let values = 0;
  while (values < positional.length && values < argv.length && !argv[values].startsWith("--")) {
    values++;
  }
  for (let i = values; i < argv.length; i++) {
    const arg = argv[i];
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    if (name !== undefined && flags.includes(name)) continue;
    if (name !== undefined && options.includes(name)) {
      if (i + 1 >= argv.length) refuse(`--${name} needs a value`);
      i++;
      continue;
    }
    const [before] = (name ?? "").split("=");
    if (name?.includes("=") && options.includes(before)) {
      refuse(
        `write --${before} and its value apart (--${before} ${name.slice(before.length + 1)})`,
      );
    }
    refuse(
      name === undefined
        ? `${JSON.stringify(arg)} is not an option`
        : `--${name} is not one of its options`,
    );
  }
}

/** Reads a flag value: `--name value` from argv, else the environment variable, else a default. */
export function option(name, envName, fallback) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf(`--${name}`);
  if (at !== -1 && argv[at + 1] !== undefined) return argv[at + 1];
  return process.env[envName] ?? fallback;
}

/**
 * Where BEIR SciFact is: `--data DIR`, else `HMS_SCIFACT_DIR`, else the first
 * `shared/data/scifact` found beside the repository or above it (the data is read in place,
 * never copied into the repository).
 */
export function scifactDir() {
  const given = option("data", "HMS_SCIFACT_DIR", undefined);
  if (given !== undefined) {
    const missing = SCIFACT_FILES.filter((file) => !existsSync(join(given, file)));
    if (missing.length > 0) scifactMissing(`in ${resolve(given)} (no ${missing.join(", no ")})`);
    return given;
  }
  for (
    let dir = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
    ;
    dir = dirname(dir)
  ) {
    const candidate = join(dir, "shared", "data", "scifact");
    if (existsSync(join(candidate, "corpus.jsonl"))) return candidate;
    if (dirname(dir) === dir) {
      scifactMissing(
        "(no --data, no HMS_SCIFACT_DIR, and no shared/data/scifact beside the repository or above it)",
      );
    }
  }
}

/** What the SciFact benchmarks read, under the data folder. */
const SCIFACT_FILES = ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "qrels/train.tsv"];

/** Says where to get SciFact and what the folder must hold, then exits with status 2. */
function scifactMissing(where) {
  console.error(
    [
      `SciFact not found ${where}.`,
      "This benchmark reads BEIR's SciFact, which is not in this repository. Download it from",
      "BEIR's public dataset archive and unzip it:",
      "  curl -LO https://public.ukp.informatik.tu-darmstadt.de/thakur/BEIR/datasets/scifact.zip",
      "  unzip scifact.zip",
      'then pass the folder it makes by its absolute path, --data "$PWD/scifact" (a relative path',
      "is taken from packages/hms-mcp, where pnpm runs the benchmark), or set HMS_SCIFACT_DIR.",
      "The folder holds corpus.jsonl, queries.jsonl, qrels/test.tsv and qrels/train.tsv.",
    ].join("\n"),
  );
  process.exit(2);
}
