import {
  type SqliteDatabase,
  type SqliteStatement,
  type TextReads,
  textReads,
} from "../sqlite/driver.js";
import { MATCH_CLOSE, MATCH_OPEN } from "./excerpt.js";
import { TermRarity } from "./rarity.js";

/**
 * Finds where a query's terms occur in a memory, with the same tokenizer and stemmer as the
 * index (FTS5's highlight()), whichever ranker found the memory, and how rare each term is in
 * the store.
 */
export class Highlighter {
  readonly #highlight: SqliteStatement;
  readonly #reads: TextReads;
  readonly #rarity: TermRarity;

  constructor(db: SqliteDatabase) {
    // One row per term the memory contains: the term's index in @terms and the text with that
    // term's occurrences wrapped in marks. Each term is its own quoted phrase, so the marks of
    // one row belong to one term (stemmed forms included: "paint" marks "painted").
    this.#reads = textReads(db);
    const marked = this.#reads.column(
      `highlight(memories_fts, 0, '${MATCH_OPEN}', '${MATCH_CLOSE}')`,
    );
    // Rows as [term, text] arrays.
    this.#highlight = db.prepare(`
      SELECT t.key AS term, ${marked} AS text
      FROM json_each(@terms) AS t, memories_fts
      WHERE memories_fts MATCH '"' || t.value || '"' AND memories_fts.rowid = @id`);
    this.#highlight.setReturnArrays(true);
    this.#rarity = new TermRarity(db);
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
    const rows = this.#highlight.all({ terms: JSON.stringify(terms), id: BigInt(id) }) as [
      term: number,
      text: unknown,
    ][];
    for (const [term, text] of rows) out[term] = this.#reads.text(text);
    return out;
  }

  /**
   * How informative each term is: its inverse document frequency over the store, as BM25
   * computes it, `ln(1 + (N − df + 0.5) / (df + 0.5))` (N memories, df of them hold the term).
   * A term every memory holds weighs almost nothing; one held by a single memory of many
   * weighs most.
   *
   * df is exact for rare terms and estimated for common ones ({@link TermRarity}): for such a
   * term the IDF is low and a rough df moves it little.
   */
  weights(terms: readonly string[]): number[] {
    if (terms.length === 0) return [];
    const n = this.#rarity.documents();
    return this.#rarity.frequencies(terms).map(({ df: counted }) => {
      const total = Math.max(n, counted);
      const df = Math.min(counted, total);
      return Math.log(1 + (total - df + 0.5) / (df + 0.5));
    });
  }
}
