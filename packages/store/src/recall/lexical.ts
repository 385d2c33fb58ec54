import type BetterSqlite3 from "better-sqlite3";
import { prefixSuccessor } from "../keys.js";
import { matchExpression } from "./query.js";
import type { RankedId, Ranker, RecallFilter } from "./ranker.js";

/**
 * Lexical recall: Okapi BM25 as computed by SQLite FTS5 (k1 = 1.2, b = 0.75) over a Porter-
 * stemmed unicode61 index of each memory's text, with queries as OR of their terms.
 *
 * Scores are relative to the query's best hit: each hit's BM25 divided by the best one's, so
 * the best hit scores exactly 1 and the others lie in (0, 1]. Raw BM25 means little to a
 * reader, and FTS5 floors a term's IDF at 1e-6, so in a small store where most memories hold
 * the term every raw score is near zero. Dividing by one positive number keeps the ranking.
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
    const ranked = this.#rank.all({
      expr,
      lo: prefix ?? null,
      hi: prefix === undefined ? null : (prefixSuccessor(prefix) ?? null),
      tag: filter.tag ?? null,
      k,
    }) as RankedId[];
    const best = ranked[0]?.score;
    // BM25 of a match is positive (FTS5's IDF floor keeps it so); the guard only keeps a
    // degenerate best score from turning every hit into NaN or Infinity.
    if (best === undefined || !(best > 0) || !Number.isFinite(best)) return ranked;
    return ranked.map(({ id, score }) => ({ id, score: score / best }));
  }
}
