import type BetterSqlite3 from "better-sqlite3";
import { MATCH_CLOSE, MATCH_OPEN } from "./excerpt.js";
import { matchExpression } from "./query.js";

/**
 * Finds where a query's terms occur in a memory, with the same tokenizer and stemmer as the
 * index (FTS5's highlight()), whichever ranker found the memory.
 */
export class Highlighter {
  readonly #highlight: BetterSqlite3.Statement;

  constructor(db: BetterSqlite3.Database) {
    this.#highlight = db.prepare(`
      SELECT highlight(memories_fts, 0, '${MATCH_OPEN}', '${MATCH_CLOSE}') AS text
      FROM memories_fts WHERE memories_fts MATCH @expr AND rowid = @id`);
  }

  /**
   * The text of memory `id` with each term of `query` it contains wrapped in
   * MATCH_OPEN/MATCH_CLOSE, or `undefined` when it contains none.
   */
  highlight(id: number, query: string): string | undefined {
    const expr = matchExpression(query);
    if (expr === undefined) return undefined;
    // A BigInt binds as an INTEGER. A JavaScript number binds as a REAL, and FTS5 then drops
    // the rowid constraint: the statement would answer with the first matching memory instead.
    const row = this.#highlight.get({ expr, id: BigInt(id) }) as { text: string } | undefined;
    return row?.text;
  }
}
