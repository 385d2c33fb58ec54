import { describe, expect, it } from "vitest";
import { kernelMemory } from "./dot-kernel.js";

describe("the WebAssembly SIMD dot kernel", () => {
  it("computes every row's dot product with the query, as JavaScript does", () => {
    const rows = 257;
    const dims = 384;
    const query = 0;
    const out = dims * 4;
    const matrix = out + rows * 4;
    const kernel = kernelMemory(matrix + rows * dims * 4);
    expect(kernel).toBeDefined();
    if (kernel === undefined) return;
    const buffer = kernel.memory.buffer;
    const q = new Float32Array(buffer, query, dims);
    const m = new Float32Array(buffer, matrix, rows * dims);
    let seed = 1;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31 - 0.5;
    };
    for (let i = 0; i < q.length; i++) q[i] = next();
    for (let i = 0; i < m.length; i++) m[i] = next();
    // Rows 1..rows-1 only, to check the offsets too.
    kernel.dots(matrix + dims * 4, query, out + 4, rows - 1, dims);
    const scores = new Float32Array(buffer, out, rows);
    expect(scores[0]).toBe(0);
    for (let r = 1; r < rows; r++) {
      let expected = 0;
      for (let k = 0; k < dims; k++) expected += (m[r * dims + k] as number) * (q[k] as number);
      expect(scores[r]).toBeCloseTo(expected, 4);
    }
  });
});
