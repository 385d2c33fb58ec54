/**
 * The `hms` program (packages/hms-cli) under test, run as a user runs it: a child process
 * whose stdout and stderr are pipes (so not a terminal), in a clean environment.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { constants } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanEnv } from "./server-process.js";

const HMS_CLI_MANIFEST = fileURLToPath(new URL("../../hms-cli/package.json", import.meta.url));

/** The workspace build of `hms`, found through hms-cli's own `bin` field. */
export function hmsCliBin(): string {
  const { bin } = JSON.parse(readFileSync(HMS_CLI_MANIFEST, "utf8")) as {
    bin: Record<string, string>;
  };
  return resolve(dirname(HMS_CLI_MANIFEST), bin.hms as string);
}

/** What one run of `hms` printed and how it exited. */
export interface HmsRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `hms ...args` to its end; `env` is added to a clean environment. */
export function runHms(
  args: string[],
  env: Record<string, string> = {},
  options: { input?: string | Uint8Array; cwd?: string } = {},
): Promise<HmsRun> {
  return startHms(args, env, options).done;
}

/**
 * Starts `hms ...args` (stdin: `input`, else nothing) and gives the process, to signal it,
 * and its run once it has ended.
 */
export function startHms(
  args: string[],
  env: Record<string, string> = {},
  options: { input?: string | Uint8Array; cwd?: string } = {},
): { child: ChildProcess; done: Promise<HmsRun> } {
  const child = spawn(process.execPath, [hmsCliBin(), ...args], {
    env: cleanEnv(env),
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const done = new Promise<HmsRun>((resolveRun, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) =>
      resolveRun({
        code: code ?? (signal === null ? null : 128 + constants.signals[signal]),
        stdout,
        stderr,
      }),
    );
  });
  return { child, done };
}
