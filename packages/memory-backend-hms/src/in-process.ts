/**
 * The in-process connection: hms-mcp's server started in this process (`connectInProcess` of
 * the `hms-mcp` package, an optional peer dependency loaded only here) and reached over the
 * MCP SDK's in-memory transport, so client and server still meet only over MCP.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { InProcessOptions as ServerOptions } from "hms-mcp";
import { HmsConnectionError, HmsMcpNotFoundError } from "./errors.js";

/**
 * Options of a server in this process: each is the `hms-mcp` flag named beside it, with the
 * same default and bounds (hms-mcp checks them, as it checks the flags). Give `dataDir` or
 * `databaseUrl`. HMS_MCP_* variables play no part.
 */
export interface InProcessOptions {
  /** `--data-dir`: the directory of the SQLite stores, shared with any other process using it. */
  readonly dataDir?: string | undefined;
  /** `--database-url`: keep every namespace in this PostgreSQL database instead. */
  readonly databaseUrl?: string | undefined;
  /** `--pg-pool-size`: most database connections (PostgreSQL; default 10). */
  readonly pgPoolSize?: number | undefined;
  /** `false` is `--no-migrate`: refuse a database whose schema is not up to date. */
  readonly migrate?: boolean | undefined;
  /** `--namespace`: the namespace of calls that name none (default `default`). */
  readonly namespace?: string | undefined;
  /** `--namespace-arg`: let every call name its namespace (the `namespace` option of connect). */
  readonly namespaceArg?: boolean | undefined;
  /** `--max-text-bytes`: the largest memory in UTF-8 bytes (default 32768). */
  readonly maxTextBytes?: number | undefined;
  /** `--max-open-namespaces`: most namespace stores kept open at once. */
  readonly maxOpenNamespaces?: number | undefined;
  /** `--max-namespaces`: most namespaces the data directory may hold (default: no bound). */
  readonly maxNamespaces?: number | undefined;
  /** `--busy-timeout`: how long a write waits for another process's lock, in ms (default 10000). */
  readonly busyTimeoutMs?: number | undefined;
  /** `--synchronous`: `full` (the default) fsyncs every commit; `normal` at checkpoints only. */
  readonly synchronous?: "full" | "normal" | undefined;
  /** `--keep-versions`: versions of each memory file the history keeps (0: all; default 100). */
  readonly keepVersions?: number | undefined;
  /** `--keep-days`: days the history keeps a version (0, the default: no age limit). */
  readonly keepDays?: number | undefined;
  /** `--model-dir`: the embedding model's directory, for hybrid recall (default: lexical). */
  readonly modelDir?: string | undefined;
  /** `--reembed`: replace the vectors of a store made by another model. */
  readonly reembed?: boolean | undefined;
  /** `--embed-workers`: embedding threads (hybrid recall). */
  readonly embedWorkers?: number | undefined;
  /** `--embed-threads`: CPU threads of each embedding worker (hybrid recall). */
  readonly embedThreads?: number | undefined;
  /** `--recall-wait`: longest a recall waits for this connection's writes to be embedded, in ms. */
  readonly recallWaitMs?: number | undefined;
  /** `--log-level`: the server's log on this process's stderr (default `info`; `silent`: none). */
  readonly logLevel?:
    | "fatal"
    | "error"
    | "warn"
    | "info"
    | "debug"
    | "trace"
    | "silent"
    | undefined;
  /** `--metrics-port`: serve Prometheus metrics at /metrics on this loopback port (0: any free one). */
  readonly metricsPort?: number | undefined;
}

// Declared again rather than imported, so that this package's published types never name
// hms-mcp, which a user of stdio or HTTP does not install. A compile error when they drift:
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<Required<InProcessOptions>, Required<ServerOptions>>;

/** How to install the optional peer, for messages. */
export const IN_PROCESS_HINT =
  "install it beside this package (`npm install hms-mcp`; it is an optional peer dependency, " +
  "needed only for connection.inProcess), or connect over stdio or HTTP instead";

/** A server started in this process: the client's end of its link, and how to stop it. */
export interface InProcessStart {
  readonly transport: Transport;
  /** Where the memories are, for messages. */
  readonly where: string;
  /** Lets the calls in flight finish, then closes the link and the stores. */
  close(): Promise<void>;
}

/**
 * Loads hms-mcp and starts its server in this process. Throws {@link HmsMcpNotFoundError}
 * when the package is not installed, and {@link HmsConnectionError} `CONNECTION_CLOSED` with
 * hms-mcp's reason when it refuses the options or cannot use the data directory.
 */
export async function startInProcess(options: InProcessOptions): Promise<InProcessStart> {
  const where =
    typeof options?.dataDir === "string"
      ? `hms-mcp in this process (data directory ${options.dataDir})`
      : "hms-mcp in this process";
  let hmsMcp: typeof import("hms-mcp");
  try {
    hmsMcp = await import("hms-mcp");
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/Cannot find (package|module) 'hms-mcp'/.test(message)) {
      throw new HmsMcpNotFoundError(
        `connection.inProcess runs the hms-mcp server in this process, and the hms-mcp ` +
          `package is not installed where this package can load it: ${IN_PROCESS_HINT}.`,
        { cause: error },
      );
    }
    throw new HmsConnectionError(
      "CONNECTION_CLOSED",
      `Could not start ${where}: the hms-mcp package failed to load: ${message}`,
      { cause: error },
    );
  }
  try {
    const server = await hmsMcp.connectInProcess(options);
    return { transport: server.transport, where, close: () => server.close() };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new HmsConnectionError("CONNECTION_CLOSED", `Could not start ${where}: ${message}`, {
      cause: error,
    });
  }
}
