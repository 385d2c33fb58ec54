/**
 * The recall seam. A ranker turns a query into ranked memory ids; the store turns those into
 * hits (key, score, excerpt, line range). The default build has one ranker, the lexical BM25
 * ranker over FTS5. A hybrid build (lexical plus an embedding model) plugs in here as another
 * ranker that fuses the two, and reports `build: "hybrid"` and its model.
 */

/** Which recall a store runs: BM25 only, or BM25 fused with an embedding model. */
export type RecallBuild = "lexical" | "hybrid";

/** Restricts recall to memories with a tag and/or under a key prefix. */
export interface RecallFilter {
  readonly tag?: string | undefined;
  readonly prefix?: string | undefined;
}

/** A memory id (the store's row id) with its score; higher is more relevant. */
export interface RankedId {
  readonly id: number;
  readonly score: number;
}

export interface Ranker {
  readonly build: RecallBuild;
  /** The embedding model a hybrid ranker uses, or null. */
  readonly model: string | null;
  /** The best `k` memories for `query` that pass `filter`, best first. */
  rank(query: string, filter: RecallFilter, k: number): RankedId[];
}
