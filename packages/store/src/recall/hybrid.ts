/**
 * Hybrid recall: BM25 and embedding similarity, fused.
 *
 * Candidates are the union of the best `lexicalDepth` memories by BM25 and the `denseDepth`
 * memories nearest to the query vector (exact search over every passage vector), both under
 * the same tag/prefix/time filter. Each candidate's two scores are put on an absolute scale (BM25 as
 * a share of the query's ceiling, the cosine through a fixed calibration) and combined
 * convexly (see {@link fuse}), so a score does not depend on the other candidates. A memory
 * whose vectors are still pending has no semantic score; its lexical score stands in for it.
 */
import { prefixSuccessor } from "../keys.js";
import type { SqliteDatabase, SqliteStatement } from "../sqlite/driver.js";
import { BY_ID_AND_TIME, LexicalRanker } from "./lexical.js";
import type { RankContext, RankedId, Ranker, RecallFilter } from "./ranker.js";
import type { DenseHit, Scan, VectorIndex } from "./vector-index.js";

/** How the two rankings are fused. Chosen on SciFact's train split; see the store README. */
export interface FusionParams {
  /** Weight of the lexical score; the semantic score gets `1 - lexicalWeight`. */
  readonly lexicalWeight: number;
  /** How many BM25 candidates are considered. */
  readonly lexicalDepth: number;
  /** How many nearest memories by embedding are considered. */
  readonly denseDepth: number;
  /** Cosine at or below which a memory counts as unrelated: its semantic score is 0. */
  readonly cosineFloor: number;
  /** Cosine at or above which a memory counts as the same meaning: its semantic score is 1. */
  readonly cosineCeiling: number;
}

/**
 * The fusion hms-mcp runs, chosen with `pnpm bench tune-fusion` on SciFact's train split and
 * the distractor set (`pnpm bench distractors`). SciFact train nDCG@10 is flat (0.747 to 0.753)
 * over lexical weights 0.5 to 0.7, cosine floors 0 to 0.3 and ceilings 0.7 to 1, so the
 * simplest calibration was kept: the cosine itself, negative ones counted as 0 (floor 0,
 * ceiling 1; train 0.749). A higher floor would also drop the README's own example as noise:
 * "how should I contact that client?" is only 0.14 from "Acme Corp prefers email follow-ups".
 * Depths as tuned before (1,000 BM25 candidates beat 100 by about 0.002; dense depth 20 to
 * 200: no change).
 */
export const DEFAULT_FUSION: FusionParams = Object.freeze({
  lexicalWeight: 0.6,
  lexicalDepth: 1000,
  denseDepth: 100,
  cosineFloor: 0,
  cosineCeiling: 1,
});

/** Refuses parameters that would not give scores in [0, 1] (tuning passes its own). */
export function checkFusion(params: FusionParams): void {
  const { lexicalWeight: w, cosineFloor: floor, cosineCeiling: ceiling } = params;
  if (!(w >= 0 && w <= 1)) throw new RangeError(`lexicalWeight ${w} is not in [0, 1]`);
  if (!(Number.isFinite(floor) && Number.isFinite(ceiling) && ceiling > floor)) {
    throw new RangeError(
      `cosineCeiling (${ceiling}) must be above cosineFloor (${floor}): the calibration divides by their difference`,
    );
  }
}

/** One candidate's scores before fusion; `dense` is undefined while its vectors are pending. */
export interface Candidate {
  readonly id: number;
  /**
   * Its BM25 as a share of the query's ceiling (`bm25 / bm25Ceiling`, in [0, 1)); undefined
   * when it is not in the BM25 list (it holds no query term, or fewer than the listed ones).
   */
  readonly lexical: number | undefined;
  readonly dense: DenseHit | undefined;
}

/** A cosine on the fusion's absolute scale: 0 at `cosineFloor` and below, 1 at the ceiling. */
export function calibrated(cosine: number, params: FusionParams): number {
  const share = (cosine - params.cosineFloor) / (params.cosineCeiling - params.cosineFloor);
  return Math.min(1, Math.max(0, share));
}

