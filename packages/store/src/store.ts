/**
 * `MemoryStore`, the store's public face: it opens the engine, builds the `StoreContext` the
 * operations share (context.ts), and hands each call to the module that does that job:
 * records.ts (records and compare-and-set), tree.ts (tree operations), recall/recall.ts and
 * recall/search.ts. SQLite is reached through sqlite/ only; sqlite/database.ts says where a
 * second engine would plug in.
 */

import { Access, type StoreAccess } from "./access.js";
import { Changes } from "./changes.js";
import type { StoreContext } from "./context.js";
import { Embeddings, replacingModel } from "./embeddings.js";
import type { StoreApi } from "./engine.js";
import { StoreError } from "./errors.js";
import { History, type StoreHistory } from "./history.js";
import { HistoryBudget } from "./history-budget.js";
import { DEFAULT_HISTORY_BYTES } from "./history-types.js";
import { checkInteger, DEFAULT_LIMITS, type Limits, MAX_TEXT_BYTES_CEILING } from "./limits.js";
import { load } from "./load.js";
import { Highlighter } from "./recall/highlight.js";
import { DEFAULT_FUSION, HybridRanker } from "./recall/hybrid.js";
import { LexicalRanker } from "./recall/lexical.js";
import type { Ranker } from "./recall/ranker.js";
import { recall } from "./recall/recall.js";
import { search } from "./recall/search.js";
import { VectorIndex } from "./recall/vector-index.js";
import { exportPage, forget, get, list, remember, rememberMany } from "./records.js";
import { openDatabase, type SqliteDatabase, synchronousOf } from "./sqlite/database.js";
import { schemaVersion } from "./sqlite/schema.js";
import { prepare } from "./sqlite/statements.js";
import { Writes } from "./sqlite/writes.js";
import { forgetPrefix, forgetTree, move, movePrefix, moveTree } from "./tree.js";
import {
  EXPORT_PAGE_BYTES,
  type ExportPage,
  type ListPage,
  type MemoryRecord,
  type PageOptions,
  type RecallOptions,
  type RecallResult,
  type RememberInput,
  type RememberResult,
  type SearchHit,
  type SearchOptions,
  type StoreOptions,
  type StoreStats,
  type SynchronousMode,
} from "./types.js";

// The public types and bounds live in types.ts; imports of them from here keep working.
export * from "./types.js";

/**
 * One store: a SQLite file in WAL mode holding one namespace's memories.
 *
 * Every write is one IMMEDIATE transaction, so concurrent writers (threads of this process or
 * other processes on the same file) serialize on SQLite's write lock and preconditions are
 * checked and applied atomically. By default `synchronous = FULL` makes each commit wait for
 * the WAL to be on disk, so an acknowledged write survives a crash of the process and of the
 * machine (`options.synchronous: "normal"` trades the machine-crash guarantee for speed).
 * All methods are synchronous and cheap to call: statements are prepared once, at open.
 */
export class MemoryStore implements StoreApi {
  readonly engine = "sqlite" as const;
  /** The file this store lives in. */
  readonly file: string;
  readonly limits: Limits;
  readonly #db: SqliteDatabase;
  /** The embedding queue and vectors, when the store was opened with `embeddings`. */
  readonly embeddings: Embeddings | undefined;
  /** When memories were last read, and which went unused (access.ts). */
  readonly access: StoreAccess;
  /** The history of memory files: read it, restore from it, prune it (history.ts). */
  readonly history: StoreHistory;
  /** The changes of memory files, read forward from a mark (changes.ts). */
  readonly changes: Changes;
  readonly #ranker: Ranker;
  readonly #highlighter: Highlighter;
  /** What the operations share: limits, statements, the write transaction. */
  readonly #ctx: StoreContext;
  readonly #writes: Writes;

