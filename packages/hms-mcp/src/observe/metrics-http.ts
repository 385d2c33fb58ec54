/**
 * Serving the metrics over HTTP: `/metrics` on the MCP listener, behind its token (with a
 * tokens file, a token granted `metrics`), or on a listener of its own (`--metrics-port`),
 * which asks no token and, on loopback, answers only to loopback Host names (so that a web
 * page cannot read it through DNS rebinding).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { ALL_ACCESS, type Grant } from "../auth/tokens.js";
import { isLoopback } from "../config/parse.js";
import { type HttpObserver, refuseHttp } from "./http.js";
import type { Meter } from "./meter.js";

/** Where the metrics are served. */
export const METRICS_PATH = "/metrics";

/** Answers a GET or HEAD with the metrics (405 otherwise). */
async function writeMetrics(req: IncomingMessage, res: ServerResponse, meter: Meter) {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD" }).end();
    return;
  }
  const { contentType, text } = await meter.scrape();
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : text);
}

/**
 * `/metrics` on the MCP listener, when it serves them (else false: not answered): 403 for a
 * Host it does not answer to, 401 without a known token, 403 for a token not granted
 * `metrics` (each refusal counted and logged as the MCP endpoint's are), else the metrics.
 * `authenticate` is the listener's (absent: it takes no tokens, and anyone may read them).
 */
export async function serveMetricsOnMcpListener(
  observer: HttpObserver & { readonly metricsOnMcpListener: boolean },
  req: IncomingMessage,
  res: ServerResponse,
  access: {
    readonly hostAllowed: boolean;
    readonly authenticate: ((authorization: string | undefined) => Grant | undefined) | undefined;
  },
): Promise<boolean> {
  const { meter } = observer;
  if (meter === undefined || !observer.metricsOnMcpListener) return false;
  if (!access.hostAllowed) {
    refuseHttp(observer, req, res, { reason: "host", status: 403 });
    res.writeHead(403).end();
    return true;
  }
  const grant = access.authenticate ? access.authenticate(req.headers.authorization) : ALL_ACCESS;
  if (grant === undefined) {
    refuseHttp(observer, req, res, { reason: "unauthenticated", status: 401 });
    res.writeHead(401, {
      "content-type": "application/json",
      "www-authenticate": 'Bearer realm="hms-mcp"',
    });
    res.end(JSON.stringify({ error: "unauthorized" }));
    return true;
  }
  if (grant.metrics !== true) {
    refuseHttp(observer, req, res, { reason: "metrics", status: 403, token: grant.name });
    res.writeHead(403, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        error: `token ${grant.name} may not read the metrics: give it "metrics": true in the tokens file (hms-mcp token create --metrics)`,
      }),
    );
    return true;
  }
  await writeMetrics(req, res, meter);
  return true;
}

/** A listener serving only the metrics (`--metrics-port`). */
export interface MetricsListener {
  /** The metrics' URL, with the port actually bound. */
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on `host`:`port` and serves `/metrics` there, nothing else, with no token. */
export async function startMetricsListener(
  meter: Meter,
  address: { readonly host: string; readonly port: number },
  log: Logger,
): Promise<MetricsListener> {
  let hosts: Set<string> | undefined;
  const http = createServer((req, res) => {
    const host = (req.headers.host ?? "").toLowerCase();
    if (hosts !== undefined && !hosts.has(host)) {
      res.writeHead(403).end();
      return;
    }
    if (new URL(req.url ?? "/", "http://localhost").pathname !== METRICS_PATH) {
      res.writeHead(404).end();
      return;
    }
    writeMetrics(req, res, meter).catch((error: unknown) => {
      log.error({ err: error }, "metrics: a scrape failed");
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(address.port, address.host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  const shown = address.host.includes(":") ? `[${address.host}]` : address.host;
  if (isLoopback(address.host)) {
    hosts = new Set(
      ["localhost", "127.0.0.1", "[::1]", shown.toLowerCase()].map((name) => `${name}:${port}`),
    );
  }
  return {
    url: `http://${shown}:${port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
