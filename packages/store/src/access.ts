/**
 * When each memory was last read, to the day: enough to find memory files nobody has read
 * for months (the memory tool's docs advise clearing those), at almost no cost per read. A
 * read is noted in memory; a key already noted today costs nothing more, and the notes are
 * written in one transaction by `flush` (hms-mcp flushes every half minute and at close).
 * Last use is the later of the last read and the last write (`updated_at`).
 */
import type { StoreContext } from "./context.js";
import { checkInteger, checkPrefix, checkTime } from "./limits.js";
import {
  type SqliteDatabase as Database,
  plainRows,
  type SqliteStatement,
} from "./sqlite/driver.js";

/** A memory file nobody has used since a time. */
export interface UnusedFile {
  readonly key: string;
  readonly version: number;
  readonly bytes: number;
  /** The later of its last write and its last read (known to the day: the day's end). */
  readonly last_used: string;
}

/** `MemoryStore.access`: notes reads and finds what went unused. */
export interface StoreAccess {
  /** Notes that `key` was read now. */
  noteRead(key: string): void;
  /** Writes the reads noted since the last flush, in one transaction; returns how many. */
  flush(): number;
  /**
   * The memory files under `prefix` (default `/memories/`) whose last use is before
   * `before`, oldest use first, at most `limit` (default 1000).
   */
  unused(before: string, options?: { prefix?: string; limit?: number }): UnusedFile[];
}

export class Access implements StoreAccess {
  readonly #ctx: StoreContext;
  /** Keys read since the last flush, with the day they were read. */
  readonly #pending = new Map<string, string>();
  /** Keys whose read today is already recorded (or pending): nothing to do on a re-read. */
  #today = "";
  readonly #seenToday = new Set<string>();
  readonly #record: SqliteStatement;
  readonly #unused: SqliteStatement;

  constructor(db: Database, ctx: StoreContext) {
    this.#ctx = ctx;
    this.#record = db.prepare(
      `INSERT INTO memory_access (memory_id, read_on)
       SELECT id, @day FROM memories WHERE key = @key
       ON CONFLICT (memory_id) DO UPDATE SET read_on = max(read_on, excluded.read_on)`,
    );
    // updated_at is a full timestamp and read_on a day, taken as its last millisecond (a
    // read is known to the day); both compare as ISO text, and the later is the last use.
    const lastUse = "max(updated_at, coalesce(read_on || 'T23:59:59.999Z', ''))";
    this.#unused = db.prepare(
      `SELECT key, version, bytes, ${lastUse} AS last_used
       FROM memories LEFT JOIN memory_access ON memory_access.memory_id = memories.id
       WHERE substr(key, 1, length(@prefix)) = @prefix AND ${lastUse} < @before
       ORDER BY last_used, key LIMIT @limit`,
    );
  }

  noteRead(key: string): void {
    const day = new Date().toISOString().slice(0, 10);
    if (day !== this.#today) {
      this.#today = day;
      this.#seenToday.clear();
    }
    if (this.#seenToday.has(key)) return;
    this.#seenToday.add(key);
    this.#pending.set(key, day);
  }

  flush(): number {
    if (this.#pending.size === 0) return 0;
    const notes = [...this.#pending];
    this.#pending.clear();
    this.#ctx.write(() => {
      for (const [key, day] of notes) this.#record.run({ key, day });
    });
    return notes.length;
  }

  unused(before: string, options: { prefix?: string; limit?: number } = {}): UnusedFile[] {
    const cutoff = checkTime(before, "before");
    const prefix = checkPrefix(options.prefix ?? "/memories/", this.#ctx.limits);
    const limit = checkInteger(options.limit ?? 1000, "limit", 1, 1000);
    return plainRows<UnusedFile>(this.#unused.all({ prefix, before: cutoff, limit }));
  }
}
