import { describe, expect, it } from "vitest";
import { cosine, meanPool, normalizeL2 } from "./pooling.js";

describe("meanPool", () => {
  // Two rows of three tokens with two dimensions; the second row has one padding token.
  const hidden = new Float32Array([1, 2, 3, 4, 5, 6, 10, 0, 0, 10, 99, 99]);
  const mask = new Uint8Array([1, 1, 1, 1, 1, 0]);

  it("averages only the tokens the mask keeps", () => {
    const [first, second] = meanPool(hidden, mask, 2, 3, 2, false);
    expect(Array.from(first as Float32Array)).toEqual([3, 4]);
    expect(Array.from(second as Float32Array)).toEqual([5, 5]);
  });

  it("scales each vector to unit length when asked", () => {
    const [first] = meanPool(hidden, mask, 2, 3, 2, true);
    expect(first?.[0]).toBeCloseTo(0.6, 6);
    expect(first?.[1]).toBeCloseTo(0.8, 6);
  });

  it("gives a zero vector for a row that is all padding", () => {
    const [row] = meanPool(new Float32Array([7, 7]), new Uint8Array([0]), 1, 1, 2, true);
    expect(Array.from(row as Float32Array)).toEqual([0, 0]);
  });

  it("refuses a tensor whose size does not match the shape", () => {
    expect(() => meanPool(hidden, mask, 2, 3, 3, false)).toThrow(/12 values and 6 mask entries/);
  });
});

describe("normalizeL2 and cosine", () => {
  it("makes a vector of length one", () => {
    const v = normalizeL2(new Float32Array([3, 0, 4]));
    expect(Array.from(v)).toEqual([expect.closeTo(0.6, 6), 0, expect.closeTo(0.8, 6)]);
  });

  it("measures angles: same direction 1, orthogonal 0, opposite -1", () => {
    const a = new Float32Array([1, 2]);
    expect(cosine(a, new Float32Array([2, 4]))).toBeCloseTo(1, 6);
    expect(cosine(a, new Float32Array([-2, 1]))).toBeCloseTo(0, 6);
    expect(cosine(a, new Float32Array([-1, -2]))).toBeCloseTo(-1, 6);
  });

  it("refuses vectors of different lengths", () => {
    expect(() => cosine(new Float32Array(2), new Float32Array(3))).toThrow(/lengths 2 and 3/);
  });
});
