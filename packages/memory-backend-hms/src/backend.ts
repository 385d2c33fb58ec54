import {
  type FileChange,
  type FileEntry,
  type HistoryOperations,
  type MemoryBackend,
  MemoryBackendError,
  type MemoryBackendErrorCode,
  type MemoryChange,
  type RecallHit,
  type RecallTimeRange,
  type StoredFile,
  type MAX_QUERY_BYTES as TOOL_MAX_QUERY_BYTES,
  type MAX_RECALL_K as TOOL_MAX_RECALL_K,
  type TreeOperations,
} from "@hms/memory-core";
import {
  ERROR_META_KEY,
  type ErrorDetails,
  isErrorCode,
  MAX_PAGE,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
  MEMORY_FILE_TAG,
  TOOLS,
  type ToolArguments,
  type ToolName,
  type ToolResult,
} from "@hms/protocol";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { COMMAND_META_KEY, currentCommand } from "./command-context.js";
import { CLOSED, CONNECTION_LOST, HmsConnectionError, HmsMcpError } from "./errors.js";
import { watchPath } from "./watch.js";

// The memory_recall tool (memory-core) must promise Claude exactly what hms-mcp serves: the
// limits are literal types, so this is a compile error when either side changes its own.
({ k: MAX_RECALL_K, query: MAX_QUERY_BYTES }) satisfies {
  k: typeof TOOL_MAX_RECALL_K;
  query: typeof TOOL_MAX_QUERY_BYTES;
};

/** hms-mcp's `stats` of a namespace, as the server sent it. */
export type HmsStats = ToolResult<"stats">;

/**
 * The connection every namespace view of one server shares: the MCP client and, once the
 * connection is gone, why.
 */
export interface HmsSession {
  /** The MCP client; replaced when {@link reconnect} opens a new session. */
  client: Client;
  /** Per-call time limit in ms (while connecting: the connect time limit). */
  timeoutMs: number;
  /** Where the server is, for messages (`hms-mcp ...` or a URL). */
  readonly where: string;
  /** The server process's id, when this session started it. */
  pid: number | undefined;
  /** Set once the connection is gone; every later call fails with it. */
  closedReason: string | undefined;
  /** Closes the connection (and stops a server process it started). */
  close(): Promise<void>;
  /**
   * HTTP only: opens a new MCP session in place of `stale` (the client a call found forgotten
   * by the server), unless another call already has; concurrent callers share one attempt.
   */
  reconnect?: (stale: Client) => Promise<void>;
}

