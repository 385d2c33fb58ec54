/**
 * The history's byte budget on SQLite, and what the history gives up for it. Triggers of
 * schema migration 8 keep, in the write's own transaction, the bytes the history takes
 * (`history_usage`: each row costs `HISTORY_ROW_COST`) and the bytes of the live text. A write
 * that leaves the history over its budget (`StoreOptions.historyBytes`, or the live text's
 * size when that is more) drops the oldest changes before it commits; a write that finds the
 * disk full drops the oldest changes to make room (sqlite/writes.ts asks); retention's prune
 * drops by versions and days. Each drop is recorded per reason in `history_dropped`, which
 * the history's pages report, and told to `StoreOptions.onHistoryDropped` once committed.
 */
import { now } from "./context.js";
import type { DropReason, HistoryDrop, HistoryDropEvent } from "./history-types.js";
import {
  type SqliteDatabase as Database,
  plainRows,
  type SqliteStatement,
} from "./sqlite/driver.js";
import { HISTORY_ROW_COST } from "./sqlite/schema.js";

/**
 * The most history one write's transaction (or one call of prune) drops for the budget: a
 * store far over it (written by a version without a budget, or given a smaller one) comes
 * down in steps, as retention's prune runs between calls and as writes come, rather than in
 * one long transaction.
 */
export const WRITE_DROP_BYTES = 16 * 1024 * 1024;

interface Usage {
  live_bytes: number;
  history_bytes: number;
  history_rows: number;
}

export class HistoryBudget {
  readonly #bytes: number;
  readonly #onDropped: ((event: HistoryDropEvent) => void) | undefined;
  readonly #namespace: string | undefined;
  readonly #usage: SqliteStatement;
  readonly #oldest: SqliteStatement;
  readonly #dropThrough: SqliteStatement;

  readonly #record: SqliteStatement;
  readonly #dropped: SqliteStatement;
  /** Drops made in the transaction running now, told once it commits. */
  #pending: HistoryDropEvent[] = [];

  /** `bytes`: the budget (0: none), checked by the caller; `namespace` is told with each drop. */
  constructor(
    db: Database,
    bytes: number,
    onDropped: ((event: HistoryDropEvent) => void) | undefined,
    namespace?: string,
  ) {
    this.#bytes = bytes;
    this.#onDropped = onDropped;
    this.#namespace = namespace;
    this.#usage = db.prepare(
      "SELECT live_bytes, history_bytes, history_rows FROM history_usage WHERE id = 1",
    );
    this.#oldest = db.prepare(
      `SELECT seq, at, ${HISTORY_ROW_COST.replaceAll("%", "h")} AS cost
       FROM memory_history h ORDER BY seq`,
    );
    this.#dropThrough = db.prepare("DELETE FROM memory_history WHERE seq <= ?");

    this.#record = db.prepare(
      `INSERT INTO history_dropped (reason, changes, through, at) VALUES (?, ?, ?, ?)
       ON CONFLICT (reason) DO UPDATE SET changes = changes + excluded.changes,
         through = max(through, excluded.through), at = excluded.at`,
    );
    this.#dropped = db.prepare(
      "SELECT reason, changes, through, at FROM history_dropped ORDER BY at DESC, reason",
    );
  }

  /** Bytes the history takes beyond `bytes` or the live text, whichever is more (0: within). */
  excess(bytes: number = this.#bytes): number {
    if (bytes === 0) return 0;
    const usage = this.#usage.get() as Usage;
    return Math.max(0, usage.history_bytes - Math.max(bytes, usage.live_bytes));
  }

  /**
   * Inside a write transaction, after its changes: drops the oldest changes while the history
   * is over its budget (at most {@link WRITE_DROP_BYTES}).
   */
  enforce(): void {
    const excess = this.excess();
    if (excess > 0) this.dropOldest(Math.min(excess, WRITE_DROP_BYTES), "bytes");
  }

  /**
   * Inside a write transaction: drops the oldest changes, in order, until they took at least
   * `bytes` (at least one, at most `maxRows`), with the older changes that were kept as
   * splices of them. Returns how many changes went (0: the history is empty).
   */
  dropOldest(bytes: number, reason: DropReason, maxRows = Number.POSITIVE_INFINITY): number {
    let freed = 0;
    let rows = 0;
    let last: number | undefined;
    let through = "";
    const oldest = this.#oldest.iterate() as IterableIterator<{
      seq: number;
      at: string;
      cost: number;
    }>;
    for (const row of oldest) {
      last = row.seq;
      if (row.at > through) through = row.at;
      freed += row.cost;
      rows += 1;
      if (freed >= bytes || rows >= maxRows) break;
    }
    oldest.return?.();
    if (last === undefined) return 0;
    const dropped = this.counting(() => this.#dropThrough.run(last));
    this.record(reason, dropped.rows, through, dropped.bytes);
    return dropped.rows;
  }

  /** Runs `deletes` and counts the history rows and bytes they removed (cascades included). */
  counting(deletes: () => void): { rows: number; bytes: number } {
    const before = this.#usage.get() as Usage;
    deletes();
    const after = this.#usage.get() as Usage;
    return {
      rows: before.history_rows - after.history_rows,
      bytes: before.history_bytes - after.history_bytes,
    };
  }

  /** Inside a write transaction: records `changes` dropped for `reason`, the newest made at `through`. */
  record(reason: DropReason, changes: number, through: string, bytes = 0): void {
    if (changes <= 0) return;
    this.#record.run(reason, changes, through, now());
    this.#pending.push({ namespace: this.#namespace, reason, changes, bytes, through });
  }

  /** The bytes the history takes, all of which a full disk may take back. */
  roomToMake(): number {
    return (this.#usage.get() as Usage).history_bytes;
  }

  /** On a full disk, inside a write transaction: drops the oldest `bytes` of history. */
  makeRoom(bytes: number): void {
    this.dropOldest(bytes, "disk_full");
  }

  /** After each write transaction: tells what it dropped if it committed, else forgets it. */
  ended(committed: boolean): void {
    const told = this.#pending;
    this.#pending = [];
    if (committed) for (const event of told) this.#onDropped?.(event);
  }

  /** What the history has dropped, per reason, most recent first. */
  dropped(): HistoryDrop[] {
    return plainRows<HistoryDrop>(this.#dropped.all());
  }
}
