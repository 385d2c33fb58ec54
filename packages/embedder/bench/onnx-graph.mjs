// A minimal ONNX model writer: just enough protobuf to build one-node graphs (a MatMul with
// constant weights, and its int8 counterpart) for the ceiling benchmark, without a protobuf
// or onnx dependency. Field numbers are those of onnx/onnx.proto3; only the fields used here
// are written.
//
// Protobuf wire format in brief: every field is a key (field number << 3 | wire type) as a
// varint, then its value. Wire type 0 is a varint (integers, enums), 2 is length-delimited
// (strings, bytes, nested messages, packed repeated integers): a varint byte count, then
// the bytes.

const VARINT = 0;
const LENGTH_DELIMITED = 2;

/** TensorProto.DataType values used here. */
export const DataType = Object.freeze({ FLOAT: 1, INT8: 3, INT64: 7 });

/** Unsigned varint: 7 bits per byte, low bits first, high bit set on all but the last. */
function varint(value) {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`varint takes a non-negative safe integer, got ${value}`);
  }
  const bytes = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Uint8Array.from(bytes);
}

const key = (field, wireType) => varint(field * 8 + wireType);

function concat(parts) {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Field encoders; each returns the bytes of one field (key and value). */
const field = {
  integer: (number, value) => concat([key(number, VARINT), varint(value)]),
  bytes: (number, value) => concat([key(number, LENGTH_DELIMITED), varint(value.length), value]),
  string: (number, value) => field.bytes(number, new TextEncoder().encode(value)),
  message: (number, parts) => field.bytes(number, concat(parts)),
  packedIntegers: (number, values) => field.bytes(number, concat(values.map(varint))),
};

/** OperatorSetIdProto: domain = 1, version = 2. */
function operatorSet({ domain, version }) {
  return [field.string(1, domain), field.integer(2, version)];
}

/**
 * TensorProto: dims = 1 (repeated int64, packed), data_type = 2, name = 8, raw_data = 9
 * (the values' bytes, little-endian as ONNX requires; every platform ONNX Runtime ships for is
 * little-endian, so a typed array's own bytes are used).
 */
function tensor({ name, dataType, dims, data }) {
  const count = dims.reduce((product, dim) => product * dim, 1);
  if (data.length !== count) {
    throw new RangeError(`tensor ${name}: ${data.length} values for dims [${dims.join(", ")}]`);
  }
  return [
    field.packedIntegers(1, dims),
    field.integer(2, dataType),
    field.string(8, name),
    field.bytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength)),
  ];
}

/**
 * ValueInfoProto: name = 1, type = 2 (TypeProto). TypeProto: tensor_type = 1
 * (TypeProto.Tensor: elem_type = 1, shape = 2). TensorShapeProto: dim = 1 (repeated
 * Dimension: dim_value = 1 for a number, dim_param = 2 for a symbolic name).
 */
function valueInfo({ name, dataType, shape }) {
  const dims = shape.map((dim) =>
    field.message(1, [typeof dim === "string" ? field.string(2, dim) : field.integer(1, dim)]),
  );
  const tensorType = [field.integer(1, dataType), field.message(2, dims)];
  return [field.string(1, name), field.message(2, [field.message(1, tensorType)])];
}

/** NodeProto: input = 1, output = 2 (repeated strings), name = 3, op_type = 4, domain = 7. */
function node({ name, opType, domain = "", inputs, outputs }) {
  return [
    ...inputs.map((input) => field.string(1, input)),
    ...outputs.map((output) => field.string(2, output)),
    field.string(3, name),
    field.string(4, opType),
    ...(domain ? [field.string(7, domain)] : []),
  ];
}

/**
 * An ONNX model's bytes, ready for `InferenceSession.create`.
 * ModelProto: ir_version = 1, producer_name = 2, graph = 7, opset_import = 8.
 * GraphProto: node = 1, name = 2, initializer = 5, input = 11, output = 12.
 */
export function encodeModel({ irVersion, opsets, graph }) {
  const graphParts = [
    ...graph.nodes.map((n) => field.message(1, node(n))),
    field.string(2, graph.name),
    ...graph.initializers.map((t) => field.message(5, tensor(t))),
    ...graph.inputs.map((v) => field.message(11, valueInfo(v))),
    ...graph.outputs.map((v) => field.message(12, valueInfo(v))),
  ];
  return concat([
    field.integer(1, irVersion),
    field.string(2, "hms-embedder-bench"),
    field.message(7, graphParts),
    ...opsets.map((opset) => field.message(8, operatorSet(opset))),
  ]);
}