/**
 * Fuses candidates into one ranking, best first: `w × lexical + (1 − w) × semantic`, where the
 * lexical score is the candidate's share of the query's BM25 ceiling and the semantic score its
 * calibrated cosine ({@link calibrated}). Both are absolute, not scaled against the other
 * candidates, so a score means the same in every query and every store: a weak match stays
 * weak however weak the rest are. A candidate without vectors takes its lexical score for the
 * semantic part. A candidate scoring 0 (no query term, and a cosine at or below the floor) is
 * left out: a hit of score 0 says nothing.
 */
export function fuse(candidates: readonly Candidate[], params: FusionParams): RankedId[] {
  const w = params.lexicalWeight;
  return candidates
    .map((c) => {
      const lex = c.lexical ?? 0;
      const dense = c.dense === undefined ? lex : calibrated(c.dense.score, params);
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
  readonly #inRange: SqliteStatement;
  readonly #hasTag: SqliteStatement;
  readonly #rangeIds: SqliteStatement;
  readonly #tagIds: SqliteStatement;
  readonly #inTime: SqliteStatement;
  readonly #timeIds: SqliteStatement;

  constructor(
    db: SqliteDatabase,
    model: string,
    index: VectorIndex,
    params: FusionParams = DEFAULT_FUSION,
  ) {
    checkFusion(params);
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
    this.#rangeIds = db.prepare(
      "SELECT id FROM memories WHERE key >= @lo AND (@hi IS NULL OR key < @hi)",
    );
    this.#tagIds = db.prepare("SELECT memory_id AS id FROM memory_tags WHERE tag = @tag");
    this.#inTime = db.prepare(
      `SELECT 1 FROM ${BY_ID_AND_TIME} WHERE id = @id AND updated_at >= @after AND updated_at < @before`,
    );
    // Read from the index on updated_at.
    this.#timeIds = db.prepare(
      "SELECT id FROM memories WHERE updated_at >= @after AND updated_at < @before",
    );
  }

  rank(query: string, filter: RecallFilter, k: number, context: RankContext = {}): RankedId[] {
    const { vector } = context;
    if (vector === undefined) return this.#lexical.rank(query, filter, k);
    const params = this.#params;
    const { hits: lexical, ceiling } = this.#lexical.scored(
      query,
      filter,
      Math.max(k, params.lexicalDepth),
    );
    this.#index.sync();
    const scan = this.#index.scan(vector);
    const dense = this.#nearest(scan, filter, Math.max(k, params.denseDepth));
    const byId = new Map<number, { lexical: number | undefined; dense: DenseHit | undefined }>();
    for (const hit of lexical) byId.set(hit.id, { lexical: hit.bm25 / ceiling, dense: undefined });
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
    const timed = filter.after !== undefined || filter.before !== undefined;
    if (prefix === undefined && tag === undefined && !timed) return scan.best(n);
    const lo = prefix ?? "";
    const hi = prefix === undefined ? null : (prefixSuccessor(prefix) ?? null);
    // An absent bound is the text below, or above, every updated_at (as in lexical.ts).
    const times = { after: filter.after ?? "", before: filter.before ?? "~" };
    const passes = (id: number) =>
      (prefix === undefined || this.#inRange.get({ id, lo, hi }) !== undefined) &&
      (tag === undefined || this.#hasTag.get({ tag, id }) !== undefined) &&
      (!timed || this.#inTime.get({ id, ...times }) !== undefined);
    const wide = scan.best(n * 4);
    const kept = wide.filter((hit) => passes(hit.id));
    if (kept.length >= n || wide.length < n * 4) return kept.slice(0, n);
    const sets: number[][] = [];
    if (prefix !== undefined) sets.push(idsOf(this.#rangeIds.all({ lo, hi })));
    if (tag !== undefined) sets.push(idsOf(this.#tagIds.all({ tag })));
    if (timed) sets.push(idsOf(this.#timeIds.all(times)));
    let allowed = new Set(sets[0]);
    for (const ids of sets.slice(1)) allowed = new Set(ids.filter((id) => allowed.has(id)));
    return scan.best(n, (id) => allowed.has(id));
  }
}

function idsOf(rows: unknown[]): number[] {
  return (rows as { id: number }[]).map((row) => row.id);
}
