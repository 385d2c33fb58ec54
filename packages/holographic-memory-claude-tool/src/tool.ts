import { betaMemoryTool, type MemoryToolHandlers } from "@anthropic-ai/sdk/helpers/beta/memory";
import type { BetaRunnableTool } from "@anthropic-ai/sdk/lib/tools/BetaRunnableTool";
import type {
  BetaMemoryTool20250818,
  BetaMemoryTool20250818Command,
  BetaMemoryTool20250818CreateCommand,
  BetaMemoryTool20250818DeleteCommand,
  BetaMemoryTool20250818InsertCommand,
  BetaMemoryTool20250818RenameCommand,
  BetaMemoryTool20250818StrReplaceCommand,
  BetaMemoryTool20250818ViewCommand,
  BetaTool,
} from "@anthropic-ai/sdk/resources/beta";
import {
  type ConnectHmsBackendOptions,
  connectHmsBackend,
  type HmsConnection,
  runAsCommand,
} from "@hms/memory-backend-hms";
import {
  DEFAULT_RECALL_K,
  type FileChange,
  type HistoryOperations,
  type MemoryBackend,
  MemoryBackendError,
  type MemoryChange,
  MemoryEngine,
  type MemoryEngineOptions,
  type RecallHit,
  type RecallTimeRange,
  recallToolDefinition,
} from "@hms/memory-core";
import { MemoryPathError, validateMemoryPath } from "@hms/memory-paths";
import { asToolError, HolographicMemoryError } from "./errors.js";

/** Options of {@link HolographicMemoryTool.connect}. */
export interface ConnectOptions {
  /**
   * Where hms-mcp is. `{ command, args, env }` starts a server and talks to it over stdio;
   * `{ url, token }` uses a running `hms-mcp --transport http` (`token` defaults to
   * `HMS_MCP_TOKEN`); `{ inProcess: { dataDir, ...options } }` runs the server in this
   * process over MCP's in-memory transport (each option is one of hms-mcp's flags; needs the
   * `hms-mcp` package installed, an optional peer). Default, and for the bare command
   * `"hms-mcp"`: start `HMS_MCP_BIN`, else the `hms-mcp` package in `node_modules` (of the
   * working directory or one above it, else the one installed beside this package), else
   * `hms-mcp` on PATH.
   */
  connection?: HmsConnection;
  /** The store to use, on a server started with `--namespace-arg`: one per user or agent. */
  namespace?: string;
  /** Lowers the server's `max_text_bytes` for this client; it can never raise it. */
  maxFileBytes?: number;
  /** How long one call may wait for the server, in ms (default 60000). */
  timeoutMs?: number;
  /** Longest `view` output before it is cut at a line boundary, in code points (default 16000). */
  maxViewChars?: number;
}

/**
 * Claude's memory tool (`memory_20250818`) served from a Holographic Memory store through
 * hms-mcp. It implements the Anthropic SDK's `MemoryToolHandlers`:
 *
 * ```ts
 * const memory = await HolographicMemoryTool.connect({ connection: { command: "hms-mcp" } });
 * const final = await client.beta.messages.toolRunner({
 *   model, max_tokens: 1024, messages,
 *   tools: [memory.asTool(), memory.recallTool()],
 * });
 * await memory.close();
 * ```
 *
 * Every command returns the result string or throws a `HolographicMemoryError` (the SDK's
 * `ToolError`), which the tool runner sends back with `is_error: true`. It can also serve any
 * other `MemoryBackend` of `@hms/memory-core`: `new HolographicMemoryTool(new InMemoryBackend())`.
 */
export class HolographicMemoryTool implements MemoryToolHandlers {
  /** The command engine (paths, strings, retries) over the backend. */
  readonly engine: MemoryEngine;

  constructor(backend: MemoryBackend, options: MemoryEngineOptions = {}) {
    this.engine = new MemoryEngine(backend, options);
  }