  private constructor(file: string, db: SqliteDatabase, options: StoreOptions) {
    this.file = file;
    this.#db = db;
    const maxTextBytes = checkInteger(
      options.maxTextBytes ?? DEFAULT_LIMITS.maxTextBytes,
      "maxTextBytes",
      1,
      MAX_TEXT_BYTES_CEILING,
    );
    this.limits = Object.freeze({ ...DEFAULT_LIMITS, maxTextBytes });
    const historyBytes = checkInteger(
      options.historyBytes ?? DEFAULT_HISTORY_BYTES,
      "historyBytes",
      0,
      Number.MAX_SAFE_INTEGER,
    );
    const onDropped = options.onHistoryDropped;
    if (onDropped !== undefined && typeof onDropped !== "function") {
      throw new StoreError(
        "INVALID_ARGUMENT",
        `onHistoryDropped must be a function (it is told what the history dropped), got ${typeof onDropped}`,
      );
    }
    const budget = new HistoryBudget(db, historyBytes, onDropped, options.namespace);
    const writes = new Writes(db, file, budget);
    this.#writes = writes;
    // Every write ends by bringing the history back within its budget, in its own transaction.
    const withinBudget =
      <T>(body: () => T) =>
      (): T => {
        const result = body();
        budget.enforce();
        return result;
      };
    this.#ctx = {
      limits: this.limits,
      sql: prepare(db),
      write: <T>(body: () => T): T => writes.write(withinBudget(body)),
      free: <T>(body: () => T): T => writes.free(withinBudget(body)),
    };
    this.history = new History(db, this.#ctx, budget);
    this.changes = new Changes(db);
    this.access = new Access(db, this.#ctx);
    const hybrid = options.embeddings;
    this.embeddings = hybrid === undefined ? undefined : new Embeddings(db, hybrid.model);
    const defaultRanker = (d: SqliteDatabase): Ranker => {
      if (hybrid === undefined) return new LexicalRanker(d);
      const index = new VectorIndex(d, hybrid.model.dimensions);
      index.sync();
      return new HybridRanker(d, hybrid.model.id, index, hybrid.fusion ?? DEFAULT_FUSION);
    };
    this.#ranker = (options.ranker ?? defaultRanker)(db);
    this.#highlighter = new Highlighter(db);
  }

  /**
   * Opens (creating if needed) the store in `file`, brings its schema up to date, and checks
   * that it belongs to `options.namespace` when one is given.
   */
  static open(file: string, options: StoreOptions = {}): MemoryStore {
    const db = openDatabase(file, options);
    try {
      return new MemoryStore(file, db, options);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** True until {@link close}. */
  get open(): boolean {
    return this.#db.isOpen;
  }

  /** The durability setting in force (read back from SQLite). */
  get synchronous(): SynchronousMode {
    return synchronousOf(this.#db);
  }

  /** Closes the database (the WAL is checkpointed), first writing the reads noted. Idempotent. */
  close(): void {
    if (!this.#db.isOpen) return;
    try {
      this.access.flush();
    } catch {
      // Last-read days are a hint; a store that cannot write them now still closes.
    }
    this.#writes.close();
    this.#db.close();
  }

  /**
   * Creates or replaces a memory, subject to its preconditions, in one transaction.
   * Every successful call gives the memory a new version (the clock's next value).
   */
  remember(input: RememberInput): RememberResult {
    return remember(this.#ctx, input);
  }

  /**
   * Applies many writes in one transaction: all of them or, if any is refused, none (the
   * error is that write's). For bulk loads and restores; one commit instead of one per write.
   */
  rememberMany(inputs: readonly RememberInput[]): RememberResult[] {
    return rememberMany(this.#ctx, inputs);
  }

  /** The memory at `key`, or `undefined`. */
  get(key: string): MemoryRecord | undefined {
    return get(this.#ctx, key);
  }

  /** Keys in key order, a page at a time, with sizes, versions and tags. */
  list(options: PageOptions = {}): ListPage {
    return list(this.#ctx, options);
  }

  /**
   * Whole records in key order, a page at a time: at most `limit` of them, and fewer when
   * their text and metadata reach {@link EXPORT_PAGE_BYTES}.
   */
  export(options: PageOptions = {}): ExportPage {
    return exportPage(this.#ctx, options);
  }

  /** Deletes one memory; NOT_FOUND if absent, VERSION_CONFLICT if not at `expectedVersion`. */
  forget(key: string, options: { expectedVersion?: number | undefined } = {}): { deleted: number } {
    return forget(this.#ctx, key, options);
  }

  /** Deletes every memory whose key starts with `prefix` (non-empty), in one transaction. */
  forgetPrefix(prefix: string): { deleted: number } {
    return forgetPrefix(this.#ctx, prefix);
  }

  /**
   * Deletes `key` and every memory whose key starts with `key/` (a file or a directory of the
   * memory tool), in one transaction. NOT_FOUND if none of them exists.
   */
  forgetTree(key: string): { deleted: number } {
    return forgetTree(this.#ctx, key);
  }

  /**
   * Renames one memory. NOT_FOUND if `from` is absent, VERSION_CONFLICT if `from` is not at
   * `expectedVersion`, EXISTS if `to` is `from` or exists, PATH_CONFLICT if `to` is a memory
   * file and keys lie under it or one of its ancestors is a key, INVALID_ARGUMENT if `to` is
   * not a valid memory-file key. Text, tags, metadata and created_at are kept; the version
   * takes the clock's next value.
   */
  move(
    from: string,
    to: string,
    options: { expectedVersion?: number | undefined } = {},
  ): { moved: number } {
    return move(this.#ctx, from, to, options);
  }

  /**
   * Renames every memory whose key starts with `fromPrefix` to `toPrefix` + the rest, in one
   * transaction: all or nothing. NOT_FOUND if none starts with `fromPrefix`, EXISTS if any
   * destination exists, INVALID_ARGUMENT if `toPrefix` starts with `fromPrefix` or a
   * destination is not a valid key.
   */
  movePrefix(fromPrefix: string, toPrefix: string): { moved: number } {
    return movePrefix(this.#ctx, fromPrefix, toPrefix);
  }

  /**
   * Moves `from` (if it exists) and every memory whose key starts with `from/` to `to` and
   * `to/` + the rest (a file or a directory of the memory tool), in one transaction. The first
   * failing check decides the refusal, and nothing changes:
   *
   * 1. NOT_FOUND: neither `from` nor any key under `from/` exists;
   * 2. EXISTS: `to` is `from`;
   * 3. INVALID_ARGUMENT (`reason: "into_itself"`): keys lie under `from/` and `to` starts with
   *    `from/`;
   * 4. EXISTS: `to` exists, or a key starts with `to/`;
   * 5. PATH_CONFLICT (`conflict: "file"`, `path`): a proper ancestor of `to` below `/memories`
   *    is a key (the shortest one);
   * 6. INVALID_ARGUMENT (`reason: "invalid_key"`, `key`): the first new key, in key order, that
   *    is too long or a memory file failing the memory-path rules.
   *
   * Text, tags, metadata and created_at are kept; each record takes a new version.
   */
  moveTree(from: string, to: string): { moved: number } {
    return moveTree(this.#ctx, from, to);
  }

  /**
   * The memories most relevant to `query`, best first, each with an excerpt and its line range.
   * Any string is a valid query; one without words has no hits.
   */
  recall(query: string, options: RecallOptions = {}): RecallResult {
    return recall(this.#ctx, this.#ranker, this.#highlighter, query, options);
  }

  /**
   * Lines containing `text` literally (case-insensitive), in key order then line order, at
   * most `limit` lines in all.
   */
  search(text: string, options: SearchOptions = {}): { hits: SearchHit[] } {
    return search(this.#ctx, text, options);
  }

  /**
   * Copies whole records in, keeping their versions and times (see `StoreApi.load`); for moving
   * a store between engines, not for ordinary writes.
   */
  load(records: readonly MemoryRecord[]): { loaded: number } {
    return load(this.#ctx, records);
  }

  /** Counts and sizes of this store. */
  stats(): StoreStats {
    const totals = this.#ctx.sql.totals.get() as { memories: number; bytes: number };
    return {
      memories: totals.memories,
      bytes: totals.bytes,
      schema_version: schemaVersion(this.#db),
      recall: {
        build: this.#ranker.build,
        model: this.#ranker.model,
        pending: this.embeddings?.pendingCount() ?? 0,
        ...replacingOf(this.#db, this.embeddings !== undefined),
      },
    };
  }
}

/** `replacing` for stats: the model a re-embedding replaces, while one runs (hybrid only). */
function replacingOf(db: SqliteDatabase, hybrid: boolean): { replacing?: string } {
  const replacing = hybrid ? replacingModel(db) : undefined;
  return replacing === undefined ? {} : { replacing };
}
