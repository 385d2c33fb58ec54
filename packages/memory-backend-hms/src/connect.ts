import { PROTOCOL_VERSION, statedProtocolVersion } from "@hms/protocol";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import packageJson from "../package.json" with { type: "json" };
import { HmsMemoryBackend, type HmsSession } from "./backend.js";
import { CONNECTION_LOST, HmsConnectionError, HmsMcpError } from "./errors.js";
import { findHmsMcp, HMS_MCP_COMMAND, INSTALL_HINT, serverEnvironment } from "./find-server.js";
import { type InProcessOptions, startInProcess } from "./in-process.js";
import { reviveWatches } from "./revive.js";
import { describeStderr, StderrTail } from "./stderr-tail.js";
import { moveWatches } from "./watch.js";

/** Start an hms-mcp process and talk MCP over its stdin and stdout. */
export interface StdioConnection {
  /**
   * The program: a path, a name looked up on PATH, or `"hms-mcp"`, which is found as with no
   * connection (`HMS_MCP_BIN`, the application's `node_modules`, then PATH; see
   * `findHmsMcp`), `args` coming after that program's own.
   */
  command: string;
  args?: readonly string[];
  /**
   * Variables added to the server's environment. It also gets a few safe variables of this
   * process (`PATH`, `HOME`, ...) and every `HMS_MCP_*` one except `HMS_MCP_TOKEN` and
   * `HMS_MCP_BIN`.
   */
  env?: Record<string, string>;
  /** The server's working directory (default: this process's). */
  cwd?: string;
  /**
   * What happens to the server's log on its stderr: shown on this process's stderr (the
   * default) or dropped. Either way a failed connect quotes its last lines. The server logs at
   * `warn` unless `HMS_MCP_LOG_LEVEL` (here or in `env`) or `--log-level` says otherwise.
   */
  stderr?: "inherit" | "ignore";
}

