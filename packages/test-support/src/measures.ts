/**
 * What the benchmarks measure with, in one place: nDCG@10 as trec_eval computes it, the
 * nearest-rank quantile of latencies, and seeded unit vectors for stores that need vectors
 * but not a model.
 */

/**
 * nDCG@10 of a ranking (document ids, best first) against the relevant ids: binary gains, log2
 * discount, the ideal ranking from the relevant documents.
 */
export function ndcgAt10<Id>(ranked: readonly Id[], relevant: ReadonlySet<Id>): number {
  let dcg = 0;
  ranked.slice(0, 10).forEach((id, rank) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(rank + 2);
  });
  let ideal = 0;
  for (let rank = 0; rank < Math.min(relevant.size, 10); rank++) ideal += 1 / Math.log2(rank + 2);
  return dcg / ideal;
}

/** The q-quantile (0..1) of a list of numbers, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  ] as number;
}

/** A deterministic unit vector of `dimensions` floats for `seed` (xorshift32, normalized). */
export function seededUnitVector(seed: number, dimensions: number): Float32Array {
  let x = (seed * 2654435761) >>> 0 || 1;
  const out = new Float32Array(dimensions);
  for (let d = 0; d < dimensions; d++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[d] = x / 4294967296 - 0.5;
  }
  const norm = Math.hypot(...out);
  return out.map((v) => v / norm);
}
