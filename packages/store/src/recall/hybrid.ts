/**
 * Hybrid recall: BM25 and embedding similarity, fused.
 *
 * Candidates are the union of the best `lexicalDepth` memories by BM25 and the `denseDepth`
 * memories nearest to the query vector (exact search over every passage vector), both under
 * the same tag/prefix filter. Each candidate's two scores are normalised over the candidate
 * set and combined convexly (see {@link fuse}). A memory whose vectors are still pending has no
 * semantic score; its lexical score stands in for it, so it ranks as the lexical build would
 * rank it among the others.
 */
import type BetterSqlite3 from "better-sqlite3";
import { prefixSuccessor } from "../keys.js";
import { LexicalRanker } from "./lexical.js";
import type { RankContext, RankedId, Ranker, RecallFilter } from "./ranker.js";
import type { DenseHit, Scan, VectorIndex } from "./vector-index.js";

/** How the two rankings are fused. Chosen on SciFact's train split; see the store README. */
export interface FusionParams {
  /** Weight of the normalised BM25 score; the semantic score gets `1 - lexicalWeight`. */
  readonly lexicalWeight: number;
  /** How many BM25 candidates are considered. */
  readonly lexicalDepth: number;
  /** How many nearest memories by embedding are considered. */
  readonly denseDepth: number;
}

/**
 * The fusion hms-mcp runs, chosen on SciFact's train split (809 queries) with
 * `pnpm bench tune-fusion`: nDCG@10 is flat (0.744 to 0.748) for lexical weights from 0.3 to
 * 0.5 and peaks at 0.4; 1,000 BM25 candidates beat 100 by about 0.002 at every weight; the
 * dense depth made no difference from 20 to 200. See the store README.
 */
export const DEFAULT_FUSION: FusionParams = Object.freeze({
  lexicalWeight: 0.4,
  lexicalDepth: 1000,
  denseDepth: 100,
});

/** One candidate's scores before fusion; `dense` is undefined while its vectors are pending. */
export interface Candidate {
  readonly id: number;
  /** Its BM25 score on any positive scale (fusion divides by the largest); none if unlisted. */
  readonly lexical: number | undefined;
  readonly dense: DenseHit | undefined;
}

/**
 * Fuses candidates into one ranking, best first. Each score is min-max normalised over the
 * candidates that have it; a candidate missing from the BM25 list gets 0 for it (it is at most
 * as relevant lexically as the worst listed one), and one without vectors takes its normalised
 * BM25 score for the semantic part. The fused score is in [0, 1]; the best candidate need not
 * score 1 (it scores 1 only when it is best both lexically and semantically). A candidate
 * scoring 0 (no query term and the least similar of the candidates) is left out: it was
 * found only as the tail of the nearest-neighbour list, and a hit of score 0 says nothing.
 */
export function fuse(candidates: readonly Candidate[], params: FusionParams): RankedId[] {
  let lexMin = Number.POSITIVE_INFINITY;
  let lexMax = Number.NEGATIVE_INFINITY;
  let denseMin = Number.POSITIVE_INFINITY;
  let denseMax = Number.NEGATIVE_INFINITY;
  for (const c of candidates) {
    if (c.lexical !== undefined) {
      lexMin = Math.min(lexMin, c.lexical);
      lexMax = Math.max(lexMax, c.lexical);
    }
    if (c.dense !== undefined) {
      denseMin = Math.min(denseMin, c.dense.score);
      denseMax = Math.max(denseMax, c.dense.score);
    }
  }
  // Lexical scores (BM25, relative to the best hit) are positive; their floor is 0 (no
  // matching term), so normalise from 0.
  lexMin = Math.min(0, lexMin);
  const lexRange = lexMax - lexMin;
  const denseRange = denseMax - denseMin;
  const w = params.lexicalWeight;
  return candidates
    .map((c) => {
      const lex = c.lexical === undefined || !(lexRange > 0) ? 0 : (c.lexical - lexMin) / lexRange;
      const dense =
        c.dense === undefined ? lex : denseRange > 0 ? (c.dense.score - denseMin) / denseRange : 1;
      // Both parts lie in [0, 1], so a convex blend does too; the clamp only absorbs the last
      // bit of rounding some weights could add (w + (1 - w) need not be exactly 1 in floats).
      const score = Math.min(1, Math.max(0, w * lex + (1 - w) * dense));
      return { id: c.id, score, passage: c.dense?.passage };
    })
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.id - b.id);
}

