import type BetterSqlite3 from "better-sqlite3";
import { MATCH_CLOSE, MATCH_OPEN } from "./excerpt.js";

/** Memories of one term counted exactly when weighing it; see {@link Highlighter.weights}. */
export const COUNT_CAP = 1000;

/**
 * Finds where a query's terms occur in a memory, with the same tokenizer and stemmer as the
 * index (FTS5's highlight()), whichever ranker found the memory, and how rare each term is in
 * the store.
 */
export class Highlighter {
  readonly #highlight: BetterSqlite3.Statement;
  readonly #documents: BetterSqlite3.Statement;
  readonly #firstRows: BetterSqlite3.Statement;
  readonly #maxId: BetterSqlite3.Statement;

  constructor(db: BetterSqlite3.Database) {
    // One row per term the memory contains: the term's index in @terms and the text with that
    // term's occurrences wrapped in marks. Each term is its own quoted phrase, so the marks of
    // one row belong to one term (stemmed forms included: "paint" marks "painted").
    this.#highlight = db.prepare(`
      SELECT t.key AS term, highlight(memories_fts, 0, '${MATCH_OPEN}', '${MATCH_CLOSE}') AS text
      FROM json_each(@terms) AS t, memories_fts
      WHERE memories_fts MATCH '"' || t.value || '"' AND memories_fts.rowid = @id`);
    // FTS5 keeps the number of rows it indexes in its "averages" record (the first varint of
    // the block with id 1; bm25() reads the same one): a lookup, where count(*) would scan.
    this.#documents = db
      .prepare("SELECT block FROM memories_fts_data WHERE id = 1")
      .pluck() as BetterSqlite3.Statement;
    // A term's first @cap memories, in rowid order (FTS5's order without ORDER BY): how many
    // there are and the last one's rowid.
    this.#firstRows = db.prepare(`
      SELECT count(*) AS n, max(r) AS last
      FROM (SELECT rowid AS r FROM memories_fts WHERE memories_fts MATCH @expr LIMIT @cap)`);
    this.#maxId = db.prepare("SELECT max(id) FROM memories").pluck() as BetterSqlite3.Statement;
  }

  /**
   * For each of `terms` (as {@link excerptTerms} gives them: word characters only), the text of
   * memory `id` with that term's occurrences wrapped in MATCH_OPEN/MATCH_CLOSE, or `undefined`
   * when the memory does not contain it.
   */
  highlight(id: number, terms: readonly string[]): (string | undefined)[] {
    const out: (string | undefined)[] = terms.map(() => undefined);
    if (terms.length === 0) return out;
    // A BigInt binds as an INTEGER. A JavaScript number binds as a REAL, and FTS5 then drops
    // the rowid constraint: the statement would answer with the first matching memory instead.
    const rows = this.#highlight.all({ terms: JSON.stringify(terms), id: BigInt(id) }) as {
      term: number;
      text: string;
    }[];
    for (const row of rows) out[row.term] = row.text;
    return out;
  }

  /**
   * How informative each term is: its inverse document frequency over the store, as BM25
   * computes it, `ln(1 + (N − df + 0.5) / (df + 0.5))` (N memories, df of them hold the term).
   * A term every memory holds weighs almost nothing; one held by a single memory of many
   * weighs most.
   *
   * df is counted exactly up to {@link COUNT_CAP}; past that, counting a common term's
   * memories would cost as much as ranking, so it is estimated from how far into the rowids
   * its first COUNT_CAP memories reach (`COUNT_CAP × max rowid / rowid of the last of them`):
   * for such a term the IDF is low and a rough df moves it little.
   */
  weights(terms: readonly string[]): number[] {
    if (terms.length === 0) return [];
    const n = documentCount(this.#documents.get() as Buffer | undefined);
    let maxId: number | undefined;
    return terms.map((term) => {
      // A term holds only word characters, so it cannot contain a double quote.
      const { n: first, last } = this.#firstRows.get({ expr: `"${term}"`, cap: COUNT_CAP }) as {
        n: number;
        last: number | null;
      };
      let df = first;
      if (first >= COUNT_CAP && last !== null && last > 0) {
        maxId ??= (this.#maxId.get() as number | null) ?? last;
        df = (COUNT_CAP * maxId) / last;
      }
      const total = Math.max(n, df);
      df = Math.min(df, total);
      return Math.log(1 + (total - df + 0.5) / (df + 0.5));
    });
  }
}

/** The row count at the start of FTS5's averages record (an SQLite varint), or 0. */
export function documentCount(block: Buffer | undefined): number {
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