/** Whether the server answered HTTP 404 for this client's session: it does not know it. */
function sessionForgotten(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

const ERROR_TEXT = /^([A-Z_]+): ([\s\S]*)$/;
const BACKEND_CODES = new Set<string>(["NOT_FOUND", "EXISTS", "VERSION_CONFLICT", "TOO_LARGE"]);

/**
 * A {@link MemoryBackend} over one MCP session with hms-mcp. Every memory file is one memory
 * with its path as key and the tag `memory-file`; versions are hms-mcp's integers, and every
 * write is a compare-and-set or a create-if-absent on the server. Nothing is cached: each
 * call reads the server's current state, so any number of writers can share a store. The
 * server's protocol version was checked at connect time, so its tree operations and recall
 * are there. Made by `connectHmsBackend`.
 */
export class HmsMemoryBackend implements MemoryBackend {
  /** The size limit in force: the server's `max_text_bytes`, or a lower one of the client's. */
  readonly maxFileBytes: number;
  /** The namespace every call names, or undefined for the server's own. */
  readonly namespace: string | undefined;
  /** The server's limit, from `stats` at connect time. */
  readonly serverMaxFileBytes: number;
  /**
   * Tree operations: `forget { key, tree: true }` and `move { from, to, tree: true }`, each one
   * transaction on the server, which also keeps memory files a well-formed tree on `remember`.
   */
  readonly tree: TreeOperations = {
    deleteTree: async (path) => (await this.call("forget", { key: path, tree: true })).deleted,
    moveTree: async (from, to) => (await this.call("move", { from, to, tree: true })).moved,
  };

  /**
   * The history hms-mcp keeps of every memory file: its `history` tool (a file's changes) and
   * `restore` (a version back, as a new version).
   */
  readonly history: HistoryOperations = {
    changes: async (path, limit) => {
      const answer = await this.call("history", {
        key: path,
        ...(limit === undefined ? {} : { limit }),
      });
      return answer.changes.map(
        (change): FileChange => ({
          op: change.op,
          path: change.key,
          fromPath: change.from_key,
          version: change.version,
          bytes: change.bytes,
          at: change.at,
          command: change.command,
          actor: change.actor,
        }),
      );
    },
    restore: async (path, version) => {
      const answer = await this.call("restore", { key: path, version });
      const restored = answer.restored[0];
      if (restored === undefined) {
        throw new HmsMcpError(
          "PROTOCOL",
          `hms-mcp restored nothing for ${path} at version ${version}`,
        );
      }
      return restored.version;
    },
  };

  readonly #session: HmsSession;
  readonly #clientMaxFileBytes: number | undefined;

  /**
   * @internal `connectHmsBackend` makes backends. Left out of the published types: the session
   * holds the MCP SDK's client, whose types need the DOM library and would bind every user to
   * our copy of the SDK.
   */
  constructor(
    session: HmsSession,
    options: { namespace?: string; serverMaxFileBytes: number; maxFileBytes?: number },
  ) {
    this.#session = session;
    this.namespace = options.namespace;
    this.serverMaxFileBytes = options.serverMaxFileBytes;
    this.#clientMaxFileBytes = options.maxFileBytes;
    this.maxFileBytes = Math.min(options.serverMaxFileBytes, options.maxFileBytes ?? Infinity);
  }

  /**
   * A backend over the same connection that names `namespace` in every call (on a server
   * started with `--namespace-arg`): one connection serves many users' or agents' stores.
   * It shares the connection, so closing either closes both.
   */
  forNamespace(namespace: string | undefined, options: { maxFileBytes?: number } = {}) {
    return new HmsMemoryBackend(this.#session, {
      namespace,
      serverMaxFileBytes: this.serverMaxFileBytes,
      maxFileBytes: options.maxFileBytes ?? this.#clientMaxFileBytes,
    });
  }

  /** The id of the server process this backend started (stdio), else undefined. */
  get pid(): number | undefined {
    return this.#session.pid;
  }

  /** Whether the connection is closed (by {@link close}, or because it was lost). */
  get closed(): boolean {
    return this.#session.closedReason !== undefined;
  }

  async read(path: string): Promise<StoredFile | null> {
    try {
      const record = await this.call("get", { key: path });
      return { content: record.text, version: record.version };
    } catch (error) {
      if (MemoryBackendError.isInstance(error, "NOT_FOUND")) return null;
      throw error;
    }
  }

  async list(prefix: string, limit?: number): Promise<FileEntry[]> {
    const entries: FileEntry[] = [];
    let cursor: string | undefined;
    for (;;) {
      const wanted = limit === undefined ? MAX_PAGE : Math.min(MAX_PAGE, limit - entries.length);
      const page = await this.call("list", {
        prefix,
        tag: MEMORY_FILE_TAG,
        limit: wanted,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const item of page.items) {
        entries.push({ path: item.key, bytes: item.bytes, version: item.version });
      }
      const next = page.next_cursor;
      if (next === null || (limit !== undefined && entries.length >= limit)) {
        return entries;
      }
      cursor = next;
    }
  }

  async create(path: string, content: string): Promise<number> {
    const result = await this.call("remember", {
      key: path,
      text: content,
      tags: [MEMORY_FILE_TAG],
      if_absent: true,
    });
    return result.version;
  }

  async update(path: string, content: string, expectedVersion: number | string): Promise<number> {
    const result = await this.call("remember", {
      key: path,
      text: content,
      expected_version: versionNumber(expectedVersion),
    });
    return result.version;
  }

  async delete(path: string, expectedVersion?: number | string): Promise<void> {
    await this.call(
      "forget",
      expectedVersion === undefined
        ? { key: path }
        : { key: path, expected_version: versionNumber(expectedVersion) },
    );
  }

  /**
   * The memory files most relevant to `query`, best first, at most `k` (1 to 50): hms-mcp's
   * `recall` restricted to the `memory-file` tag, and with `range` to files last changed in it
   * (`modified_after`, `modified_before`). Each hit carries the file's last change.
   */
  async recall(query: string, k: number, range: RecallTimeRange = {}): Promise<RecallHit[]> {
    const { modifiedAfter, modifiedBefore } = range;
    const result = await this.call("recall", {
      query,
      k,
      tag: MEMORY_FILE_TAG,
      ...(modifiedAfter === undefined ? {} : { modified_after: modifiedAfter }),
      ...(modifiedBefore === undefined ? {} : { modified_before: modifiedBefore }),
    });
    return result.hits.map((hit) => ({
      path: hit.key,
      score: hit.score,
      excerpt: hit.excerpt,
      lineStart: hit.line_start,
      lineEnd: hit.line_end,
      ...(hit.updated_at === undefined ? {} : { updatedAt: hit.updated_at }),
    }));
  }

  /**
   * Tells `onChange` of every change to the memory file `path` (`/memories/...`) or, for a
   * directory, to any file under it, whoever makes it (this client, another process, another
   * replica), until the returned function is called. Resolves once the server listens
   * (`resources/subscribe`). Changes to one file in quick succession may be told as one.
   * Refusals (a path outside /memories, the server's cap on subscriptions) throw HmsMcpError.
   */
  async watch(
    path: string,
    onChange: (change: MemoryChange) => void,
  ): Promise<() => Promise<void>> {
    const session = this.#session;
    if (session.closedReason !== undefined) {
      throw new HmsConnectionError("CONNECTION_CLOSED", session.closedReason);
    }
    // Subscriptions name their namespace in the URI: the server's own unless this view names one.
    const namespace = this.namespace ?? (await this.stats()).namespace;
    try {
      return await watchPath(session.client, namespace, path, onChange);
    } catch (error) {
      if (error instanceof McpError) {
        throw new HmsMcpError(
          error.code === ErrorCode.MethodNotFound ? "UNSUPPORTED" : "INVALID_ARGUMENT",
          error.code === ErrorCode.MethodNotFound
            ? `this hms-mcp (${session.where}) has no change notifications: upgrade it to watch files`
            : error.message.replace(/^MCP error -?\d+: /, ""),
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** hms-mcp's `stats` of this backend's namespace. */
  async stats(): Promise<HmsStats> {
    return this.call("stats", {});
  }

  /** Closes the connection (and stops a server process it started). Later calls fail at once. */
  async close(): Promise<void> {
    this.#session.closedReason ??= CLOSED;
    await this.#session.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Calls an hms-mcp tool (adding this backend's namespace) and returns its structured
   * content, checked against the tool's output schema. A refusal the engine acts on is thrown
   * as a `MemoryBackendError`; any other as an {@link HmsMcpError} (`PROTOCOL` for an answer
   * that breaks the schema); a lost connection or a timeout as an {@link HmsConnectionError}.
   */
  async call<T extends ToolName>(tool: T, args: ToolArguments<T>): Promise<ToolResult<T>> {
    const session = this.#session;
    if (session.closedReason !== undefined) {
      throw new HmsConnectionError("CONNECTION_CLOSED", session.closedReason);
    }
    const payload: Record<string, unknown> =
      this.namespace === undefined ? args : { ...args, namespace: this.namespace };
    const command = currentCommand();
    const send = async (client: Client) =>
      (await client.callTool(
        {
          name: tool,
          arguments: payload,
          ...(command === undefined ? {} : { _meta: { [COMMAND_META_KEY]: command } }),
        },
        undefined,
        { timeout: session.timeoutMs },
      )) as CallToolResult;
    let result: CallToolResult;
    const client = session.client;
    try {
      result = await send(client);
    } catch (error) {
      if (!sessionForgotten(error) || session.reconnect === undefined) {
        throw this.#callFailed(tool, error);
      }
      // The server forgot the session (it restarted, or expired it) and did not run the call,
      // so sending it again once, on a new session, is safe.
      try {
        await session.reconnect(client);
        result = await send(session.client);
      } catch (retryError) {
        throw this.#callFailed(tool, retryError);
      }
    }
    if (result.isError) throw refusal(tool, payload, result);
    const checked = TOOLS[tool].output.safeParse(result.structuredContent);
    if (!checked.success) {
      const problem = checked.error.issues[0];
      const where = problem?.path.length ? ` at ${problem.path.join(".")}` : "";
      throw new HmsMcpError(
        "PROTOCOL",
        `hms-mcp answered ${tool} with content that breaks its output schema${where}: ` +
          `${problem?.message ?? "no structured content"}; is it hms-mcp?`,
      );
    }
    return checked.data as ToolResult<T>;
  }

  #callFailed(tool: string, error: unknown): Error {
    const session = this.#session;
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) {
        return new HmsConnectionError(
          "TIMEOUT",
          `hms-mcp did not answer the ${tool} call within ${session.timeoutMs / 1000} seconds. ` +
            "The server may be overloaded or stuck; nothing is known about whether the change " +
            "was made. View the file and try again.",
          { cause: error },
        );
      }
      if (error.code !== ErrorCode.ConnectionClosed) {
        return new HmsMcpError("PROTOCOL", `hms-mcp refused the ${tool} call: ${error.message}.`, {
          cause: error,
        });
      }
    }
    if (session.closedReason === undefined && sessionForgotten(error)) {
      session.closedReason =
        `${CONNECTION_LOST} ${session.where} answered the ${tool} call with HTTP 404 (it does ` +
        "not know this client's session) on a session opened just before, so this client " +
        "stopped retrying.";
    }
    if (session.closedReason === undefined) {
      const detail = error instanceof Error ? error.message : String(error);
      session.closedReason = `${CONNECTION_LOST} The ${tool} call failed with: ${detail}`;
    }
    return new HmsConnectionError("CONNECTION_CLOSED", session.closedReason, { cause: error });
  }
}

/**
 * A refused call as the error the engine acts on, or as an {@link HmsMcpError}. The code is
 * the text's prefix; the tree refusals are told apart by the details in
 * `_meta["hms-mcp/error"]`:
 *
 * | hms-mcp                                            | MemoryBackendError             |
 * | -------------------------------------------------- | ------------------------------ |
 * | `NOT_FOUND`, `EXISTS`, `VERSION_CONFLICT`          | the same code                  |
 * | `TOO_LARGE` (`limit`)                              | `TOO_LARGE` with `limit`       |
 * | `PATH_CONFLICT` `conflict: "directory"`            | `IS_DIRECTORY`                 |
 * | `PATH_CONFLICT` `conflict: "file"`, `path`         | `UNDER_FILE` with `file: path` |
 * | `INVALID_ARGUMENT` `reason: "into_itself"`         | `INTO_ITSELF`                  |
 * | `INVALID_ARGUMENT` `reason: "invalid_key"`, `key`  | `INVALID_KEY` with `key`       |
 */
function refusal(tool: string, args: Record<string, unknown>, result: CallToolResult): Error {
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  const prefix = ERROR_TEXT.exec(text)?.[1];
  const code = isErrorCode(prefix) ? prefix : "INTERNAL";
  const details = (result._meta?.[ERROR_META_KEY] ?? {}) as ErrorDetails;
  const path = String(args.key ?? args.from ?? args.from_prefix ?? "");
  const backendError = (backendCode: MemoryBackendErrorCode, extra = {}) =>
    new MemoryBackendError(backendCode, path, text, extra);
  if (BACKEND_CODES.has(code)) {
    const limit = details.limit;
    return backendError(code as MemoryBackendErrorCode, {
      limit: typeof limit === "number" && Number.isSafeInteger(limit) ? limit : undefined,
    });
  }
  if (code === "PATH_CONFLICT") {
    if (details.conflict === "directory") return backendError("IS_DIRECTORY");
    if (details.conflict === "file") {
      return backendError("UNDER_FILE", {
        file: typeof details.path === "string" ? details.path : undefined,
      });
    }
  }
  if (code === "INVALID_ARGUMENT") {
    if (details.reason === "into_itself") return backendError("INTO_ITSELF");
    if (details.reason === "invalid_key" && typeof details.key === "string") {
      return backendError("INVALID_KEY", { key: details.key });
    }
  }
  return new HmsMcpError(code, `hms-mcp refused the ${tool} call: ${text}`);
}

/** hms-mcp's versions are integers; the engine only hands back what the backend gave it. */
function versionNumber(version: number | string): number {
  if (typeof version !== "number") {
    throw new TypeError(`hms-mcp versions are integers, got ${JSON.stringify(version)}`);
  }
  return version;
}
