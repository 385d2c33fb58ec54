/**
 * Reading a namespace's changes forward (PostgreSQL), as @hms/store's changes.ts does: the
 * history's rows after a seq. Writes of a namespace take its row lock before they write, so
 * within a namespace seq order is commit order. Seqs are shared by the namespaces of a database:
 * `latest` is the database's newest, a mark from which a namespace's later changes are read.
 */
import { type ChangesApi, MAX_CHANGES_PAGE, type MemoryChange } from "@hms/store";
import { checkInteger } from "@hms/store/internal";
import type { PgContext } from "./context.js";

export class PgChanges implements ChangesApi {
  readonly #ctx: PgContext;

  constructor(ctx: PgContext) {
    this.#ctx = ctx;
  }

  async latest(): Promise<number> {
    const { rows } = await this.#ctx.pool.query<{ seq: number }>(
      "SELECT coalesce(max(seq), 0) AS seq FROM hms_memory_history",
    );
    return rows[0]?.seq ?? 0;
  }

  async after(seq: number, options: { limit?: number } = {}): Promise<MemoryChange[]> {
    checkInteger(seq, "seq", 0, Number.MAX_SAFE_INTEGER);
    const limit = checkInteger(options.limit ?? MAX_CHANGES_PAGE, "limit", 1, MAX_CHANGES_PAGE);
    return await this.#ctx.read([], async (client, ns) => {
      const { rows } = await client.query<MemoryChange>(
        `SELECT seq, key, op, from_key FROM hms_memory_history
         WHERE ns = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
        [ns, seq, limit],
      );
      return rows;
    });
  }
}
