/**
 * Recall, the store's operation: checks the query, asks the store's ranker for the best
 * memories, and gives each hit an excerpt around the query's terms. How memories are ranked is
 * the ranker's business (ranker.ts); this module only turns ranked ids into hits.
 */
import { type StoreContext, selectionOf } from "../context.js";
import { StoreError } from "../errors.js";
import { checkInteger } from "../limits.js";
import {
  DEFAULT_RECALL_K,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
  type RecallOptions,
  type RecallResult,
} from "../types.js";
import { excerptOf } from "./excerpt.js";
import type { Highlighter } from "./highlight.js";
import { excerptTerms } from "./query.js";
import type { Ranker, RecallBuild } from "./ranker.js";
import { checkTimeRange } from "./time-range.js";

/** `MemoryStore.recall`: the memories most relevant to `query`, best first. */
export function recall(
  ctx: StoreContext,
  ranker: Ranker,
  highlighter: Highlighter,
  query: string,
  options: RecallOptions,
): RecallResult {
  if (typeof query !== "string") throw new StoreError("INVALID_ARGUMENT", "query must be a string");
  if (Buffer.byteLength(query, "utf8") > MAX_QUERY_BYTES) {
    throw new StoreError("INVALID_ARGUMENT", `query is over ${MAX_QUERY_BYTES} bytes`);
  }
  const k = checkInteger(options.k ?? DEFAULT_RECALL_K, "k", 1, MAX_RECALL_K);
  const filter = { ...selectionOf(ctx, options), ...checkTimeRange(options) };
  const { vector } = options;
  if (vector !== undefined && !(vector instanceof Float32Array)) {
    throw new StoreError("INVALID_ARGUMENT", "a query vector must be a Float32Array");
  }
  const build: RecallBuild =
    ranker.build === "hybrid" && vector !== undefined ? "hybrid" : "lexical";
  const ranked = ranker.rank(query, filter, k, { vector });
  // The excerpt looks for the query's informative terms, each weighted by its rarity.
  const terms = ranked.length === 0 ? [] : excerptTerms(query);
  const weights = highlighter.weights(terms);
  const hits = ranked.flatMap(({ id, score, passage }) => {
    const row = ctx.sql.keyText.get(id) as
      | { key: string; text: unknown; updated_at: string }
      | undefined;
    if (row === undefined) return [];
    const highlighted = highlighter.highlight(id, terms);
    const matches = terms.map((_, i) => ({
      highlighted: highlighted[i],
      weight: weights[i] ?? 0,
    }));
    const text = ctx.sql.readText(row.text);
    return [
      { key: row.key, score, ...excerptOf(text, matches, passage), updated_at: row.updated_at },
    ];
  });
  return { hits, build };
}
