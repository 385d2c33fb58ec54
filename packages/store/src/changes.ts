/**
 * Reading a store's changes forward (SQLite): the history's rows after a seq. The history
 * records every create, edit, move and delete of a memory file in the write's own transaction
 * (history.ts), and SQLite commits one write at a time, so seq order is commit order; another
 * process's writes show up here as soon as they commit.
 */
import { MAX_CHANGES_PAGE, type MemoryChange } from "./changes-types.js";
import { checkInteger } from "./limits.js";
import {
  type SqliteDatabase as Database,
  plainRows,
  type SqliteStatement,
} from "./sqlite/driver.js";

export type { MemoryChange } from "./changes-types.js";

/** A store's changes of memory files, read forward (see `ChangesApi` in engine.ts). */
export class Changes {
  readonly #latest: SqliteStatement;
  readonly #after: SqliteStatement;

  constructor(db: Database) {
    this.#latest = db.prepare("SELECT coalesce(max(seq), 0) AS seq FROM memory_history");
    this.#after = db.prepare(
      "SELECT seq, key, op, from_key FROM memory_history WHERE seq > ? ORDER BY seq LIMIT ?",
    );
  }

  /** The seq of the newest change (0 when the history holds none). */
  latest(): number {
    return Number((this.#latest.get() as { seq: number | bigint }).seq);
  }

  /** The changes after `seq`, oldest first, at most `limit` (1 to 1000, default 1000). */
  after(seq: number, options: { limit?: number } = {}): MemoryChange[] {
    checkInteger(seq, "seq", 0, Number.MAX_SAFE_INTEGER);
    const limit = checkInteger(options.limit ?? MAX_CHANGES_PAGE, "limit", 1, MAX_CHANGES_PAGE);
    return plainRows<MemoryChange>(this.#after.all(seq, limit));
  }
}