  /**
   * Connects to hms-mcp (starting it, reaching it over HTTP, or running it in this process)
   * and returns the tool. Close it with {@link close} (or `await using`), which also stops a
   * server it started (a process, or the in-process server, whose stores it closes).
   */
  static async connect(options: ConnectOptions = {}): Promise<HolographicMemoryTool> {
    const { maxViewChars, ...backendOptions } = options;
    const backend = await connectHmsBackend(backendOptions satisfies ConnectHmsBackendOptions);
    try {
      return new HolographicMemoryTool(backend, { maxViewChars });
    } catch (error) {
      await backend.close();
      throw error;
    }
  }

  /** The backend the engine runs against. */
  get backend(): MemoryBackend {
    return this.engine.backend;
  }

  /** The size limit in force, in UTF-8 bytes: the server's, or a lower one of yours. */
  get maxFileBytes(): number {
    return this.engine.maxFileBytes;
  }

  /** `view`: a directory listing (2 levels) or a file's numbered lines. */
  view(command: BetaMemoryTool20250818ViewCommand): Promise<string> {
    return this.#run(() => this.engine.view(command), "view");
  }

  /** `create`: a new file; never overwrites. */
  create(command: BetaMemoryTool20250818CreateCommand): Promise<string> {
    return this.#run(() => this.engine.create(command), "create");
  }

  /** `str_replace`: replaces the one occurrence of `old_str`. */
  str_replace(command: BetaMemoryTool20250818StrReplaceCommand): Promise<string> {
    return this.#run(() => this.engine.str_replace(command), "str_replace");
  }

  /** `insert`: inserts `insert_text` after line `insert_line` (0 is the top). */
  insert(command: BetaMemoryTool20250818InsertCommand): Promise<string> {
    return this.#run(() => this.engine.insert(command), "insert");
  }

  /** `delete`: a file, or a directory with everything under it. */
  delete(command: BetaMemoryTool20250818DeleteCommand): Promise<string> {
    return this.#run(() => this.engine.delete(command), "delete");
  }

  /** `rename`: a file or a whole directory, to a path that does not exist. */
  rename(command: BetaMemoryTool20250818RenameCommand): Promise<string> {
    return this.#run(() => this.engine.rename(command), "rename");
  }

