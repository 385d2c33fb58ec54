/**
 * The ceiling benchmark's ONNX writer (bench/onnx-graph.mjs): the graphs it builds must load
 * in the real ONNX Runtime and compute what they say. Any wrong field number, wire type or
 * length makes the session refuse the model or compute something else.
 */
import ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import {
  dynamicQuantizeMatMulModel,
  matMulModel,
  quantizePerColumn,
} from "../bench/onnx-graph.mjs";

const sessions: ort.InferenceSession[] = [];
afterAll(async () => {
  for (const session of sessions) await session.release();
});

async function open(model: Uint8Array): Promise<ort.InferenceSession> {
  const session = await ort.InferenceSession.create(model, { logSeverityLevel: 3 });
  sessions.push(session);
  return session;
}

/** Deterministic values in [-1, 1] that differ everywhere, so a transposed or shifted matrix shows. */
const values = (count: number, seed: number): Float32Array =>
  Float32Array.from({ length: count }, (_, i) => Math.sin(seed + i * 1.37));

/** Row-major X[m x k] · W[k x n], in double precision. */
function product(x: Float32Array, w: Float32Array, m: number, k: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let t = 0; t < k; t++) sum += (x[i * k + t] ?? 0) * (w[t * n + j] ?? 0);
      out.push(sum);
    }
  }
  return out;
}

function maxAbsError(actual: ArrayLike<number>, expected: number[]): number {
  expect(actual.length).toBe(expected.length);
  return expected.reduce(
    (worst, value, i) => Math.max(worst, Math.abs((actual[i] ?? 0) - value)),
    0,
  );
}

async function run(session: ort.InferenceSession, x: Float32Array, rows: number, k: number) {
  const y = (await session.run({ X: new ort.Tensor("float32", x, [rows, k]) })).Y;
  if (!y) throw new Error("the graph has no output Y");
  return y;
}

describe("bench/onnx-graph.mjs", () => {
  // Small, non-square, with k ≠ n, so swapped dimensions cannot pass.
  const k = 7;
  const n = 5;
  const weights = values(k * n, 1);

  it("builds a float MatMul that ONNX Runtime runs, for any number of rows", async () => {
    const session = await open(matMulModel({ weights, k, n }));
    // The declared inputs and outputs, as ONNX Runtime read them: names, types and shapes.
    expect(session.inputMetadata).toEqual([
      { name: "X", isTensor: true, type: "float32", shape: ["rows", k] },
    ]);
    expect(session.outputMetadata).toEqual([
      { name: "Y", isTensor: true, type: "float32", shape: ["rows", n] },
    ]);
    // The first dimension is symbolic: two row counts through one session.
    for (const rows of [1, 6]) {
      const x = values(rows * k, 10 + rows);
      const y = await run(session, x, rows, k);
      expect(y.type).toBe("float32");
      expect(y.dims).toEqual([rows, n]);
      expect(maxAbsError(y.data as Float32Array, product(x, weights, rows, k, n))).toBeLessThan(
        1e-5,
      );
    }
  });

  it("builds a DynamicQuantizeMatMul whose int8 product approximates the float one", async () => {
    const quantized = quantizePerColumn(weights, k, n);
    const session = await open(dynamicQuantizeMatMulModel({ ...quantized, k, n }));
    const rows = 4;
    const x = values(rows * k, 3);
    const y = await run(session, x, rows, k);
    expect(y.dims).toEqual([rows, n]);
    // 8-bit activations, 7-bit weights: each term is off by about 1/255 + 1/126 of its range,
    // so a sum of 7 terms in [-1, 1] stays within a few hundredths; a wrong scale or layout
    // (or full-range weights, which saturate on AVX2) is off by ~1.
    expect(maxAbsError(y.data as Float32Array, product(x, weights, rows, k, n))).toBeLessThan(0.05);
  });

  it("quantizes each column to 7 bits (or the levels asked) with its own scale", () => {
    const matrix = Float32Array.from([2, -0.5, -1.5, 0.1]);
    const seven = quantizePerColumn(matrix, 2, 2);
    expect(Array.from(seven.scales)).toEqual([2 / 63, 0.5 / 63].map(Math.fround));
    expect(Array.from(seven.weights)).toEqual([63, -63, -47, 13]);
    expect(Array.from(quantizePerColumn(matrix, 2, 2, 127).weights)).toEqual([127, -127, -95, 25]);
    expect(() => quantizePerColumn(matrix, 2, 2, 128)).toThrow(/1\.\.127/);
  });

  it("refuses weights that do not match the shape", () => {
    expect(() => matMulModel({ weights: new Float32Array(6), k: 2, n: 4 })).toThrow(RangeError);
    expect(() =>
      dynamicQuantizeMatMulModel({
        weights: new Int8Array(8),
        scales: new Float32Array(3),
        k: 2,
        n: 4,
      }),
    ).toThrow(/3 scales for 4 columns/);
  });
});
