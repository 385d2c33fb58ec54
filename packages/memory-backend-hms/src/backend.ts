import {
  type FileEntry,
  type MemoryBackend,
  MemoryBackendError,
  type MemoryBackendErrorCode,
  type StoredFile,
} from "@hms/memory-core";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { CLOSED, CONNECTION_LOST, HmsConnectionError, HmsMcpError } from "./errors.js";

/** The tag every memory file carries, so recall over memory files ignores other memories. */
export const MEMORY_FILE_TAG = "memory-file";

/** One memory file found by {@link HmsMemoryBackend.recall}. */
export interface RecallHit {
  /** The file's path, e.g. `/memories/customers/acme.md`. */
  readonly path: string;
  /**
   * Relevance in [0, 1], higher is better, comparable only between the hits of one query: in
   * hms-mcp's lexical build the hit's BM25 score divided by the best hit's (the best scores
   * 1), in the hybrid build the fused score.
   */
  readonly score: number;
  /** A verbatim passage of the file around the match. */
  readonly excerpt: string;
  /** The first line of the passage, 1-based. */
  readonly lineStart: number;
  /** The last line of the passage, 1-based, inclusive. */
  readonly lineEnd: number;
}

/** hms-mcp's `stats` of a namespace (its structured content, as the server sent it). */
export interface HmsStats {
  readonly namespace: string;
  readonly memories: number;
  readonly bytes: number;
  readonly max_text_bytes: number;
  readonly recall: { readonly build: "lexical" | "hybrid"; readonly model: string | null };
  readonly server: { readonly name: string; readonly version: string };
  readonly [field: string]: unknown;
}

/**
 * The connection every namespace view of one server shares: the MCP client, the tools the
 * server offers, and, once the connection is gone, why.
 */
export interface HmsSession {
  readonly client: Client;
  readonly tools: ReadonlyMap<string, Tool>;
  /** Per-call time limit in ms. */
  readonly timeoutMs: number;
  /** Where the server is, for messages (`hms-mcp ...` or a URL). */
  readonly where: string;
  /** The server process's id, when this session started it. */
  pid: number | undefined;
  /** Set once the connection is gone; every later call fails with it. */
  closedReason: string | undefined;
  /** Closes the connection (and stops a server process it started). */
  close(): Promise<void>;
}

const PAGE = 1000; // hms-mcp's largest list page
const ERROR_TEXT = /^([A-Z_]+): ([\s\S]*)$/;
const BACKEND_CODES = new Set<string>(["NOT_FOUND", "EXISTS", "VERSION_CONFLICT", "TOO_LARGE"]);

/**
 * A {@link MemoryBackend} over one MCP session with hms-mcp. Every memory file is one memory
 * with its path as key and the tag `memory-file`; versions are hms-mcp's integers, and every
 * write is a compare-and-set or a create-if-absent on the server. Nothing is cached: each
 * call reads the server's current state, so any number of writers can share a store.
 *
 * The optional atomic operations (`deletePrefix`, `move`, `movePrefix`) and the tree
 * capabilities (`enforcesTree`, `deleteTree`, `moveTree`: a `tree` property in `move`'s input
 * schema) are present only when the server offers them (discovered from `tools/list`);
 * without them the engine checks first and falls back to per-file steps. Made by
 * `connectHmsBackend`.
 */
export class HmsMemoryBackend implements MemoryBackend {
  /** The size limit in force: the server's `max_text_bytes`, or a lower one of the client's. */
  readonly maxFileBytes: number;
  /** The namespace every call names, or undefined for the server's own. */
  readonly namespace: string | undefined;
  /** The server's limit, from `stats` at connect time. */
  readonly serverMaxFileBytes: number;
  /** Atomic prefix delete, when the server's `forget` takes `prefix`. */
  readonly deletePrefix?: (prefix: string) => Promise<number>;
  /** Atomic move of one file, when the server has a `move` tool. */
  readonly move?: (from: string, to: string, expectedVersion?: number | string) => Promise<void>;
  /** Atomic move of a prefix, when the server's `move` takes `from_prefix`. */
  readonly movePrefix?: (fromPrefix: string, toPrefix: string) => Promise<number>;
  /**
   * Whether the server keeps the memory-file tree well formed on `remember` (so the engine
   * skips its checks before a create): when `move`'s input schema has `tree`.
   */
  readonly enforcesTree: boolean;
  /** Atomic delete of a file or a directory (`forget { key, tree: true }`), with `tree`. */
  readonly deleteTree?: (path: string) => Promise<number>;
  /** Atomic move of a file or a directory (`move { from, to, tree: true }`), with `tree`. */
  readonly moveTree?: (from: string, to: string) => Promise<number>;

  readonly #session: HmsSession;
  readonly #clientMaxFileBytes: number | undefined;

