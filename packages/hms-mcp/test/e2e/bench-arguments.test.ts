/**
 * The benchmarks refuse an argument they do not take before any work (bench/support.mjs,
 * `checkArguments`): a misspelt option used to be ignored, and the benchmark ran for minutes on
 * its default (`--memory 5000` gave a 100,000-memory run of recall-by-time).
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const BENCH = fileURLToPath(new URL("../../bench/", import.meta.url));

/** Each benchmark file of this package that takes options, with its `pnpm bench` name. */
const BENCHES = {
  "recall-time.mjs": "recall-by-time",
  "notify-latency.mjs": "notify-latency",
  "perf.mjs": "server-perf",
  "cold-start.mjs": "cold-start",
  "distractors.mjs": "distractors",
  "scifact.mjs": "recall-quality",
  "tune-fusion.mjs": "tune-fusion",
  "embed-throughput.mjs": "embed-throughput",
  "backup.mjs": "backup",
};

/** Every attack `pnpm bench attack` runs: bench/attacks/<name>.mjs. */
const ATTACKS = readdirSync(`${BENCH}attacks`)
  .filter((file) => file.endsWith(".mjs"))
  .map((file) => file.slice(0, -".mjs".length));

/** The options an attack's file reads, as its refusal lists them ("--name VALUE"). */
function attackReads(source: string): Set<string> {
  const read = new Set<string>();
  const patterns = [
    /(?:flag|count)\(args, "([a-z-]+)"/g,
    /option\(\s*"([a-z-]+)"/g,
    /indexOf\("--([a-z-]+)"\)/g,
  ];
  for (const pattern of patterns)
    for (const m of source.matchAll(pattern)) read.add(m[1] as string);
  // parseArgs's options: each `name: { type: "string"` in the file.
  for (const m of source.matchAll(/^\s+"?([a-z-]+)"?: \{ type: "string"/gm))
    read.add(m[1] as string);
  // runAttack (http-attack.mjs) runs the build of --before too, with --after-args for this one.
  if (source.includes("runAttack(")) for (const name of ["before", "after-args"]) read.add(name);
  return new Set([...read].map((name) => `--${name} VALUE`));
}

/** Runs a benchmark file; one that does not refuse is stopped after 60 s (and fails). */
function run(file: string, args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [`${BENCH}${file}`, ...args], { cwd: BENCH });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

// Each file starts a node process that loads the benchmark's modules: 0.3 s on a quiet machine,
// 2-3 s each at load 15 (CI's suites side by side).
describe("the benchmarks' arguments", { timeout: 240_000 }, () => {
  it("every benchmark refuses an option it does not take, with exit 2, before any work", async () => {
    const results = await Promise.all(
      Object.entries(BENCHES).map(async ([file, name]) => ({
        name,
        ...(await run(file, ["--no-such-option", "1"])),
      })),
    );
    for (const { name, status, stdout, stderr } of results) {
      expect(status, name).toBe(2);
      expect(stdout, name).toBe("");
      expect(stderr, name).toMatch(
        new RegExp(`^pnpm bench ${name}: --no-such-option is not one of its options\\. It takes `),
      );
      expect(stderr, name).toContain(`pnpm bench ${name} --help`);
    }
  });

  it("each benchmark takes every option its file reads, so its list cannot drift from its code", async () => {
    for (const [file, name] of Object.entries(BENCHES)) {
      const source = readFileSync(`${BENCH}${file}`, "utf8");
      const read = new Set(
        [...source.matchAll(/option\(\s*"([a-z-]+)"/g)].map((m) => `--${m[1]} VALUE`),
      );
      // scifactDir() (support.mjs) reads --data.
      if (source.includes("scifactDir()")) read.add("--data VALUE");
      for (const m of source.matchAll(/argv\.includes\("--([a-z-]+)"\)/g)) {
        if (m[1] !== "help") read.add(`--${m[1]}`);
      }
      const { stderr } = await run(file, ["--no-such-option"]);
      const takes = stderr.match(/It takes (.*) \(pnpm bench/)?.[1]?.split(", ") ?? [];
      expect(new Set(takes), name).toEqual(read);
    }
  });

  it("every attack refuses an option it does not take, with exit 2, before it starts", async () => {
    expect(ATTACKS).toEqual(expect.arrayContaining(["growth", "slow-bodies", "big-answers"]));
    const results = await Promise.all(
      ATTACKS.map(async (name) => ({
        name,
        ...(await run("attack.mjs", [name, "--no-such-option", "1"])),
      })),
    );
    for (const { name, status, stdout, stderr } of results) {
      const source = readFileSync(`${BENCH}attacks/${name}.mjs`, "utf8");
      expect(status, name).toBe(2);
      expect(stdout, name).toBe("");
      expect(stderr, name).toMatch(
        new RegExp(`^pnpm bench attack ${name}: --no-such-option is not one of its options\\. `),
      );
      expect(stderr, name).toContain(`pnpm bench attack ${name} --help`);
      // What it says it takes is what its file reads (big-answers: a size, by position).
      const takes = stderr.match(/It takes (.*) \(pnpm bench/)?.[1]?.split(", ") ?? [];
      const read = attackReads(source);
      if (source.includes("args[0]")) read.add("[bytes]");
      expect(new Set(takes), name).toEqual(read);
    }
    // A plain value is taken where an attack takes one, and refused after it.
    const extra = await run("attack.mjs", ["big-answers", "1024", "2048"]);
    expect(extra.status).toBe(2);
    expect(extra.stderr).toMatch(/^pnpm bench attack big-answers: "2048" is not an option\./);
    const misspelt = await run("attack.mjs", ["growth", "--cycle", "5"]);
    expect(misspelt.status).toBe(2);
    expect(misspelt.stderr).toMatch(
      /^pnpm bench attack growth: --cycle is not one of its options\. It takes --cycles VALUE, --keep VALUE /,
    );
  });

  it("an attack's --help prints the comment that opens its file, and starts nothing", async () => {
    const help = await run("attack.mjs", ["lock-wait", "--hold", "5", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stderr).toBe("");
    expect(help.stdout).toMatch(/^pnpm bench attack lock-wait\n\nLock wait: another process/);
    expect(help.stdout).not.toMatch(/^\/\//m);
  });

  it("says to write an option and its value apart, and that an option needs its value", async () => {
    const joined = await run("recall-time.mjs", ["--memories=5000"]);
    expect(joined.status).toBe(2);
    expect(joined.stderr).toMatch(
      /^pnpm bench recall-by-time: write --memories and its value apart \(--memories 5000\)\./,
    );
    expect(joined.stderr).toContain("--memories VALUE, --queries VALUE");

    const bare = await run("perf.mjs", ["--lexical-only", "--sizes"]);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(/^pnpm bench server-perf: --sizes needs a value\./);

    const word = await run("notify-latency.mjs", ["--no-postgres", "fast"]);
    expect(word.status).toBe(2);
    expect(word.stderr).toMatch(/^pnpm bench notify-latency: "fast" is not an option\./);
  });
});
