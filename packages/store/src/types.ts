/**
 * The store's public shapes: records, the options and results of its calls, and the bounds
 * those calls accept. `MemoryStore` (store.ts) implements them.
 */
import type { EmbeddingModel } from "./embeddings.js";
import type { HistoryDropEvent } from "./history-types.js";
import type { FusionParams } from "./recall/hybrid.js";
import type { LineHit } from "./recall/lines.js";
import type { Ranker, RecallBuild } from "./recall/ranker.js";
import type { SqliteDatabase } from "./sqlite/driver.js";

/** A stored memory, as the hms-mcp contract names its fields. */
export interface MemoryRecord {
  readonly key: string;
  readonly text: string;
  readonly tags: string[];
  readonly metadata: Record<string, unknown>;
  /**
   * Grows on every change (including a move) and never returns to a value the key had
   * before, even after a delete and re-create: every write takes the next value of a
   * store-wide clock. Compare versions for equality only.
   */
  readonly version: number;
  /** `sha256:` + lowercase hex of the UTF-8 text. */
  readonly hash: string;
  /** UTF-8 byte length of the text. */
  readonly bytes: number;
  /** ISO 8601 UTC with milliseconds. */
  readonly created_at: string;
  readonly updated_at: string;
}

export interface RememberInput {
  readonly key: string;
  readonly text: string;
  /** Replaces the tags; omitted keeps the existing ones (none on a create). */
  readonly tags?: readonly string[] | undefined;
  /** Replaces the metadata; omitted keeps the existing object (`{}` on a create). */
  readonly metadata?: Record<string, unknown> | undefined;
  /** Write only if the memory exists at exactly this version. */
  readonly expectedVersion?: number | undefined;
  /** Write only if the key does not exist. */
  readonly ifAbsent?: boolean | undefined;
}

export interface RememberResult {
  readonly key: string;
  readonly version: number;
  readonly bytes: number;
  readonly hash: string;
  /** True when this call created the memory, false when it replaced one. */
  readonly created: boolean;
  readonly updated_at: string;
}

/** Selects memories by key prefix and/or tag. */
export interface Selection {
  readonly prefix?: string | undefined;
  readonly tag?: string | undefined;
}

export interface PageOptions extends Selection {
  /** A `next_cursor` from the previous page. */
  readonly cursor?: string | undefined;
  /** Page size, 1 to {@link MAX_PAGE}. */
  readonly limit?: number | undefined;
}

export interface ListItem {
  readonly key: string;
  readonly bytes: number;
  readonly version: number;
  readonly tags: string[];
  readonly updated_at: string;
}

export interface ListPage {
  readonly items: ListItem[];
  readonly next_cursor: string | null;
}

export interface ExportPage {
  readonly memories: MemoryRecord[];
  readonly next_cursor: string | null;
}

export interface RecallOptions extends Selection {
  /** How many hits, 1 to {@link MAX_RECALL_K}. */
  readonly k?: number | undefined;
  /**
   * The query's embedding by the store's embedding model (unit length). A store opened with
   * `embeddings` ranks hybrid with it; without it, lexically (and says so in `build`).
   */
  readonly vector?: Float32Array | undefined;
  /**
   * Only memories last changed (`updated_at`) at or after this time: ISO 8601 with a timezone,
   * e.g. `2026-07-01T00:00:00Z` (the contract's `modified_after`). Applied before the best `k`
   * are taken, so a filter never returns fewer hits than there are matches it lets through.
   */
  readonly modifiedAfter?: string | undefined;
  /** Only memories last changed before this time (exclusive; the contract's `modified_before`). */
  readonly modifiedBefore?: string | undefined;
}

