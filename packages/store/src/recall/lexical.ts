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
  readonly #rankAll: BetterSqlite3.Statement;

  constructor(db: BetterSqlite3.Database) {
    // bm25() is lower-is-better; the score is its negation.
    this.#rank = db.prepare(`
      SELECT memories_fts.rowid AS id, -bm25(memories_fts) AS score
      FROM memories_fts JOIN memories ON memories.id = memories_fts.rowid
      WHERE memories_fts MATCH @expr
        AND (@lo IS NULL OR memories.key >= @lo)
        AND (@hi IS NULL OR memories.key < @hi)
        AND (@tag IS NULL OR memories.id IN (SELECT memory_id FROM memory_tags WHERE tag = @tag))
      ORDER BY bm25(memories_fts), memories.key
      LIMIT @k`);
    // Without a filter there is no need to join the memories table at all.
    this.#rankAll = db.prepare(`
      SELECT rowid AS id, -bm25(memories_fts) AS score FROM memories_fts
      WHERE memories_fts MATCH @expr ORDER BY bm25(memories_fts), rowid LIMIT @k`);
  }

  rank(query: string, filter: RecallFilter, k: number): RankedId[] {
    const expr = matchExpression(query);
    if (expr === undefined) return [];
    const prefix = filter.prefix || undefined;
    if (prefix === undefined && filter.tag === undefined) {
      return this.#rankAll.all({ expr, k }) as RankedId[];
    }
    return this.#rank.all({
      expr,
      lo: prefix ?? null,
      hi: prefix === undefined ? null : (prefixSuccessor(prefix) ?? null),
      tag: filter.tag ?? null,
      k,
    }) as RankedId[];
  }
}
