import type BetterSqlite3 from "better-sqlite3";
import { prefixSuccessor } from "../keys.js";
import { matchExpression } from "./query.js";
import type { RankedId, Ranker, RecallFilter } from "./ranker.js";

/**
 * Lexical recall: Okapi BM25 as computed by SQLite FTS5 (k1 = 1.2, b = 0.75) over a Porter-
 * stemmed unicode61 index of each memory's text, with queries as OR of their terms.
 */
export class LexicalRanker implements Ranker {
  readonly build = "lexical" as const;
  readonly model = null;
  readonly #rank: BetterSqlite3.Statement;

  constructor(db: BetterSqlite3.Database) {
    // bm25() is lower-is-better; the score is its negation. Filters are correlated EXISTS
    // lookups per match (primary-key probes), which measured faster than joining the memories
    // table or building an IN list; `rowid IN (...)` would even drive FTS5 one row at a time.
    this.#rank = db.prepare(`
      SELECT rowid AS id, -bm25(memories_fts) AS score FROM memories_fts
      WHERE memories_fts MATCH @expr
        AND (@tag IS NULL OR EXISTS (
          SELECT 1 FROM memory_tags WHERE tag = @tag AND memory_id = memories_fts.rowid))
        AND (@lo IS NULL OR EXISTS (
          SELECT 1 FROM memories WHERE id = memories_fts.rowid
            AND key >= @lo AND (@hi IS NULL OR key < @hi)))
      ORDER BY bm25(memories_fts), rowid
      LIMIT @k`);
  }

  rank(query: string, filter: RecallFilter, k: number): RankedId[] {
    const expr = matchExpression(query);
    if (expr === undefined) return [];
    const prefix = filter.prefix || undefined;
    return this.#rank.all({
      expr,
      lo: prefix ?? null,
      hi: prefix === undefined ? null : (prefixSuccessor(prefix) ?? null),
      tag: filter.tag ?? null,
      k,
    }) as RankedId[];
  }
}
