/**
 * What a server shows its operator beside its answers, opened with its runtime: the metrics
 * (when on; prom-client is loaded only then), the refusals' counted and rate-limited log, and
 * the metrics' own listener (`--metrics-port`).
 */
import type { Logger } from "pino";
import type { MetricsConfig } from "../config/operations-flags.js";
import { ConfigError } from "../config/parse.js";
import type { Meter } from "./meter.js";
import type { MeterSources } from "./metrics.js";
import { RefusalLog } from "./refusals.js";

export interface Observer {
  /** The metrics; undefined when they are off. */
  readonly meter: Meter | undefined;
  readonly refusals: RefusalLog;
  /** Whether the MCP listener (HTTP) serves /metrics: metrics on, and no --metrics-port. */
  readonly metricsOnMcpListener: boolean;
  /** The URL of the metrics' own listener (--metrics-port), when there is one. */
  readonly metricsUrl: string | undefined;
  /** Stops the metrics' listener and logs the refusal lines left out since the last count. */
  close(): Promise<void>;
}

/**
 * The observer of a server configured with `metrics` (undefined: the default of its
 * transport), reading `sources` at each scrape. Throws ConfigError when --metrics-port cannot
 * be listened on.
 */
export async function openObserver(
  metrics: MetricsConfig | undefined,
  transport: "stdio" | "http" | "in-process",
  sources: Omit<MeterSources, "perNamespace" | "totalsRefreshMs">,
): Promise<Observer> {
  const enabled = metrics?.enabled ?? transport === "http";
  let meter: Meter | undefined;
  if (enabled) {
    const { PromMeter } = await import("./metrics.js");
    meter = new PromMeter({
      ...sources,
      perNamespace: metrics?.perNamespace ?? false,
      totalsRefreshMs: metrics?.totalsRefreshMs ?? 300_000,
    });
  }
  const refusals = new RefusalLog(sources.log, meter && ((reason) => meter.refused(reason)));
  let listener: { readonly url: string; close(): Promise<void> } | undefined;
  if (meter !== undefined && metrics?.port !== undefined) {
    listener = await listenForMetrics(meter, metrics, sources.log);
  }
  return {
    meter,
    refusals,
    metricsOnMcpListener: meter !== undefined && listener === undefined,
    metricsUrl: listener?.url,
    async close() {
      refusals.flush();
      await listener?.close();
    },
  };
}

async function listenForMetrics(
  meter: Meter,
  metrics: MetricsConfig,
  log: Logger,
): Promise<{ readonly url: string; close(): Promise<void> }> {
  const { startMetricsListener } = await import("./metrics-http.js");
  const port = metrics.port as number;
  try {
    return await startMetricsListener(meter, { host: metrics.host, port }, log);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") {
      throw new ConfigError(
        `--metrics-port ${port} is already in use on ${metrics.host}; choose another, or 0 for any free port`,
      );
    }
    if (code === "EACCES" || code === "EADDRNOTAVAIL" || code === "ENOTFOUND") {
      throw new ConfigError(
        `cannot serve metrics on ${metrics.host}:${port} (${code}); choose another --metrics-host or --metrics-port`,
      );
    }
    throw error;
  }
}
