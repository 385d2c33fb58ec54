/** The history of memory files as the store API gives it: plain data, no behaviour. */

/** What a change did to the file. */
export type HistoryOp = "create" | "update" | "move" | "delete";

/** One change of a memory file. */
export interface HistoryEntry {
  /** Grows with every change of the store's memory files; orders them. */
  readonly seq: number;
  /** The file the change left behind (a move's destination; a delete's deleted file). */
  readonly key: string;
  readonly op: HistoryOp;
  /** A move's source, else null. */
  readonly from_key: string | null;
  /** The version the change made (a delete: the version it deleted). */
  readonly version: number;
  readonly hash: string;
  readonly bytes: number;
  /** ISO 8601 UTC with milliseconds. */
  readonly at: string;
  /** Who made it, as the server named the caller (a token's name), else null. */
  readonly actor: string | null;
  /** What made it (e.g. the memory tool's command, or `restore`), else null. */
  readonly command: string | null;
}

/** A change with the file as it left it (a delete: as it was). */
export interface HistoryVersion extends HistoryEntry {
  readonly text: string;
  readonly tags: string[];
  readonly metadata: Record<string, unknown>;
}

/** Who and what a write is recorded as. */
export interface Attribution {
  readonly actor?: string | undefined;
  readonly command?: string | undefined;
}

/** A page of history, newest change first. */
export interface HistoryPage {
  readonly entries: HistoryEntry[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  readonly next_before: number | null;
  /**
   * What the namespace's history has dropped, and why, one entry per reason (none when it
   * has dropped nothing): older changes than those listed may be missing.
   */
  readonly dropped: HistoryDrop[];
}

/**
 * Why the history dropped changes: `bytes`, to stay within its byte budget (oldest first);
 * `disk_full`, to make room for a write on a full disk (oldest first); `versions`, beyond the
 * newest versions kept of each file; `days`, older than the days kept.
 */
export type DropReason = "bytes" | "disk_full" | "versions" | "days";

/** Changes the history dropped for one reason. */
export interface HistoryDrop {
  readonly reason: DropReason;
  /** How many changes, in all. */
  readonly changes: number;
  /** When the newest of them was made (ISO 8601): changes up to then may be missing. */
  readonly through: string;
  /** When the last of them were dropped (ISO 8601). */
  readonly at: string;
}

/** What a store tells its owner when its history dropped changes (`StoreOptions.onHistoryDropped`). */
export interface HistoryDropEvent {
  /** The store's namespace, when it was opened with one. */
  readonly namespace: string | undefined;
  readonly reason: DropReason;
  /** Changes dropped this time, and the bytes of history they took. */
  readonly changes: number;
  readonly bytes: number;
  /** When the newest of them was made. */
  readonly through: string;
}

/**
 * The bytes of history a namespace keeps by default: the history keeps at most this, or as
 * many bytes as the namespace's live text when that is more (`StoreOptions.historyBytes`).
 */
export const DEFAULT_HISTORY_BYTES = 8 * 1024 * 1024;

/** What `restoreTree` did, file by file. */
export interface TreeRestoreResult {
  /** Files written back (created or replaced) with their new versions. */
  readonly restored: { key: string; version: number }[];
  /** Files deleted because they did not exist at that time. */
  readonly deleted: string[];
  /** Files whose state at that time the history does not reach (left as they are). */
  readonly unknown: string[];
}
