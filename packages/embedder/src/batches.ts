/**
 * Grouping texts into model runs. Texts of similar length go together, so little of each run
 * is spent on padding; results are put back in the caller's order afterwards. A run is capped
 * both in texts and in padded tokens (texts × longest text), which bounds its memory and how
 * long it holds the thread: short texts share runs, long ones run nearly alone.
 */

/** Limits of one model run. */
export interface BatchLimits {
  /** The most texts in one run. */
  readonly maxTexts: number;
  /** The most padded tokens in one run; a longer text still runs, alone. */
  readonly maxTokens: number;
}

/**
 * Splits the indexes `0..lengths.length-1` into runs within `limits`, shortest texts first.
 * Every index appears exactly once.
 */
export function planBatches(lengths: readonly number[], limits: BatchLimits): number[][] {
  for (const [name, value] of Object.entries(limits)) {
    if (!(Number.isInteger(value) || value === Number.POSITIVE_INFINITY) || value < 1) {
      throw new RangeError(`${name} must be a positive integer, got ${value}`);
    }
  }
  const order = lengths.map((_, index) => index);
  order.sort((a, b) => (lengths[a] as number) - (lengths[b] as number) || a - b);
  const batches: number[][] = [];
  let current: number[] = [];
  for (const index of order) {
    // Sorted ascending, so this text is the longest of the run it would join.
    const padded = (current.length + 1) * (lengths[index] as number);
    if (current.length > 0 && (current.length === limits.maxTexts || padded > limits.maxTokens)) {
      batches.push(current);
      current = [];
    }
    current.push(index);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
