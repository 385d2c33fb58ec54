/**
 * Sentence vectors from token vectors: the mean over the tokens the attention mask keeps,
 * then (optionally) scaled to unit length, as sentence-transformers' Pooling and Normalize
 * modules do for all-MiniLM-L6-v2.
 */

/**
 * Pools a `[batch, sequence, dimensions]` row-major tensor into one vector per row.
 * `mask[b * sequence + t]` is 1 for a real token and 0 for padding.
 */
export function meanPool(
  hidden: Float32Array,
  mask: Uint8Array,
  batch: number,
  sequence: number,
  dimensions: number,
  normalize: boolean,
): Float32Array[] {
  if (hidden.length !== batch * sequence * dimensions || mask.length !== batch * sequence) {
    throw new RangeError(
      `meanPool: got ${hidden.length} values and ${mask.length} mask entries for [${batch}, ${sequence}, ${dimensions}]`,
    );
  }
  const vectors: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const sum = new Float64Array(dimensions);
    let count = 0;
    for (let t = 0; t < sequence; t++) {
      if (mask[b * sequence + t] === 0) continue;
      count++;
      const base = (b * sequence + t) * dimensions;
      for (let d = 0; d < dimensions; d++)
        sum[d] = (sum[d] as number) + (hidden[base + d] as number);
    }
    const vector = new Float32Array(dimensions);
    // Like sentence-transformers, divide by at least a tiny count so an all-padding row is 0.
    const divisor = Math.max(count, 1e-9);
    for (let d = 0; d < dimensions; d++) vector[d] = (sum[d] as number) / divisor;
    vectors.push(normalize ? normalizeL2(vector) : vector);
  }
  return vectors;
}

/** Scales `vector` in place to unit Euclidean length (a zero vector stays zero). */
export function normalizeL2(vector: Float32Array): Float32Array {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const norm = Math.max(Math.sqrt(squares), 1e-12);
  for (let d = 0; d < vector.length; d++) vector[d] = (vector[d] as number) / norm;
  return vector;
}

/** The cosine of the angle between two vectors of the same length. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) {
    throw new RangeError(`cosine: vectors of lengths ${a.length} and ${b.length}`);
  }
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