export interface RecallHit {
  readonly key: string;
  /**
   * Relevance in (0, 1], higher is better, on an absolute scale: it depends on the hit and the
   * store's term statistics, never on the other hits. Lexical build: the hit's BM25 as a share
   * of the query's ceiling (`bm25Ceiling` in `recall/lexical.ts`), at least 0.001: a memory of
   * average length holding every query term once scores 0.45; among 3,000 unrelated notes
   * (`pnpm bench distractors --lexical-only`) the note a paraphrase query must find scored 0.18
   * (median; 0.12 to 0.45) and the best hit of an off-topic query at most 0.17; read above 0.2
   * as a match on much of the query, below 0.1 as likely noise. Hybrid build: the fused score
   * (`fuse` in `recall/hybrid.ts`), `0.6 × BM25 share + 0.4 × cosine`: there the note scored
   * 0.30 (median; 0.10 to 0.52) and an off-topic query's best hit at most 0.18; read above 0.3
   * as a strong match, 0.2 to 0.3 as plausible, below 0.2 as likely noise. The two builds'
   * scores are on different scales. See "What a score means" in the README.
   */
  readonly score: number;
  /** A verbatim passage of the memory's text. */
  readonly excerpt: string;
  /** 1-based inclusive line range of the excerpt. */
  readonly line_start: number;
  readonly line_end: number;
  /** The memory's last change (ISO 8601 UTC with milliseconds), as `get` gives it. */
  readonly updated_at: string;
}

export interface RecallResult {
  readonly hits: RecallHit[];
  readonly build: RecallBuild;
}

export interface SearchOptions extends Selection {
  /** Most hits (lines), 1 to {@link MAX_PAGE}. */
  readonly limit?: number | undefined;
}

export interface SearchHit extends LineHit {
  readonly key: string;
}

export interface StoreStats {
  readonly memories: number;
  readonly bytes: number;
  readonly schema_version: number;
  readonly recall: {
    readonly build: RecallBuild;
    readonly model: string | null;
    /** Memories waiting for vectors (always 0 in the lexical build). */
    readonly pending: number;
    /**
     * While the store re-embeds after an upgrade of its model ({@link EmbeddingOptions.replaces}
     * or `reembed`): the model whose vectors are being replaced; absent otherwise. Progress is
     * the share of memories no longer `pending`.
     */
    readonly replacing?: string;
  };
}

/** Hybrid recall: the embedding model whose vectors the store keeps, and how to fuse. */
export interface EmbeddingOptions {
  readonly model: EmbeddingModel;
  /**
   * When the store's vectors come from another model: drop them all and queue every memory
   * for re-embedding, instead of refusing to open (an `EmbeddingModelMismatchError`).
   */
  readonly reembed?: boolean | undefined;
  /**
   * Models this one supersedes: a store whose vectors come from one of them is re-embedded in
   * the background, as with `reembed`, when opened with this model (an upgrade), instead of
   * being refused. Recall ranks a memory lexically until its new vectors are saved.
   */
  readonly replaces?: readonly string[] | undefined;
  /** Fusion parameters (default {@link DEFAULT_FUSION}). */
  readonly fusion?: FusionParams | undefined;
}

