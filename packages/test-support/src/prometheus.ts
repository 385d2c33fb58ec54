/**
 * A real Prometheus (Debian's `prometheus` package) for the tests that scrape hms-mcp: its own
 * generated configuration, a temporary storage directory and a free loopback port, and queries
 * through its HTTP API.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./postgres.js";
import { exited } from "./server-process.js";

/** Where the prometheus binary is: HMS_PROMETHEUS, else Debian's. */
export function prometheusBin(): string {
  const bin = process.env.HMS_PROMETHEUS ?? "/usr/bin/prometheus";
  if (!existsSync(bin)) {
    throw new Error(
      `no prometheus at ${bin}: install Debian's package (apt-get install -y prometheus; ` +
        "scripts/setup.sh does as root) or set HMS_PROMETHEUS",
    );
  }
  return bin;
}

/** A running Prometheus. */
export interface PrometheusServer {
  /** Its HTTP API's base, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** The value of `expr` now (an instant query), or undefined when it has no sample. */
  query(expr: string): Promise<number | undefined>;
  /** Its scrape targets' health, by job. */
  targets(): Promise<{ job: string; health: string; lastError: string }[]>;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Stops it and removes its files. */
  stop(): Promise<void>;
}

/**
 * Starts Prometheus scraping `target` (`host:port`) every second at `path`, sending
 * `bearerToken` when given (from a file, as an operator would keep it).
 */
export async function startPrometheus(options: {
  target: string;
  path: string;
  bearerToken?: string;
}): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), "hms-prometheus-"));
  const tokenFile = join(dir, "token");
  const auth =
    options.bearerToken === undefined
      ? []
      : ["    authorization:", "      type: Bearer", `      credentials_file: ${tokenFile}`];
  if (options.bearerToken !== undefined) writeFileSync(tokenFile, options.bearerToken);
  writeFileSync(
    join(dir, "prometheus.yml"),
    [
      "global:",
      "  scrape_interval: 1s",
      "  scrape_timeout: 1s",
      "scrape_configs:",
      "  - job_name: hms",
      `    metrics_path: ${options.path}`,
      ...auth,
      "    static_configs:",
      `      - targets: ["${options.target}"]`,
      "",
    ].join("\n"),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    prometheusBin(),
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited(child);
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready once its API answers (or failed if it exits first).
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited with ${child.exitCode}:\n${stderr}`);
    }
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const api = async (path: string) => {
    const response = await fetch(`${url}/api/v1/${path}`);
    const body = (await response.json()) as { status: string; data: unknown; error?: string };
    if (body.status !== "success") throw new Error(`prometheus ${path}: ${body.error}`);
    return body.data;
  };
  return {
    url,
    async query(expr) {
      const data = (await api(`query?query=${encodeURIComponent(expr)}`)) as {
        result: { value: [number, string] }[];
      };
      const value = data.result[0]?.value[1];
      return value === undefined ? undefined : Number(value);
    },
    async targets() {
      const data = (await api("targets")) as {
        activeTargets: { labels: { job: string }; health: string; lastError: string }[];
      };
      return data.activeTargets.map((target) => ({
        job: target.labels.job,
        health: target.health,
        lastError: target.lastError,
      }));
    },
    stderr: () => stderr,
    stop,
  };
}