/** Use a running `hms-mcp --transport http` over streamable HTTP. */
export interface HttpConnection {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8765/mcp`. */
  url: string | URL;
  /** Sent as `Authorization: Bearer <token>`; defaults to the `HMS_MCP_TOKEN` variable. */
  token?: string;
  /** More HTTP headers to send with every request. */
  headers?: Record<string, string>;
}

/**
 * Run hms-mcp's server in this process and talk MCP to it over the SDK's in-memory transport:
 * the same tools, limits, history and store files as a server over stdio, without the process
 * and the pipe. Needs the `hms-mcp` package installed (an optional peer dependency, loaded only
 * for this connection).
 */
export interface InProcessConnection {
  /** The server's options, each one of hms-mcp's flags: `{ dataDir }` at least. */
  inProcess: InProcessOptions;
}

/**
 * Where hms-mcp is: a server to start ({@link StdioConnection}), one to reach
 * ({@link HttpConnection}), or one to run in this process ({@link InProcessConnection}).
 */
export type HmsConnection = StdioConnection | HttpConnection | InProcessConnection;

/** Options of {@link connectHmsBackend}. */
export interface ConnectHmsBackendOptions {
  /**
   * Default: start `HMS_MCP_BIN`, else `hms-mcp` in node_modules (the project's, else beside
   * this package), else on PATH, over stdio (see `findHmsMcp`).
   * `{ inProcess: { dataDir } }` runs the server in this process instead.
   */
  connection?: HmsConnection;
  /** The store to use, on a server started with `--namespace-arg` (one per user or agent). */
  namespace?: string;
  /** Lowers the server's `max_text_bytes` for this client; it can never raise it. */
  maxFileBytes?: number;
  /** How long one call may wait for the server, in ms (default 60000). */
  timeoutMs?: number;
  /**
   * How long the first answers may take while connecting (MCP's initialize, and the `stats`
   * that reads the server's limits), in ms (default: `timeoutMs`). A server that accepts the
   * connection and never answers fails with an HmsConnectionError of code `TIMEOUT` then.
   */
  connectTimeoutMs?: number;
}

/** Time a call may wait for hms-mcp before it fails, in ms. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** How long a failed connect waits for the rest of the server's stderr, in ms. */
const STDERR_END_WAIT_MS = 2000;

/** What a failed connect says when the server's stdout closed: it has stopped. */
export const SERVER_ENDED = "the server process ended while connecting.";

/**
 * Connects to hms-mcp (starting it, or reaching it over HTTP), checks that it speaks this
 * client's protocol version, reads its size limit, and returns a backend over it.
 * Close it with `backend.close()` (which also stops a server process it started).
 */
export async function connectHmsBackend(
  options: ConnectHmsBackendOptions = {},
): Promise<HmsMemoryBackend> {
  const { connection, namespace } = options;
  const timeoutMs = positive("timeoutMs", options.timeoutMs) ?? DEFAULT_TIMEOUT_MS;
  const connectTimeoutMs = positive("connectTimeoutMs", options.connectTimeoutMs) ?? timeoutMs;
  const maxFileBytes = positive("maxFileBytes", options.maxFileBytes);
  if (namespace !== undefined && (typeof namespace !== "string" || namespace === "")) {
    throw new TypeError("namespace must be a non-empty string");
  }

  const { session, serverLog } = await openSession(connection, connectTimeoutMs);
  try {
    const probe = new HmsMemoryBackend(session, { namespace, serverMaxFileBytes: 1 });
    let stats: Awaited<ReturnType<typeof probe.stats>>;
    try {
      stats = await probe.stats();
    } catch (error) {
      // A server we started that cannot carry out its first call (no node:sqlite in this
      // Node, a store it cannot open) says why only in its log: hand its last words on.
      const log = serverLog === undefined ? "" : await serverLog(session);
      if (log === "" || !HmsMcpError.isInstance(error) || !(error instanceof Error)) throw error;
      throw new HmsMcpError(error.code, `${error.message}${log}`, { cause: error });
    }
    if (!Number.isSafeInteger(stats.max_text_bytes) || stats.max_text_bytes < 1) {
      throw new HmsMcpError("PROTOCOL", `${session.where} gave no max_text_bytes in stats`);
    }
    session.timeoutMs = timeoutMs;
    return new HmsMemoryBackend(session, {
      namespace,
      serverMaxFileBytes: stats.max_text_bytes,
      maxFileBytes,
    });
  } catch (error) {
    session.closedReason ??= "The connection to hms-mcp failed while connecting.";
    await session.close();
    throw error;
  }
}

/**
 * A session with the server, and for a server process it started, how to read the end of its
 * log: it closes the session (stopping the server) and gives what describeStderr makes of the
 * last lines the server wrote.
 */
async function openSession(
  connection: HmsConnection | undefined,
  timeoutMs: number,
): Promise<{ session: HmsSession; serverLog?: (session: HmsSession) => Promise<string> }> {
  const client = newClient();
  let transport: Transport;
  let reopen: (() => Promise<{ client: Client; end: () => Promise<void> }>) | undefined;
  let where: string;
  let stderr: { tail: StderrTail; ended: Promise<void> } | undefined;
  let pid: () => number | undefined = () => undefined;
  let endSession: () => Promise<void> = async () => {};
  let stdioCommand: string | undefined;
  let stopServer: (() => Promise<void>) | undefined;
  if (connection !== undefined && "inProcess" in connection) {
    if ("command" in connection || "url" in connection) {
      throw new TypeError(
        "give one of connection.command (start a server), connection.url (reach one) or " +
          "connection.inProcess (run one in this process)",
      );
    }
    const server = await startInProcess(connection.inProcess);
    transport = server.transport;
    where = server.where;
    // The server lets its calls in flight finish, then closes the link and its stores.
    stopServer = () => server.close();
    endSession = stopServer;
  } else if (connection !== undefined && "url" in connection && connection.url !== undefined) {
    if ("command" in connection) {
      throw new TypeError(
        "give either connection.command (start a server) or connection.url, not both",
      );
    }
    const url = new URL(connection.url);
    // Never in a message: a user name and password given in the URL. They are refused:
    // hms-mcp reads a Bearer token from the Authorization header, the one basic auth needs.
    const shown = new URL(url.href);
    shown.username = "";
    shown.password = "";
    if (url.username !== "" || url.password !== "") {
      throw new TypeError(
        `connection.url ${shown.href.replace("//", "//***@")} carries a user name or password; ` +
          "hms-mcp takes a token: give it as connection.token (or HMS_MCP_TOKEN), and the URL without them",
      );
    }
    const token = connection.token ?? process.env.HMS_MCP_TOKEN;
    const headers: Record<string, string> = { ...connection.headers };
    if (token) headers.Authorization = `Bearer ${token}`;
    const http = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
    // Ending the session (HTTP DELETE) frees it on the server at once.
    endSession = () => http.terminateSession();
    transport = http;
    where = `hms-mcp at ${shown.href}`;
    const at = where;
    reopen = async () => {
      const fresh = newClient();
      const next = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
      await fresh.connect(next, { timeout: timeoutMs });
      try {
        checkProtocol(fresh, at);
      } catch (error) {
        await fresh.close().catch(() => undefined);
        throw error;
      }
      return { client: fresh, end: () => next.terminateSession() };
    };
  } else {
    const stdio = connection as StdioConnection | undefined;
    if (stdio !== undefined && (typeof stdio.command !== "string" || stdio.command === "")) {
      throw new TypeError(
        "connection needs a command (to start hms-mcp), a url (to reach one) or inProcess (to run one in this process)",
      );
    }
    // A bare "hms-mcp" is the application's hms-mcp: under plain `node` its node_modules/.bin
    // is not on PATH, so the name alone would not start it.
    const found =
      stdio === undefined || stdio.command === HMS_MCP_COMMAND ? findHmsMcp() : undefined;
    const server = found ?? (stdio as StdioConnection);
    const args = [...(found?.args ?? []), ...(stdio?.args ?? [])];
    stdioCommand = server.command;
    const stdioTransport = new StdioClientTransport({
      command: server.command,
      args,
      env: serverEnvironment(stdio?.env),
      cwd: stdio?.cwd,
      stderr: "pipe",
    });
    const inherit = stdio?.stderr !== "ignore";
    const tail = new StderrTail();
    const stream = stdioTransport.stderr;
    stream?.on("data", (chunk: Buffer) => {
      tail.push(chunk);
      if (inherit) process.stderr.write(chunk);
    });
    const ended = new Promise<void>((resolve) => {
      stream?.once("end", resolve);
      stream?.once("close", resolve);
    });
    stderr = { tail, ended };
    transport = stdioTransport;
    pid = () => stdioTransport.pid ?? undefined;
    where = `hms-mcp (${[server.command, ...args].join(" ")})`;
  }

  // Ends the search for a new session of watches whose event stream was lost (revive.ts).
  const closing = new AbortController();
  const session: HmsSession = {
    client,
    pid: undefined,
    timeoutMs,
    where,
    closedReason: undefined,
    close: async () => {
      closing.abort();
      await endSession().catch(() => undefined);
      await session.client.close();
    },
  };
  const watch = (watched: Client) => {
    watched.onclose = () => {
      if (session.client === watched) session.closedReason ??= CONNECTION_LOST;
    };
    if (reopen !== undefined) reviveWatches(session, watched, closing.signal);
  };
  watch(client);

  try {
    await client.connect(transport, { timeout: timeoutMs });
    session.pid = pid();
  } catch (error) {
    await client.close().catch(() => undefined);
    await stopServer?.().catch(() => undefined);
    const status = (error as { code?: unknown } | null)?.code;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      // It took the connection and never answered (not an HTTP status, whatever the code).
      throw new HmsConnectionError(
        "TIMEOUT",
        `Could not connect to ${where}: it did not answer within ${timeoutMs / 1000} seconds.`,
        { cause: error },
      );
    }
    const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
    const detail =
      closed && stderr !== undefined
        ? SERVER_ENDED
        : status === "ENOENT"
          ? `there is no program ${JSON.stringify(stdioCommand)} to start (ENOENT). ${INSTALL_HINT} ` +
            "and leave out connection, or give the program's full path as connection.command."
          : status === 401 || status === 403
            ? `it refused the request (HTTP ${status}): pass the server's token as connection.token ` +
              `or set HMS_MCP_TOKEN. (${error instanceof Error ? error.message : String(error)})`
            : error instanceof Error
              ? error.message
              : String(error);
    let log = "";
    if (stderr !== undefined) {
      // The server's last words may still be on their way through the pipe.
      await settle(stderr.ended, STDERR_END_WAIT_MS);
      log = describeStderr(stderr.tail.lines(), closed);
    }
    throw new HmsConnectionError(
      "CONNECTION_CLOSED",
      `Could not connect to ${where}: ${detail}${log}`,
      {
        cause: error,
      },
    );
  }

  // The protocol version, stated in the initialize answer: checked here, and again on a new
  // session after the server forgot this one.
  try {
    checkProtocol(client, where);
  } catch (error) {
    await session.close().catch(() => undefined); // over HTTP this also ends the session
    throw error;
  }
  if (reopen !== undefined) {
    const open = reopen;
    let pending: Promise<void> | undefined;
    session.reconnect = (stale) => {
      if (session.client !== stale) return Promise.resolve(); // another call did it
      pending ??= (async () => {
        try {
          const fresh = await open();
          session.client = fresh.client;
          endSession = fresh.end;
          watch(fresh.client);
          await stale.close().catch(() => undefined);
          // The old session's subscriptions ended with it. A subscription the new session
          // refuses leaves that watch quiet; the others go on.
          await moveWatches(stale, fresh.client).catch(() => undefined);
        } finally {
          pending = undefined;
        }
      })();
      return pending;
    };
  }
  if (stderr === undefined) return { session };
  const log = stderr;
  const serverLog = async (ended: HmsSession) => {
    await ended.close().catch(() => undefined);
    await settle(log.ended, STDERR_END_WAIT_MS);
    return describeStderr(log.tail.lines(), false);
  };
  return { session, serverLog };
}

/** Waits for `promise` to settle, or `ms` at most. */
async function settle(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([promise.catch(() => undefined), timeout]);
  clearTimeout(timer);
}

function newClient(): Client {
  return new Client({ name: packageJson.name, version: packageJson.version });
}

/** Refuses a server that does not state this client's protocol version at initialize. */
function checkProtocol(client: Client, where: string): void {
  const stated = statedProtocolVersion(client.getServerCapabilities()?.experimental);
  if (stated === PROTOCOL_VERSION) return;
  throw new HmsMcpError(
    "PROTOCOL",
    stated === undefined
      ? `${where} is not hms-mcp: it states no hms-mcp protocol version in its ` +
          `capabilities (this client needs protocol ${PROTOCOL_VERSION}).`
      : `${where} speaks hms-mcp protocol ${stated}; this client needs protocol ` +
          `${PROTOCOL_VERSION}. Install versions of hms-mcp and this package that match.`,
  );
}

function positive(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}