export class HybridRanker implements Ranker {
  readonly build = "hybrid" as const;
  readonly model: string;
  readonly #lexical: LexicalRanker;
  readonly #index: VectorIndex;
  readonly #params: FusionParams;
  readonly #inRange: BetterSqlite3.Statement;
  readonly #hasTag: BetterSqlite3.Statement;
  readonly #rangeIds: BetterSqlite3.Statement;
  readonly #tagIds: BetterSqlite3.Statement;

  constructor(
    db: BetterSqlite3.Database,
    model: string,
    index: VectorIndex,
    params: FusionParams = DEFAULT_FUSION,
  ) {
    this.model = model;
    // Every BM25 match is scored, as before the lexical candidate step: fusion was tuned on
    // that list, and SciFact hybrid has not been measured with candidates only.
    this.#lexical = new LexicalRanker(db, Number.POSITIVE_INFINITY);
    this.#index = index;
    this.#params = params;
    this.#inRange = db.prepare(
      "SELECT 1 FROM memories WHERE id = @id AND key >= @lo AND (@hi IS NULL OR key < @hi)",
    );
    this.#hasTag = db.prepare("SELECT 1 FROM memory_tags WHERE tag = @tag AND memory_id = @id");
    this.#rangeIds = db
      .prepare("SELECT id FROM memories WHERE key >= @lo AND (@hi IS NULL OR key < @hi)")
      .pluck();
    this.#tagIds = db.prepare("SELECT memory_id FROM memory_tags WHERE tag = @tag").pluck();
  }

  rank(query: string, filter: RecallFilter, k: number, context: RankContext = {}): RankedId[] {
    const { vector } = context;
    if (vector === undefined) return this.#lexical.rank(query, filter, k);
    const params = this.#params;
    const lexical = this.#lexical.rank(query, filter, Math.max(k, params.lexicalDepth));
    this.#index.sync();
    const scan = this.#index.scan(vector);
    const dense = this.#nearest(scan, filter, Math.max(k, params.denseDepth));
    const byId = new Map<number, { lexical: number | undefined; dense: DenseHit | undefined }>();
    for (const hit of lexical) byId.set(hit.id, { lexical: hit.score, dense: undefined });
    for (const hit of dense) {
      const entry = byId.get(hit.id);
      if (entry === undefined) byId.set(hit.id, { lexical: undefined, dense: hit });
      else entry.dense = hit;
    }
    const candidates: Candidate[] = [];
    for (const [id, entry] of byId) {
      candidates.push({
        id,
        lexical: entry.lexical,
        dense: entry.dense ?? scan.score(id),
      });
    }
    return fuse(candidates, params).slice(0, k);
  }

  /**
   * The `n` nearest memories that pass `filter`. The filter is first checked on the nearest
   * ones in order (a primary-key probe each); when it lets too few through (a narrow filter),
   * the matching ids are read once and the search runs again over those only.
   */
  #nearest(scan: Scan, filter: RecallFilter, n: number): DenseHit[] {
    const prefix = filter.prefix || undefined;
    const tag = filter.tag;
    if (prefix === undefined && tag === undefined) return scan.best(n);
    const lo = prefix ?? "";
    const hi = prefix === undefined ? null : (prefixSuccessor(prefix) ?? null);
    const passes = (id: number) =>
      (prefix === undefined || this.#inRange.get({ id, lo, hi }) !== undefined) &&
      (tag === undefined || this.#hasTag.get({ tag, id }) !== undefined);
    const wide = scan.best(n * 4);
    const kept = wide.filter((hit) => passes(hit.id));
    if (kept.length >= n || wide.length < n * 4) return kept.slice(0, n);
    let allowed: Set<number> | undefined;
    if (prefix !== undefined) allowed = new Set(this.#rangeIds.all({ lo, hi }) as number[]);
    if (tag !== undefined) {
      const tagged = this.#tagIds.all({ tag }) as number[];
      allowed =
        allowed === undefined
          ? new Set(tagged)
          : new Set(tagged.filter((id) => (allowed as Set<number>).has(id)));
    }
    const set = allowed ?? new Set<number>();
    return scan.best(n, (id) => set.has(id));
  }
}