// IR 8 and opset 17 are old enough for any ONNX Runtime the embedder supports; the
// com.microsoft domain holds DynamicQuantizeMatMul (version 1).
const IR_VERSION = 8;
const OPSETS = [
  { domain: "", version: 17 },
  { domain: "com.microsoft", version: 1 },
];

function checkShape(k, n, length, what) {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 1 || n < 1 || length !== k * n) {
    throw new RangeError(`${what}: weights of ${length} values do not make a [${k} x ${n}] matrix`);
  }
}

/**
 * Y[M, n] = X[M, k] · W[k, n] as one float `MatMul`, W a constant (an initializer, as the
 * model's weights are once ONNX Runtime has folded them), M symbolic ("rows").
 * `weights` is a Float32Array of k·n values, row-major.
 */
export function matMulModel({ weights, k, n }) {
  checkShape(k, n, weights.length, "matMulModel");
  return encodeModel({
    irVersion: IR_VERSION,
    opsets: OPSETS,
    graph: {
      name: `matmul_${k}x${n}`,
      nodes: [{ name: "product", opType: "MatMul", inputs: ["X", "W"], outputs: ["Y"] }],
      initializers: [{ name: "W", dataType: DataType.FLOAT, dims: [k, n], data: weights }],
      inputs: [{ name: "X", dataType: DataType.FLOAT, shape: ["rows", k] }],
      outputs: [{ name: "Y", dataType: DataType.FLOAT, shape: ["rows", n] }],
    },
  });
}

/**
 * The same product as com.microsoft `DynamicQuantizeMatMul`: X is quantised to 8 bits per
 * run, W is constant int8 with one scale per column (symmetric: zero points 0), so the
 * product runs on 8-bit integers. Y ≈ X · (W · diag(scales)).
 */
export function dynamicQuantizeMatMulModel({ weights, scales, k, n }) {
  checkShape(k, n, weights.length, "dynamicQuantizeMatMulModel");
  if (scales.length !== n) {
    throw new RangeError(`dynamicQuantizeMatMulModel: ${scales.length} scales for ${n} columns`);
  }
  return encodeModel({
    irVersion: IR_VERSION,
    opsets: OPSETS,
    graph: {
      name: `dynamic_quantize_matmul_${k}x${n}`,
      nodes: [
        {
          name: "product",
          opType: "DynamicQuantizeMatMul",
          domain: "com.microsoft",
          inputs: ["X", "W", "W_scale", "W_zero_point"],
          outputs: ["Y"],
        },
      ],
      initializers: [
        { name: "W", dataType: DataType.INT8, dims: [k, n], data: weights },
        { name: "W_scale", dataType: DataType.FLOAT, dims: [n], data: scales },
        { name: "W_zero_point", dataType: DataType.INT8, dims: [n], data: new Int8Array(n) },
      ],
      inputs: [{ name: "X", dataType: DataType.FLOAT, shape: ["rows", k] }],
      outputs: [{ name: "Y", dataType: DataType.FLOAT, shape: ["rows", n] }],
    },
  });
}

/**
 * Symmetric int8 quantisation of a row-major [k x n] matrix, one scale per column, to
 * ±`levels`. The default is 7 bits (±63), as ONNX Runtime's own quantiser does with
 * reduce_range: on x86 without VNNI (AVX2) the u8·s8 kernel adds pairs of 8-bit products in
 * 16 bits, which saturates with full-range weights (255·127·2 > 32767). Measured here: ±127
 * weights gave errors of 1.1 on a 7-term product of values in [-1, 1], ±63 gave 0.014.
 * The range does not change the speed.
 */
export function quantizePerColumn(weights, k, n, levels = 63) {
  checkShape(k, n, weights.length, "quantizePerColumn");
  if (!Number.isInteger(levels) || levels < 1 || levels > 127) {
    throw new RangeError(`quantizePerColumn: levels must be an integer in 1..127, got ${levels}`);
  }
  const scales = new Float32Array(n);
  for (let j = 0; j < n; j++) {
    let largest = 0;
    for (let i = 0; i < k; i++) largest = Math.max(largest, Math.abs(weights[i * n + j]));
    scales[j] = largest > 0 ? largest / levels : 1;
  }
  const quantized = new Int8Array(k * n);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < n; j++) quantized[i * n + j] = Math.round(weights[i * n + j] / scales[j]);
  }
  return { weights: quantized, scales };
}
