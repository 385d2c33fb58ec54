/**
 * The flags of what an operator watches: the Prometheus metrics (`/metrics`). Over HTTP the
 * MCP listener serves them, behind the token (`--no-metrics`: not at all); `--metrics-port`
 * serves them on a listener of their own instead, without a token, on loopback unless
 * `--metrics-host` says otherwise (then `--allow-remote` too), and is the only way to have
 * them over stdio or in process.
 */
import { type Command, Option } from "commander";
import { ConfigError, flagOrEnv, integer, isLoopback } from "./parse.js";

/** Default of `--metrics-totals-refresh`, in seconds. */
export const DEFAULT_METRICS_TOTALS_REFRESH_S = 300;

/** The metrics a server collects and where it serves them. */
export interface MetricsConfig {
  /** Whether metrics are collected at all: over HTTP unless --no-metrics; else with a port. */
  readonly enabled: boolean;
  /** A listener of their own (`--metrics-port`); undefined: the MCP listener's /metrics. */
  readonly port: number | undefined;
  /** The address of that listener (`--metrics-host`). */
  readonly host: string;
  /** Series per namespace (`--metrics-per-namespace`). */
  readonly perNamespace: boolean;
  /** How old the store's totals may get before a scrape counts them again, in ms. */
  readonly totalsRefreshMs: number;
}

/** The metrics flags as commander parsed them. */
export interface MetricsOptions {
  /** False with --no-metrics. */
  metrics: boolean;
  metricsPort?: number;
  metricsHost?: string;
  metricsPerNamespace?: boolean;
  metricsTotalsRefresh: number;
}

/** Adds the metrics flags to `command`. */
export function addOperationsFlags(command: Command): Command {
  return command
    .addOption(
      new Option(
        "--no-metrics",
        "metrics: do not collect metrics, and answer /metrics with 404 (env: HMS_MCP_NO_METRICS=1)",
      ),
    )
    .addOption(
      new Option(
        "--metrics-port <port>",
        "metrics: serve /metrics on this port instead, with no token (0 picks a free one); " +
          "the only way to have metrics over stdio",
      )
        .env("HMS_MCP_METRICS_PORT")
        .argParser(integer(0, 65535)),
    )
    .addOption(
      new Option(
        "--metrics-host <address>",
        "metrics: the address of --metrics-port (default: 127.0.0.1); beyond loopback it " +
          "also needs --allow-remote",
      ).env("HMS_MCP_METRICS_HOST"),
    )
    .addOption(
      new Option(
        "--metrics-per-namespace",
        "metrics: also each namespace's memories and bytes, one series each per namespace " +
          "(env: HMS_MCP_METRICS_PER_NAMESPACE=1)",
      ),
    )
    .addOption(
      new Option(
        "--metrics-totals-refresh <s>",
        "metrics: the store's totals (hms_memories, hms_store_bytes...) are counted again at " +
          "a scrape once older than this; counting reads every namespace",
      )
        .env("HMS_MCP_METRICS_TOTALS_REFRESH")
        .default(DEFAULT_METRICS_TOTALS_REFRESH_S)
        .argParser(integer(1, 86_400)),
    );
}

/**
 * The metrics configuration from the parsed flags, with the checks between them: a
 * non-loopback --metrics-host needs --allow-remote, and what needs metrics on refuses
 * --no-metrics or a transport without them.
 */
export function resolveMetrics(
  options: MetricsOptions,
  env: NodeJS.ProcessEnv,
  transport: "stdio" | "http",
  allowRemote: boolean,
): MetricsConfig {
  const off = !options.metrics || flagOrEnv(undefined, env, "HMS_MCP_NO_METRICS");
  const perNamespace = flagOrEnv(options.metricsPerNamespace, env, "HMS_MCP_METRICS_PER_NAMESPACE");
  const host = options.metricsHost?.trim();
  const given = [
    options.metricsPort === undefined ? undefined : "--metrics-port",
    host === undefined ? undefined : "--metrics-host",
    perNamespace ? "--metrics-per-namespace" : undefined,
  ].filter((flag) => flag !== undefined);
  if (off && given.length > 0) {
    throw new ConfigError(
      `${given.join(" and ")} ${given.length === 1 ? "configures" : "configure"} the metrics, ` +
        "and --no-metrics (HMS_MCP_NO_METRICS) turns them off: drop one or the other",
    );
  }
  if (host !== undefined && options.metricsPort === undefined) {
    throw new ConfigError(
      "--metrics-host (HMS_MCP_METRICS_HOST) is the address of --metrics-port: add --metrics-port",
    );
  }
  if (host === "") throw new ConfigError("--metrics-host must not be empty");
  if (host !== undefined && !isLoopback(host) && !allowRemote) {
    throw new ConfigError(
      `refusing to serve metrics on ${host}: it is not a loopback address, and --metrics-port ` +
        "asks no token; add --allow-remote to serve them beyond this machine, or keep the " +
        "default 127.0.0.1",
    );
  }
  if (perNamespace && transport === "stdio" && options.metricsPort === undefined) {
    throw new ConfigError(
      "--metrics-per-namespace needs the metrics, which a stdio server serves only on " +
        "--metrics-port: add --metrics-port",
    );
  }
  return {
    enabled: !off && (transport === "http" || options.metricsPort !== undefined),
    port: options.metricsPort,
    host: host ?? "127.0.0.1",
    perNamespace,
    totalsRefreshMs: options.metricsTotalsRefresh * 1000,
  };
}