  constructor(
    session: HmsSession,
    options: { namespace?: string; serverMaxFileBytes: number; maxFileBytes?: number },
  ) {
    this.#session = session;
    this.namespace = options.namespace;
    this.serverMaxFileBytes = options.serverMaxFileBytes;
    this.#clientMaxFileBytes = options.maxFileBytes;
    this.maxFileBytes = Math.min(options.serverMaxFileBytes, options.maxFileBytes ?? Infinity);
    const forget = session.tools.get("forget");
    const move = session.tools.get("move");
    if (takes(forget, "prefix")) {
      this.deletePrefix = async (prefix) =>
        integer(await this.call("forget", { prefix }), "deleted");
    }
    if (move) {
      this.move = async (from, to, expectedVersion) => {
        await this.call("move", withVersion({ from, to }, expectedVersion));
      };
    }
    if (takes(move, "from_prefix")) {
      this.movePrefix = async (fromPrefix, toPrefix) =>
        integer(await this.call("move", { from_prefix: fromPrefix, to_prefix: toPrefix }), "moved");
    }
    // One flag for the tree forms of move and forget and the tree rule on remember.
    this.enforcesTree = takes(move, "tree");
    if (this.enforcesTree) {
      this.moveTree = async (from, to) =>
        integer(await this.call("move", { from, to, tree: true }), "moved");
      if (takes(forget, "tree")) {
        this.deleteTree = async (path) =>
          integer(await this.call("forget", { key: path, tree: true }), "deleted");
      }
    }
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
      return { content: string(record, "text"), version: integer(record, "version") };
    } catch (error) {
      if (error instanceof MemoryBackendError && error.code === "NOT_FOUND") return null;
      throw error;
    }
  }

  async list(prefix: string, limit?: number): Promise<FileEntry[]> {
    const entries: FileEntry[] = [];
    let cursor: string | undefined;
    for (;;) {
      const wanted = limit === undefined ? PAGE : Math.min(PAGE, limit - entries.length);
      const args: Record<string, unknown> = { prefix, tag: MEMORY_FILE_TAG, limit: wanted };
      if (cursor !== undefined) args.cursor = cursor;
      const page = await this.call("list", args);
      const items = page.items;
      if (!Array.isArray(items)) throw protocol("list", "items");
      for (const item of items as Record<string, unknown>[]) {
        entries.push({
          path: string(item, "key"),
          bytes: integer(item, "bytes"),
          version: integer(item, "version"),
        });
      }
      const next = page.next_cursor;
      if (typeof next !== "string" || (limit !== undefined && entries.length >= limit)) {
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
    return integer(result, "version");
  }

  async update(path: string, content: string, expectedVersion: number | string): Promise<number> {
    const result = await this.call("remember", {
      key: path,
      text: content,
      expected_version: expectedVersion,
    });
    return integer(result, "version");
  }

  async delete(path: string, expectedVersion?: number | string): Promise<void> {
    await this.call("forget", withVersion({ key: path }, expectedVersion));
  }

  /**
   * The memory files most relevant to `query`, best first, at most `k` (1 to 50): hms-mcp's
   * `recall` restricted to the `memory-file` tag.
   */
  async recall(query: string, k = 5): Promise<RecallHit[]> {
    const result = await this.call("recall", { query, k, tag: MEMORY_FILE_TAG });
    if (!Array.isArray(result.hits)) throw protocol("recall", "hits");
    return (result.hits as Record<string, unknown>[]).map((hit) => ({
      path: string(hit, "key"),
      score: number(hit, "score"),
      excerpt: string(hit, "excerpt"),
      lineStart: integer(hit, "line_start"),
      lineEnd: integer(hit, "line_end"),
    }));
  }

  /** hms-mcp's `stats` of this backend's namespace. */
  async stats(): Promise<HmsStats> {
    return (await this.call("stats", {})) as unknown as HmsStats;
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
   * content. A refusal the engine acts on is thrown as a `MemoryBackendError`; any other as
   * an {@link HmsMcpError}; a lost connection or a timeout as an {@link HmsConnectionError}.
   */
  async call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const session = this.#session;
    if (session.closedReason !== undefined) {
      throw new HmsConnectionError("CONNECTION_CLOSED", session.closedReason);
    }
    const payload = this.namespace === undefined ? args : { ...args, namespace: this.namespace };
    let result: CallToolResult;
    try {
      result = (await session.client.callTool({ name: tool, arguments: payload }, undefined, {
        timeout: session.timeoutMs,
      })) as CallToolResult;
    } catch (error) {
      throw this.#callFailed(tool, error);
    }
    if (result.isError) throw refusal(tool, payload, result);
    const content = result.structuredContent;
    if (typeof content !== "object" || content === null) {
      throw new HmsMcpError(
        "PROTOCOL",
        `hms-mcp answered ${tool} without structured content; is it hms-mcp?`,
      );
    }
    return content;
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
  const code = ERROR_TEXT.exec(text)?.[1] ?? "INTERNAL";
  const details = (result._meta?.["hms-mcp/error"] ?? {}) as Record<string, unknown>;
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

function withVersion(
  args: Record<string, unknown>,
  expectedVersion: number | string | undefined,
): Record<string, unknown> {
  return expectedVersion === undefined ? args : { ...args, expected_version: expectedVersion };
}

function takes(tool: Tool | undefined, argument: string): boolean {
  const properties = tool?.inputSchema.properties;
  return typeof properties === "object" && properties !== null && argument in properties;
}

function protocol(tool: string, field: string): HmsMcpError {
  return new HmsMcpError("PROTOCOL", `hms-mcp answered ${tool} without ${field}; is it hms-mcp?`);
}

function string(data: Record<string, unknown>, name: string): string {
  const value = data[name];
  if (typeof value !== "string")
    throw new HmsMcpError("PROTOCOL", `hms-mcp answered without a string ${name}`);
  return value;
}

function integer(data: Record<string, unknown>, name: string): number {
  const value = data[name];
  if (!Number.isSafeInteger(value)) {
    throw new HmsMcpError("PROTOCOL", `hms-mcp answered without an integer ${name}`);
  }
  return value as number;
}

function number(data: Record<string, unknown>, name: string): number {
  const value = data[name];
  if (typeof value !== "number")
    throw new HmsMcpError("PROTOCOL", `hms-mcp answered without a number ${name}`);
  return value;
}