  /**
   * Any command as Claude sent it, checked in full (an unknown command or a non-object is
   * refused with the engine's message).
   */
  execute(command: BetaMemoryTool20250818Command | Record<string, unknown>): Promise<string> {
    // Any input at all, null and undefined too: the engine refuses what is not a command.
    const name =
      typeof command === "object" && command !== null
        ? (command as { command?: unknown }).command
        : undefined;
    return this.#run(
      () => this.engine.execute(command),
      typeof name === "string" ? name : undefined,
    );
  }

  /**
   * The memory tool for the SDK's tool runner: `betaMemoryTool(this, extraProps)` (so
   * `extraProps` such as `cache_control` go into the tool definition), dispatching every call
   * through {@link execute} so that any input, even a command the SDK does not know, gets the
   * engine's checks and messages.
   */
  asTool(
    extraProps?: Omit<BetaMemoryTool20250818, "type" | "name">,
  ): BetaRunnableTool<BetaMemoryTool20250818Command> {
    return { ...betaMemoryTool(this, extraProps), run: (command) => this.execute(command) };
  }

  /**
   * The companion `memory_recall` tool for the same tool runner: Claude gives a `query` (and
   * optionally `k`, 1 to 50, default 5) and gets the most relevant memory files with a score,
   * the line range of the best passage and the passage (see `formatRecall` of
   * `@hms/memory-core`). Throws `unsupported` at once when the backend cannot recall.
   */
  recallTool(): BetaRunnableTool<unknown> {
    if (!this.engine.canRecall) {
      throw new HolographicMemoryError(
        "unsupported",
        "recallTool() needs a backend that can recall, such as hms-mcp's (connect()); " +
          `this tool's backend (${this.engine.backend.constructor.name}) has no recall.`,
      );
    }
    const { input_schema, ...definition } = recallToolDefinition();
    return {
      ...definition,
      input_schema: input_schema as unknown as BetaTool["input_schema"],
      parse: (input: unknown) => input,
      run: (input: unknown) => this.#run(() => this.engine.recall(input)),
    } as BetaRunnableTool<unknown>;
  }

  /**
   * The memory files most relevant to `query`, best first: at most `k` (1 to 50), each with
   * `updatedAt`, its last change. With `range`, only files last changed at or after
   * `modifiedAfter` and before `modifiedBefore` (ISO 8601 times with a timezone, such as
   * `2026-07-01T00:00:00Z`), chosen before the best `k` are taken.
   */
  recall(
    query: string,
    k: number = DEFAULT_RECALL_K,
    range: RecallTimeRange = {},
  ): Promise<RecallHit[]> {
    return this.#run(() => this.engine.recallHits(query, k, range));
  }

  /**
   * The changes of the memory file at `path`, newest first (at most `limit`, default 100):
   * every create, edit, move and delete hms-mcp kept, with when and what made it. For people
   * and programs that audit what Claude remembered; Claude's own commands never need it.
   */
  history(path: string, limit?: number): Promise<FileChange[]> {
    return this.#runHistory(() => this.#history().changes(validateMemoryPath(path), limit));
  }

  /**
   * Brings the memory file at `path` back to `version` (see {@link history}; a deleted file
   * comes back) as a new version, and returns that version.
   */
  restore(path: string, version: number): Promise<number> {
    return this.#runHistory(() => this.#history().restore(validateMemoryPath(path), version));
  }

  /**
   * Closes the backend (the connection to hms-mcp, stopping a server process it started, or
   * the in-process server: its calls finish, then its store files are closed). Later
   * commands fail with `CONNECTION_CLOSED`.
   */
  async close(): Promise<void> {
    const backend = this.engine.backend as { close?: () => Promise<void> };
    await backend.close?.();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Calls `onChange` for every change to the memory file `path` or, for a directory (such as
   * `/memories/notes`, or `/memories` for all), to any file under it, whoever makes it: this
   * tool, another agent on the same server, another process or replica on the same store.
   * Resolves once listening, with the function that stops it:
   *
   * ```ts
   * const stop = await memory.watch("/memories/notes", (change) => {
   *   console.log(change.op, change.path); // "update" "/memories/notes/todo.md"
   * });
   * await stop();
   * ```
   *
   * Changes to one file in quick succession may be told as one (read the file for what it is
   * now); `op: "overflow"` says more changed under `path` than could be told: read it again.
   * Throws `invalid_path` for a path outside /memories, `unsupported` for a backend that
   * cannot watch (hms-mcp's can, through `resources/subscribe`).
   */
  watch(path: string, onChange: (change: MemoryChange) => void): Promise<() => Promise<void>> {
    return this.#runHistory(() => {
      const watch = this.engine.backend.watch;
      if (watch === undefined) {
        throw new HolographicMemoryError(
          "unsupported",
          "watch() needs a backend that tells of changes, such as hms-mcp's (connect()); " +
            `this tool's backend (${this.engine.backend.constructor.name}) has none.`,
        );
      }
      return watch.call(this.engine.backend, validateMemoryPath(path), onChange);
    });
  }

  #history(): HistoryOperations {
    const history = this.engine.backend.history;
    if (history === undefined) {
      throw new HolographicMemoryError(
        "unsupported",
        "history() and restore() need a backend that keeps history, such as hms-mcp's " +
          `(connect()); this tool's backend (${this.engine.backend.constructor.name}) has none.`,
      );
    }
    return history;
  }

  /** As {@link #run}, for calls outside the engine: their path and backend refusals too. */
  async #runHistory<T>(body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      if (MemoryPathError.isInstance(error)) {
        throw new HolographicMemoryError("invalid_path", error.message, error);
      }
      if (MemoryBackendError.isInstance(error)) {
        throw new HolographicMemoryError(error.code.toLowerCase(), error.message, error);
      }
      throw asToolError(error);
    }
  }

  /**
   * Runs an engine call, throwing refusals as HolographicMemoryError; with `command`, the
   * calls it makes to hms-mcp name that command, for the server's history.
   */
  async #run<T>(body: () => Promise<T>, command?: string): Promise<T> {
    try {
      return await (command === undefined ? body() : runAsCommand(command, body));
    } catch (error) {
      throw asToolError(error);
    }
  }
}
