/**
 * One store API over two engines. SQLite (`MemoryStore`, `Namespaces`: embedded, the default)
 * answers synchronously; PostgreSQL (`@hms/store-postgres`: many server replicas, one database)
 * answers with promises. hms-mcp, the conformance suite and the copy tool are written against
 * these interfaces and `await` every call, so they run unchanged on either engine.
 *
 * The meaning of every call (arguments, results, refusals and their codes, versions, the
 * memory-file rules, limits) is `MemoryStore`'s, documented there; an engine differs only in
 * where the data lives.
 */
import type { UnusedFile } from "./access.js";
import type { MemoryChange } from "./changes-types.js";
import type {
  Attribution,
  HistoryPage,
  HistoryVersion,
  TreeRestoreResult,
} from "./history-types.js";
import type {
  ExportPage,
  ListPage,
  MemoryRecord,
  PageOptions,
  RecallOptions,
  RecallResult,
  RememberInput,
  RememberResult,
  SearchHit,
  SearchOptions,
  StoreStats,
} from "./types.js";

/** A value now (SQLite) or later (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;

/** Which engine keeps a store's data. */
export type EngineKind = "sqlite" | "postgres";

/** The history of one namespace's memory files (see `StoreHistory` for each call's meaning). */
export interface HistoryApi {
  /**
   * Runs `body` with its writes attributed to `who` (the history's actor and command). On
   * PostgreSQL the attribution follows `body`'s asynchronous calls; on SQLite only the
   * synchronous part of `body` is attributed.
   */
  attributed<T>(who: Attribution, body: () => T): T;
  ofFile(key: string, options?: { limit?: number; before?: number }): Awaitable<HistoryPage>;
  under(
    prefix: string,
    options?: { since?: string; limit?: number; before?: number },
  ): Awaitable<HistoryPage>;
  version(key: string, version: number): Awaitable<HistoryVersion | undefined>;
  stateAt(key: string, at: string): Awaitable<HistoryVersion | null | "unknown">;
  restoreFile(
    key: string,
    target: { version: number } | { at: string },
    options?: { expectedVersion?: number; actor?: string },
  ): Awaitable<{ key: string; version: number | null; deleted: boolean }>;
  restoreTree(key: string, at: string, options?: { actor?: string }): Awaitable<TreeRestoreResult>;
  prune(options: {
    keepVersions?: number | undefined;
    keepDays?: number | undefined;
    maxBytes?: number | undefined;
    limit?: number | undefined;
  }): Awaitable<number>;
}

/** Reads noted for `unused` (see `StoreAccess`). */
export interface AccessApi {
  noteRead(key: string): void;
  flush(): Awaitable<number>;
  unused(before: string, options?: { prefix?: string; limit?: number }): Awaitable<UnusedFile[]>;
}

/**
 * The changes of a namespace's memory files, read forward from a mark (change notifications).
 * Within a namespace a later change has a larger seq on both engines (its writes are serialized).
 */
export interface ChangesApi {
  /**
   * A mark at or after the newest change (0 when there is none): where a new reader starts.
   * SQLite: the namespace's newest seq; PostgreSQL: the database's (seqs are shared).
   */
  latest(): Awaitable<number>;
  /** The changes after `seq`, oldest first, at most `limit` (1 to 1000, default 1000). */
  after(seq: number, options?: { limit?: number }): Awaitable<MemoryChange[]>;
}

/** One namespace's store on either engine (see `MemoryStore` for each call's meaning). */
export interface StoreApi {
  readonly engine: EngineKind;
  readonly history: HistoryApi;
  readonly access: AccessApi;
  readonly changes: ChangesApi;
  remember(input: RememberInput): Awaitable<RememberResult>;
  rememberMany(inputs: readonly RememberInput[]): Awaitable<RememberResult[]>;
  get(key: string): Awaitable<MemoryRecord | undefined>;
  list(options?: PageOptions): Awaitable<ListPage>;
  export(options?: PageOptions): Awaitable<ExportPage>;
  forget(
    key: string,
    options?: { expectedVersion?: number | undefined },
  ): Awaitable<{ deleted: number }>;
  forgetPrefix(prefix: string): Awaitable<{ deleted: number }>;
  forgetTree(key: string): Awaitable<{ deleted: number }>;
  move(
    from: string,
    to: string,
    options?: { expectedVersion?: number | undefined },
  ): Awaitable<{ moved: number }>;
  movePrefix(fromPrefix: string, toPrefix: string): Awaitable<{ moved: number }>;
  moveTree(from: string, to: string): Awaitable<{ moved: number }>;
  recall(query: string, options?: RecallOptions): Awaitable<RecallResult>;
  search(text: string, options?: SearchOptions): Awaitable<{ hits: SearchHit[] }>;
  stats(): Awaitable<StoreStats>;
  /**
   * Copies whole records in, as `hms-mcp copy` moves a store between engines: each keeps its
   * version, tags, metadata, created_at and updated_at, and the version clock moves past the
   * largest version loaded. One transaction; EXISTS (nothing loaded) if a key is present, and
   * every write's checks (limits, memory-file rules) apply. The history records each memory file
   * loaded as created. Not for ordinary writes, which take `remember`.
   */
  load(records: readonly MemoryRecord[]): Awaitable<{ loaded: number }>;
}

/** A namespace as `StoreEngine.summaries` describes it. */
export interface NamespaceSummary {
  readonly name: string;
  /** How many memories it holds. */
  readonly memories: number;
  /** The UTF-8 bytes of their texts. */
  readonly bytes: number;
  /** Its newest memory's `updated_at` (ISO 8601), or null when it holds none. */
  readonly updated_at: string | null;
  /** SQLite: the store file's size on disk, write-ahead log included; absent on PostgreSQL. */
  readonly disk_bytes?: number;
}

/**
 * The namespaces of one server on either engine. Only `get` (a write's store) creates a
 * namespace, refusing one more than the engine's limit with LIMIT_REACHED; `read` answers a
 * namespace that does not exist as an empty one and creates nothing.
 */
export interface StoreEngine {
  readonly kind: EngineKind;
  get(namespace: string): Awaitable<StoreApi>;
  read(namespace: string): Awaitable<StoreApi>;
  /** Every namespace that exists, in name order. */
  names(): Awaitable<string[]>;
  /**
   * Every namespace that exists, in name order, with its size and last change. Only reads:
   * it opens no namespace's store, so it creates and upgrades nothing.
   */
  summaries(): Awaitable<NamespaceSummary[]>;
  close(): Awaitable<void>;
}