export interface StoreOptions {
  /** Largest text in UTF-8 bytes (default 32768). */
  readonly maxTextBytes?: number | undefined;
  /**
   * The namespace this file belongs to. Recorded when the file is created and checked on
   * every open, so a store file is never served under another namespace's name.
   */
  readonly namespace?: string | undefined;
  /** How long a write waits for another process's write lock, in ms (default 10000). */
  readonly busyTimeoutMs?: number | undefined;
  /**
   * How long one call waits for another process's lock once the store is open, in ms
   * (default: `busyTimeoutMs`; opening always waits `busyTimeoutMs`). SQLite waits
   * synchronously, blocking the process's event loop: a server that serves other callers sets
   * this short and retries a call refused with SQLITE_BUSY ({@link isBusy}) asynchronously
   * (hms-mcp does).
   */
  readonly busyWaitMs?: number | undefined;
  /**
   * When a commit reaches the disk. `"full"` (the default): each commit waits for the WAL to be
   * fsynced, so an acknowledged write survives a crash of the process and of the machine.
   * `"normal"`: the WAL is fsynced at checkpoints only, so a write survives a crash of the
   * process but the last commits before a power loss or OS crash may be lost (the store is
   * never corrupted). See {@link SYNCHRONOUS_MODES}.
   */
  readonly synchronous?: SynchronousMode | undefined;
  /**
   * Hybrid recall. The store records the model on first open with it (queueing every memory
   * for embedding), refuses another model's vectors, ranks with {@link HybridRanker}, and
   * exposes the queue and vectors as {@link MemoryStore.embeddings}.
   */
  readonly embeddings?: EmbeddingOptions | undefined;
  /**
   * @internal Builds the recall ranker (default: lexical BM25, or hybrid with `embeddings`)
   * from the store's SQLite connection; for tuning (see `@hms/store/internal`).
   */
  readonly ranker?: ((db: SqliteDatabase) => Ranker) | undefined;
  /**
   * @internal Opens the store's SQLite file (default: `node:sqlite`). The driver benchmark and
   * the compatibility tests pass better-sqlite3 here, to run the same store on both drivers.
   */
  readonly openFile?: ((file: string) => SqliteDatabase) | undefined;
  /**
   * Told what opening an existing store does when its file needs an upgrade (schema
   * migrations, the one-time compaction to incremental auto-vacuum), which can take long on
   * a big store: a `start`, a `step` per piece of work, `progress` where the work is split,
   * and an `end`. A new store and a current one report nothing. The store prints nothing
   * itself; hms-mcp logs these. Called synchronously, inside the open.
   */
  readonly onUpgrade?: ((event: UpgradeEvent) => void) | undefined;
  /**
   * The byte budget of the history of memory files: at most this many bytes (each row's text
   * as stored, key, tags, metadata and a fixed 64 for the rest), or as many as the store's
   * live text when that is more. A write that leaves the history over it drops the oldest
   * changes in its own transaction. 0: no bound. Default `DEFAULT_HISTORY_BYTES` (8 MiB).
   */
  readonly historyBytes?: number | undefined;
  /**
   * Told when the history dropped changes to stay within `historyBytes` or to make room for a
   * write on a full disk (the store prints nothing itself; hms-mcp logs these). Called
   * synchronously, after the transaction that dropped them.
   */
  readonly onHistoryDropped?: ((event: HistoryDropEvent) => void) | undefined;
}

/** What an upgrade of a store file is doing (see {@link StoreOptions.onUpgrade}). */
export type UpgradeEvent =
  | {
      readonly type: "start";
      /** The store's file and, when the open names one, its namespace. */
      readonly file: string;
      readonly namespace: string | undefined;
      /** The file's schema version, and the one this code writes (equal for a compaction only). */
      readonly fromVersion: number;
      readonly toVersion: number;
      /** How many memories the store holds. */
      readonly memories: number;
      /** What will be done, in words, e.g. "rebuild the full-text index". */
      readonly work: readonly string[];
    }
  | {
      readonly type: "step";
      readonly file: string;
      readonly namespace: string | undefined;
      /** What is being done now, e.g. "rebuilding the full-text index of 120,000 memories". */
      readonly task: string;
    }
  | {
      readonly type: "progress";
      readonly file: string;
      readonly namespace: string | undefined;
      readonly task: string;
      /** Rows done so far, of `total`. */
      readonly done: number;
      readonly total: number;
    }
  | {
      readonly type: "end";
      readonly file: string;
      readonly namespace: string | undefined;
      readonly fromVersion: number;
      readonly toVersion: number;
      /** How long the upgrade took, in ms. */
      readonly ms: number;
    };

/** The durability settings a store accepts (SQLite's `synchronous` in WAL mode). */
export const SYNCHRONOUS_MODES = ["full", "normal"] as const;
export type SynchronousMode = (typeof SYNCHRONOUS_MODES)[number];

// The limits a client relies on are the contract's (@hms/protocol), not the store's own.
export {
  DEFAULT_PAGE,
  DEFAULT_RECALL_K,
  MAX_PAGE,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
} from "@hms/protocol";
/** Longest literal search text, in characters. */
export const MAX_SEARCH_CHARS = 1024;
/**
 * Most bytes of memories one export page carries: the store ends a page early, with a
 * next_cursor, before a memory that would take its text and metadata (UTF-8) over it, and the
 * server before one that would take the page's memories as JSON over it. An answer so stays
 * small however large the memories are: a server building or holding many pages at once (slow
 * HTTP readers) holds 256 KiB per answer, not 10 MB. A smaller page costs a round trip, not
 * correctness; a page always holds at least one memory, so the largest is still exported alone.
 */
export const EXPORT_PAGE_BYTES = 256 * 1024;
