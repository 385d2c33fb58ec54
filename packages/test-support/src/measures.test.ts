import { describe, expect, it } from "vitest";
import { ndcgAt10, quantile, seededUnitVector } from "./measures.js";

describe("ndcgAt10", () => {
  it("is 1 for the ideal ranking and discounts a relevant document found lower", () => {
    expect(ndcgAt10(["a", "b", "c"], new Set(["a"]))).toBe(1);
    expect(ndcgAt10(["x", "a"], new Set(["a"]))).toBeCloseTo(1 / Math.log2(3), 12);
    // Two relevant, one found first: 1 / (1 + 1/log2(3)).
    expect(ndcgAt10(["a", "x"], new Set(["a", "b"]))).toBeCloseTo(1 / (1 + 1 / Math.log2(3)), 12);
    expect(ndcgAt10(["x", "y"], new Set(["a"]))).toBe(0);
  });

  it("looks at the first ten only", () => {
    const ranked = [...Array.from({ length: 10 }, (_, i) => `x${i}`), "a"];
    expect(ndcgAt10(ranked, new Set(["a"]))).toBe(0);
  });
});

describe("quantile", () => {
  it("takes the nearest rank, whatever the order given", () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(quantile(values, 0.5)).toBe(5);
    expect(quantile(values, 0.99)).toBe(10);
    expect(quantile(values, 0)).toBe(1);
    expect(quantile([7], 0.5)).toBe(7);
  });
});

describe("seededUnitVector", () => {
  it("gives the same unit vector for the same seed, another for another", () => {
    const a = seededUnitVector(3, 8);
    expect(a).toHaveLength(8);
    expect(Math.hypot(...a)).toBeCloseTo(1, 6);
    expect(seededUnitVector(3, 8)).toEqual(a);
    expect(seededUnitVector(4, 8)).not.toEqual(a);
  });
});
