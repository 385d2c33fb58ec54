/**
 * The recall seam. A ranker turns a query into ranked memory ids; the store turns those into
 * hits (key, score, excerpt, line range). The default build has one ranker, the lexical BM25
 * ranker over FTS5. The hybrid build (lexical plus an embedding model) plugs in here as another
 * ranker that fuses the two, and reports `build: "hybrid"` and its model.
 */
import type { PassageSpan } from "../embeddings.js";

/** Which recall a store runs: BM25 only, or BM25 fused with an embedding model. */
export type RecallBuild = "lexical" | "hybrid";

/**
 * Restricts recall to memories with a tag, under a key prefix and/or last changed within a time
 * range. A ranker applies it before it takes the best `k`.
 */
export interface RecallFilter {
  readonly tag?: string | undefined;
  readonly prefix?: string | undefined;
  /** `updated_at` at or after this (`YYYY-MM-DDTHH:MM:SS.sssZ`, see time-range.ts). */
  readonly after?: string | undefined;
  /** `updated_at` before this (same form). */
  readonly before?: string | undefined;
}

/** What a ranker may use besides the query text. */
export interface RankContext {
  /** The query's embedding (unit length), from the store's embedding model. */
  readonly vector?: Float32Array | undefined;
}

/** A memory id (the store's row id) with its score; higher is more relevant. */
export interface RankedId {
  readonly id: number;
  readonly score: number;
  /** The passage most similar to the query, when a vector ranked it. */
  readonly passage?: PassageSpan | undefined;
}

export interface Ranker {
  readonly build: RecallBuild;
  /** The embedding model a hybrid ranker uses, or null. */
  readonly model: string | null;
  /** The best `k` memories for `query` that pass `filter`, best first. */
  rank(query: string, filter: RecallFilter, k: number, context?: RankContext): RankedId[];
}
