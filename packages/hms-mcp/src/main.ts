import type { Logger } from "pino";
import { Tokens, TokensFileError } from "./auth/tokens.js";
import { watchTokens } from "./auth/watch.js";
import { type Config, ConfigError } from "./config/config.js";
import type { HttpEndpoint } from "./http/server.js";
import { createAccessLogger, createLogger } from "./log.js";
import { connectServer } from "./mcp/connect.js";
import { createMcpServer } from "./mcp/server.js";
import { LineTransport } from "./mcp/stdio.js";
import { closeRuntime, openRuntime, type Runtime } from "./runtime/runtime.js";

/** The largest message a client may send, over either transport, in bytes. */
function maxMessageBytes(config: Config): number {
  // JSON may escape each character of the text as \uXXXX (6 bytes), plus the envelope.
  return config.maxTextBytes * 6 + 1024 * 1024;
}

/** A started server. */
export interface RunningServer {
  /** The HTTP endpoint's URL, when serving HTTP. */
  readonly url: string | undefined;
  /** The web inspector's URL, when it is served (`--ui`). */
  readonly uiUrl: string | undefined;
  /** Where the metrics are served: the HTTP listener's /metrics, or --metrics-port's. */
  readonly metricsUrl: string | undefined;
  /** Refuses new calls, lets calls in flight finish, closes connections and stores. */
  close(): Promise<void>;
  /**
   * Stdio: resolves once every request received so far has been answered, so that a client
   * that closed its input still gets the answers of what it sent (call before `close`).
   */
  answered(): Promise<void>;
}

/**
 * Starts hms-mcp with `config`: loads the embedding model when there is one (hybrid recall),
 * opens the default namespace's store (so a broken data directory fails at start, not at the
 * first call) and serves stdio or HTTP. Throws ConfigError, whose message says what to do, when
 * the tokens file is not valid, the model cannot be loaded, the store's vectors come from
 * another model, the data directory cannot be used or the address cannot be listened on.
 */
export async function startServer(
  config: Config,
  log: Logger = createLogger(config.logLevel),
  accessLog: Logger = createAccessLogger(config.logLevel),
): Promise<RunningServer> {
  if (config.transport === "in-process") {
    throw new ConfigError(
      "an in-process configuration has no transport to serve; connectInProcess starts it",
    );
  }
  const tokens = loadTokens(config);
  const runtime = await openRuntime(config, log, accessLog);

  let endpoint: HttpEndpoint | undefined;
  let closeStdio: (() => Promise<void>) | undefined;
  let answered = () => Promise.resolve();
  if (config.transport === "http") {
    // The HTTP stack (node:http, the SDK's streamable HTTP transport and what it brings) is
    // loaded only here: a server on stdio, the common case, starts without it.
    const { startHttp } = await import("./http/server.js");
    endpoint = await listening(config, runtime, () =>
      startHttp(runtime, {
        host: config.host,
        port: config.port,
        path: config.path,
        tokens: tokens.required ? tokens : undefined,
        allowedOrigins: config.allowedOrigins,
        allowedHosts: config.allowedHosts,
        ui: config.ui === true,
        sessionsPerSecond: config.http?.maxNewSessionsPerSecond,
        maxBodyBytes: maxMessageBytes(config),
        sessions: {
          total: config.http?.maxSessions,
          perClient: config.http?.maxSessionsPerToken,
          idleMs: config.http?.sessionIdleMs,
        },
        requests: {
          inFlightTotal: config.http?.maxInFlight,
          inFlightPerClient: config.http?.maxInFlightPerToken,
          bufferedBytes: config.http?.maxUnreadBytes,
        },
        deadlines: {
          headersMs: config.http?.headersTimeoutMs,
          requestMs: config.http?.requestTimeoutMs,
        },
        maxConnectionsPerPeer: config.http?.maxConnectionsPerPeer,
      }),
    );
  } else {
    const server = createMcpServer(runtime);
    const transport = new LineTransport({ maxLineBytes: maxMessageBytes(config), log });
    await connectServer(server, transport);
    closeStdio = () => server.close();
    answered = () => transport.answered();
  }

  // Watched once serving, so a server that failed to start leaves no watcher behind.
  const stopWatching =
    config.tokensFile === undefined ? undefined : watchTokens(tokens, config.tokensFile, log);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stopWatching?.();
      await runtime.calls.stop();
      await endpoint?.close();
      await closeStdio?.();
      await closeRuntime(runtime);
    })();
    return closing;
  };
  const { observe } = runtime;
  const metricsUrl =
    observe.metricsOnMcpListener && endpoint !== undefined
      ? new URL("/metrics", endpoint.url).href
      : observe.metricsUrl;
  return { url: endpoint?.url, uiUrl: endpoint?.uiUrl, metricsUrl, close, answered };
}

/** The tokens of `config`; a tokens file that is not valid is a ConfigError (one line). */
function loadTokens(config: Config): Tokens {
  try {
    return new Tokens({ token: config.token, tokensFile: config.tokensFile });
  } catch (error) {
    if (error instanceof TokensFileError) throw new ConfigError(`--tokens-file: ${error.message}`);
    throw error;
  }
}

/** Starts listening; an address that cannot be used is a ConfigError that says what to do. */
async function listening<T>(config: Config, runtime: Runtime, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const where = `${config.host}:${config.port}`;
    const code = (error as NodeJS.ErrnoException).code;
    const advice: Record<string, string> = {
      EADDRINUSE: `port ${config.port} is already in use on ${config.host} (another hms-mcp?); choose another with --port, or --port 0 for any free port`,
      EACCES: `cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose --port 1024 or higher, or --port 0`,
      EADDRNOTAVAIL: `cannot listen on ${where}: ${config.host} is not an address of this machine; choose another --host`,
      ENOTFOUND: `cannot listen on ${where}: the host name ${config.host} does not resolve; choose another --host`,
    };
    const message = code === undefined ? undefined : advice[code];
    if (message === undefined) throw error;
    await closeRuntime(runtime);
    throw new ConfigError(message);
  }
}
