// Types for onnx-graph.mjs (a plain script beside the benchmarks, imported by its test).

export declare const DataType: Readonly<{ FLOAT: 1; INT8: 3; INT64: 7 }>;

type TypedValues = Float32Array | Int8Array | BigInt64Array;

export interface TensorSpec {
  name: string;
  dataType: number;
  dims: number[];
  data: TypedValues;
}

export interface ValueInfoSpec {
  name: string;
  dataType: number;
  /** A number for a fixed dimension, a string for a symbolic one. */
  shape: (number | string)[];
}

export interface NodeSpec {
  name: string;
  opType: string;
  domain?: string;
  inputs: string[];
  outputs: string[];
}

export declare function encodeModel(model: {
  irVersion: number;
  opsets: { domain: string; version: number }[];
  graph: {
    name: string;
    nodes: NodeSpec[];
    initializers: TensorSpec[];
    inputs: ValueInfoSpec[];
    outputs: ValueInfoSpec[];
  };
}): Uint8Array;

export declare function matMulModel(options: {
  weights: Float32Array;
  k: number;
  n: number;
}): Uint8Array;

export declare function dynamicQuantizeMatMulModel(options: {
  weights: Int8Array;
  scales: Float32Array;
  k: number;
  n: number;
}): Uint8Array;

export declare function quantizePerColumn(
  weights: Float32Array,
  k: number,
  n: number,
  levels?: number,
): { weights: Int8Array; scales: Float32Array };
