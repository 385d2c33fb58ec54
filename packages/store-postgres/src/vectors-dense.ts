/**
 * Dense search without pgvector: exact cosine in this process over a namespace's passage
 * vectors (unit length, so a dot product is a cosine). Each namespace's vectors are copied
 * into memory once and kept while the namespace's change counter (bumped in the same
 * transaction as any change to its vectors, schema.ts) is unchanged; a query reads the
 * counter first, so a replica never ranks with vectors another replica has replaced or
 * deleted. A changed counter reloads the namespace's vectors whole (simple; an incremental
 * load is future work).
 */
import type { DenseHit, PassageSpan } from "@hms/store";
import type { Client } from "./context.js";

/** One namespace's vectors in memory. */
interface Copy {
  readonly changes: number;
  readonly dimensions: number;
  /** Memory id of each passage row. */
  readonly owners: Float64Array;
  readonly spans: PassageSpan[];
  /** One row of `dimensions` floats per passage. */
  readonly matrix: Float32Array;
}

export class DenseSearch {
  readonly #copies = new Map<number, Copy>();

  /**
   * The `n` memories of namespace `ns` nearest to `query` among those `accept` lets through,
   * best first, each with its best passage; and a lookup of any memory's similarity.
   */
  async scan(
    client: Client,
    ns: number,
    query: Float32Array,
  ): Promise<{
    best(n: number, accept?: (id: number) => boolean): DenseHit[];
    score(id: number): DenseHit | undefined;
  }> {
    const copy = await this.#current(client, ns);
    const byMemory = new Map<number, DenseHit>();
    if (copy !== undefined && copy.dimensions === query.length) {
      const dims = copy.dimensions;
      for (let row = 0; row < copy.owners.length; row++) {
        let sum = 0;
        const at = row * dims;
        for (let d = 0; d < dims; d++)
          sum += (copy.matrix[at + d] as number) * (query[d] as number);
        const id = copy.owners[row] as number;
        const seen = byMemory.get(id);
        if (seen === undefined || sum > seen.score) {
          byMemory.set(id, { id, score: sum, passage: copy.spans[row] as PassageSpan });
        }
      }
    }
    const sorted = [...byMemory.values()].sort((a, b) => b.score - a.score || a.id - b.id);
    return {
      best: (n, accept) =>
        (accept === undefined ? sorted : sorted.filter((hit) => accept(hit.id))).slice(0, n),
      score: (id) => byMemory.get(id),
    };
  }

  /** The namespace's vectors as of now: the kept copy when its counter still matches. */
  async #current(client: Client, ns: number): Promise<Copy | undefined> {
    const { rows } = await client.query<{ changes: number; dimensions: number }>(
      "SELECT changes, dimensions FROM hms_embedding_models WHERE ns = $1",
      [ns],
    );
    const state = rows[0];
    if (state === undefined) {
      this.#copies.delete(ns);
      return undefined;
    }
    const kept = this.#copies.get(ns);
    if (kept !== undefined && kept.changes === state.changes) return kept;
    // The counter is read again with the vectors, in one statement, so the copy is labelled
    // with the counter its vectors belong to (a change between the two reads is seen next time).
    const loaded = await client.query<{
      changes: number;
      memory_id: number;
      line_start: number[];
      line_end: number[];
      vectors: Buffer;
    }>(
      `SELECT e.changes, v.memory_id, v.line_start, v.line_end, v.vectors
       FROM hms_embedding_models e LEFT JOIN hms_memory_vectors v ON v.ns = e.ns
       WHERE e.ns = $1`,
      [ns],
    );
    const dims = state.dimensions;
    const owners: number[] = [];
    const spans: PassageSpan[] = [];
    const chunks: Float32Array[] = [];
    let changes = state.changes;
    for (const row of loaded.rows) {
      changes = row.changes;
      if (row.memory_id === null) continue;
      const bytes = row.vectors;
      const floats = new Float32Array(bytes.byteLength / 4);
      new Uint8Array(floats.buffer).set(bytes);
      if (floats.length !== row.line_start.length * dims) continue;
      chunks.push(floats);
      row.line_start.forEach((lineStart, i) => {
        owners.push(row.memory_id);
        spans.push({ lineStart, lineEnd: row.line_end[i] as number });
      });
    }
    const matrix = new Float32Array(owners.length * dims);
    let at = 0;
    for (const chunk of chunks) {
      matrix.set(chunk, at);
      at += chunk.length;
    }
    const copy = { changes, dimensions: dims, owners: Float64Array.from(owners), spans, matrix };
    this.#copies.set(ns, copy);
    return copy;
  }
}
