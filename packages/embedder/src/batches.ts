/**
 * Grouping texts into model runs. Texts of similar length go together, so little of each run
 * is spent on padding; results are put back in the caller's order afterwards.
 */

/**
 * Splits the indexes `0..lengths.length-1` into runs of at most `maxBatchSize`, shortest
 * texts first. Every index appears exactly once.
 */
export function planBatches(lengths: readonly number[], maxBatchSize: number): number[][] {
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
    throw new RangeError(`batch size must be a positive integer, got ${maxBatchSize}`);
  }
  const order = lengths.map((_, index) => index);
  order.sort((a, b) => (lengths[a] as number) - (lengths[b] as number) || a - b);
  const batches: number[][] = [];
  for (let start = 0; start < order.length; start += maxBatchSize) {
    batches.push(order.slice(start, start + maxBatchSize));
  }
  return batches;
}
