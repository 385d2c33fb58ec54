// `pnpm bench` itself (the repository's scripts/bench.mjs, which runs every package's
// benchmarks): what it lists, and that `--help` describes a benchmark without running it.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const script = join(fileURLToPath(new URL(".", import.meta.url)), "../../../scripts/bench.mjs");

function bench(...args: string[]) {
  const run = spawnSync(process.execPath, [script, ...args], {
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The benchmark names `pnpm bench` lists, one per line after the usage line. */
function listed(): string[] {
  return bench()
    .stdout.split("\n")
    .slice(2)
    .filter((line) => line.trim() !== "")
    .map((line) => line.trim().split(/\s+/)[0] as string);
}

// Each test starts node processes (one per benchmark in the last): about 0.1 s each on a quiet
// machine, 0.5 s and more while the other suites run beside these.
describe("pnpm bench", { timeout: 120_000 }, () => {
  it("lists every benchmark with a line on what it measures, and exits 0", () => {
    const { status, stdout } = bench();
    expect(status).toBe(0);
    expect(stdout).toMatch(/^usage: pnpm bench <name> \[args\.\.\.\]/);
    expect(listed()).toEqual(expect.arrayContaining(["memory-tool", "recall-by-time", "attack"]));
    expect(bench("--help").stdout).toBe(stdout);
  });

  it("refuses a name it does not know on stderr, with the list, and exits 2", () => {
    const { status, stdout, stderr } = bench("memory-tools");
    expect(status).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^pnpm bench: no benchmark named "memory-tools"\n/);
    expect(stderr).toContain("recall-by-time");
    // A name from Object's prototype is not a benchmark either.
    expect(bench("constructor").status).toBe(2);
  });

  it("refuses an option a benchmark's parseArgs does not take in one line, not a stack trace", () => {
    // Before, node printed ERR_PARSE_ARGS_UNKNOWN_OPTION's stack (scripts/bench-arguments.mjs).
    for (const name of ["history-cost", "memory-tool"]) {
      const { status, stderr } = bench(name, "--no-such-option", "1");
      expect(status, name).not.toBe(0);
      expect(stderr, name).toContain(
        `pnpm bench ${name}: Unknown option '--no-such-option'. (pnpm bench ${name} --help says what it takes.)`,
      );
      expect(stderr, name).not.toContain("at parseArgs");
    }
  });

  it("prints what a benchmark measures and takes for --help, from its file, and runs nothing", () => {
    // Before, `pnpm bench memory-tool --help` ran the benchmark, whose argument parser threw
    // ERR_PARSE_ARGS_UNKNOWN_OPTION; recall-by-time ignored the flag and ran for minutes.
    const memoryTool = bench("memory-tool", "--help");
    expect(memoryTool.status).toBe(0);
    expect(memoryTool.stderr).toBe("");
    expect(memoryTool.stdout).toMatch(/^pnpm bench memory-tool: /);
    expect(memoryTool.stdout).toContain("Options: --length N (default 2000)");
    expect(memoryTool.stdout).not.toContain("/**");

    const recall = bench("recall-by-time", "--seed", "3", "-h");
    expect(recall.status).toBe(0);
    expect(recall.stdout).toContain("pnpm bench recall-by-time [--memories 100000]");
    expect(recall.stdout).not.toMatch(/^\/\//m);

    // `attack` answers for itself once an attack is named: that attack's comment, not its own.
    const attack = bench("attack", "namespaces", "--help");
    expect(attack.status).toBe(0);
    expect(attack.stdout).toMatch(/^pnpm bench attack namespaces\n/);
    expect(attack.stdout).toContain("`pnpm bench attack namespaces [--calls N]`");
    expect(bench("attack", "--help").stdout).toContain("pnpm bench attack <name> [args...]");

    for (const name of listed()) {
      const help = bench(name, "--help");
      expect(help.status, name).toBe(0);
      // The opening comment of the benchmark's file: several lines of text.
      expect(help.stdout.split("\n").length, name).toBeGreaterThan(3);
    }
  });
});
