import type { SqliteDatabase, SqliteStatement } from "../sqlite/driver.js";

/** Memories of one term counted exactly; past this many the count is estimated. */
export const COUNT_CAP = 1000;

/** How many memories hold a term: exact when `exact`, else an estimate of at least COUNT_CAP. */
export interface TermFrequency {
  readonly df: number;
  readonly exact: boolean;
}

/**
 * How rare a query's terms are in the store: the number of memories the FTS5 index holds and,
 * per term, how many of them hold it. Both ranking (which terms pick the candidates) and
 * excerpts (which words weigh most) ask.
 */
export class TermRarity {
  readonly #documents: SqliteStatement;
  readonly #firstRows: SqliteStatement;
  readonly #maxId: SqliteStatement;

  constructor(db: SqliteDatabase) {
    // FTS5 keeps the number of rows it indexes in its "averages" record (the first varint of
    // the block with id 1; bm25() reads the same one): a lookup, where count(*) would scan.
    this.#documents = db.prepare("SELECT block FROM memories_fts_data WHERE id = 1");
    // A term's first @cap memories, in rowid order (FTS5's order without ORDER BY): how many
    // there are and the last one's rowid.
    this.#firstRows = db.prepare(`
      SELECT count(*) AS n, max(r) AS last
      FROM (SELECT rowid AS r FROM memories_fts WHERE memories_fts MATCH @expr LIMIT @cap)`);
    this.#maxId = db.prepare("SELECT max(id) AS id FROM memories");
  }

  /** The number of memories in the index. */
  documents(): number {
    const row = this.#documents.get() as { block: Uint8Array } | undefined;
    return documentCount(row?.block);
  }

  /**
   * How many memories hold each of `terms` (word characters only). Counted exactly up to
   * {@link COUNT_CAP}; past that, counting a common term's memories would cost as much as
   * ranking them, so it is estimated from how far into the rowids its first COUNT_CAP
   * memories reach (`COUNT_CAP × max rowid / rowid of the last of them`).
   */
  frequencies(terms: readonly string[]): TermFrequency[] {
    let maxId: number | undefined;
    return terms.map((term) => {
      // A term holds only word characters, so it cannot contain a double quote.
      const { n, last } = this.#firstRows.get({ expr: `"${term}"`, cap: COUNT_CAP }) as {
        n: number;
        last: number | null;
      };
      if (n < COUNT_CAP || last === null || !(last > 0)) return { df: n, exact: true };
      maxId ??= (this.#maxId.get() as { id: number | null }).id ?? last;
      return { df: Math.max(COUNT_CAP, (COUNT_CAP * maxId) / last), exact: false };
    });
  }
}

/** The row count at the start of FTS5's averages record (an SQLite varint), or 0. */
export function documentCount(block: Uint8Array | undefined): number {
  if (block === undefined || block === null) return 0;
  let value = 0;
  for (let i = 0; i < Math.min(block.length, 9); i++) {
    const byte = block[i] as number;
    if (i === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return value;
}
