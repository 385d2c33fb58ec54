import { describe, expect, it } from "vitest";
import { planBatches } from "./batches.js";

const unlimited = Number.POSITIVE_INFINITY;

describe("planBatches", () => {
  it("groups texts shortest first, at most maxTexts per run", () => {
    expect(planBatches([5, 1, 9, 3, 1], { maxTexts: 2, maxTokens: unlimited })).toEqual([
      [1, 4],
      [3, 0],
      [2],
    ]);
  });

  it("closes a run before its padded size (texts × longest) passes maxTokens", () => {
    // Lengths 10, 10, 10, 40, 40: three short texts fit in 30 tokens; 2 × 40 does not fit in 64.
    expect(planBatches([40, 10, 10, 40, 10], { maxTexts: 32, maxTokens: 64 })).toEqual([
      [1, 2, 4],
      [0],
      [3],
    ]);
  });

  it("runs a text longer than maxTokens alone rather than dropping it", () => {
    expect(planBatches([300, 5], { maxTexts: 8, maxTokens: 256 })).toEqual([[1], [0]]);
  });

  it("uses every index exactly once", () => {
    const lengths = Array.from({ length: 37 }, (_, i) => ((i * 7919) % 13) + 1);
    const batches = planBatches(lengths, { maxTexts: 8, maxTokens: 40 });
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(8);
      const longest = Math.max(...batch.map((i) => lengths[i] as number));
      expect(batch.length === 1 || batch.length * longest <= 40).toBe(true);
    }
    expect(batches.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i));
  });

  it("plans nothing for no texts", () => {
    expect(planBatches([], { maxTexts: 4, maxTokens: 512 })).toEqual([]);
  });

  it("refuses limits that are not positive integers", () => {
    expect(() => planBatches([1], { maxTexts: 0, maxTokens: 512 })).toThrow(
      /maxTexts must be a positive integer, got 0/,
    );
    expect(() => planBatches([1], { maxTexts: 4, maxTokens: 1.5 })).toThrow(
      /maxTokens must be a positive integer, got 1.5/,
    );
  });
});
