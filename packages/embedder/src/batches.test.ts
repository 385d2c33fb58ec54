import { describe, expect, it } from "vitest";
import { planBatches } from "./batches.js";

describe("planBatches", () => {
  it("groups texts shortest first, at most the batch size per run", () => {
    expect(planBatches([5, 1, 9, 3, 1], 2)).toEqual([[1, 4], [3, 0], [2]]);
  });

  it("uses every index exactly once", () => {
    const lengths = Array.from({ length: 37 }, (_, i) => (i * 7919) % 13);
    const batches = planBatches(lengths, 8);
    expect(batches.every((batch) => batch.length <= 8)).toBe(true);
    expect(
      batches
        .flat()
        .slice()
        .sort((a, b) => a - b),
    ).toEqual(lengths.map((_, i) => i));
  });

  it("plans nothing for no texts", () => {
    expect(planBatches([], 4)).toEqual([]);
  });

  it("refuses a batch size that is not a positive integer", () => {
    expect(() => planBatches([1], 0)).toThrow(/positive integer, got 0/);
    expect(() => planBatches([1], 1.5)).toThrow(/positive integer, got 1.5/);
  });
});
