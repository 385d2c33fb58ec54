/**
 * Hybrid recall on PostgreSQL, as SQLite's HybridRanker does it: the union of the best BM25
 * candidates and the memories nearest to the query vector (under the same prefix/tag/time filter),
 * fused by @hms/store's `fuse` with the same parameters. Only where the candidates come from
 * differs: BM25 from recall.ts, nearest neighbours from the dense index (the exact scan of
 * vectors-dense.ts, or pgvector's HNSW index, vectors-pgvector.ts).
 */
import { type Candidate, DEFAULT_FUSION, type FusionParams, fuse } from "@hms/store";
import type { RankedId } from "@hms/store/internal";
import { type Client, type Selected, whereOf } from "./context.js";
import type { DenseIndex } from "./vectors-dense.js";

/**
 * `lexicalRank` gives the best BM25 candidates with each one's BM25 as a share of the query's
 * ceiling (`bm25 / bm25Ceiling`, as SQLite's HybridRanker passes it): `fuse` puts the lexical
 * part on that absolute scale. Raw BM25 would be clamped to 1 for nearly every candidate
 * (SciFact nDCG@10 0.003 when it was).
 */
export async function hybridRank(
  client: Client,
  ns: number,
  filter: Selected,
  k: number,
  vector: Float32Array,
  dense: DenseIndex,
  lexicalRank: (depth: number) => Promise<{ id: number; share: number }[]>,
  params: FusionParams = DEFAULT_FUSION,
): Promise<RankedId[]> {
  const lexical = await lexicalRank(Math.max(k, params.lexicalDepth));
  const allowed = await filtered(client, ns, filter);
  const scan = await dense.nearest(
    client,
    ns,
    vector,
    Math.max(k, params.denseDepth),
    allowed,
    lexical.map((hit) => hit.id),
  );
  const nearest = scan.nearest;
  const byId = new Map<number, Candidate>();
  for (const hit of lexical) {
    byId.set(hit.id, { id: hit.id, lexical: hit.share, dense: undefined });
  }
  for (const hit of nearest) {
    const entry = byId.get(hit.id);
    byId.set(hit.id, { id: hit.id, lexical: entry?.lexical, dense: hit });
  }
  const candidates = [...byId.values()].map((c) => ({ ...c, dense: c.dense ?? scan.score(c.id) }));
  return fuse(candidates, params).slice(0, k);
}

/** The ids of the namespace's memories that pass `filter`, or undefined for no filter. */
async function filtered(
  client: Client,
  ns: number,
  filter: Selected,
): Promise<Set<number> | undefined> {
  if (
    !filter.prefix &&
    filter.tag === undefined &&
    filter.modifiedAfter === undefined &&
    filter.modifiedBefore === undefined
  ) {
    return undefined;
  }
  const params: unknown[] = [ns];
  const where = whereOf(params, filter);
  const { rows } = await client.query<{ id: number }>(
    `SELECT m.id FROM hms_memories m WHERE ${where}`,
    params,
  );
  return new Set(rows.map((row) => row.id));
}
