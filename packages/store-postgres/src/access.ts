/**
 * When each memory was last read, to the day, on PostgreSQL: reads are noted in memory (a key
 * already noted today costs nothing more) and written by `flush` in one transaction, as
 * @hms/store's access.ts does. Last use is the later of the last read and the last write.
 */
import type { AccessApi, UnusedFile } from "@hms/store";
import { checkInteger, checkPrefix, checkTime } from "@hms/store/internal";
import type { PgContext } from "./context.js";

// A read is known to the day, taken as its last millisecond; both sides compare as ISO text.
const LAST_USE = "greatest(m.updated_at, coalesce(a.read_on || 'T23:59:59.999Z', ''))";

export class PgAccess implements AccessApi {
  readonly #ctx: PgContext;
  /** Keys read since the last flush, with the day they were read. */
  readonly #pending = new Map<string, string>();
  #today = "";
  readonly #seenToday = new Set<string>();

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
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

  async flush(): Promise<number> {
    if (this.#pending.size === 0) return 0;
    const notes = [...this.#pending];
    this.#pending.clear();
    if ((await this.#ctx.id()) === undefined) return notes.length;
    try {
      await this.#ctx.write((client, ns) =>
        client.query(
          `INSERT INTO hms_memory_access (memory_id, read_on)
           SELECT m.id, n.day FROM unnest($2::text[], $3::text[]) AS n (key, day)
           JOIN hms_memories m ON m.ns = $1 AND m.key = n.key
           ON CONFLICT (memory_id) DO UPDATE
             SET read_on = greatest(hms_memory_access.read_on, excluded.read_on)`,
          [ns, notes.map(([key]) => key), notes.map(([, day]) => day)],
        ),
      );
    } catch (error) {
      // Not written: keep the notes for the next flush (a later read of the day is no newer).
      for (const [key, day] of notes) if (!this.#pending.has(key)) this.#pending.set(key, day);
      throw error;
    }
    return notes.length;
  }

  async unused(
    before: string,
    options: { prefix?: string; limit?: number } = {},
  ): Promise<UnusedFile[]> {
    const cutoff = checkTime(before, "before");
    const prefix = checkPrefix(options.prefix ?? "/memories/", this.#ctx.limits);
    const limit = checkInteger(options.limit ?? 1000, "limit", 1, 1000);
    return await this.#ctx.read([], async (client, ns) => {
      const { rows } = await client.query<UnusedFile>(
        `SELECT m.key, m.version, m.bytes, ${LAST_USE} AS last_used
         FROM hms_memories m LEFT JOIN hms_memory_access a ON a.memory_id = m.id
         WHERE m.ns = $1 AND starts_with(m.key, $2) AND ${LAST_USE} < $3
         ORDER BY last_used, m.key LIMIT $4`,
        [ns, prefix, cutoff, limit],
      );
      return rows;
    });
  }
}
