/**
 * An in-memory copy of a store's passage vectors, for exact (brute-force) nearest-neighbour
 * search: one float32 matrix with a row per passage, scanned with dot products (vectors have
 * unit length, so a dot product is a cosine) by a WebAssembly SIMD kernel. At 100,000
 * passages × 384 dimensions that is 150 MiB and one pass of 38 million multiply-adds per
 * query; see the hms-mcp README for the measured cost.
 *
 * The copy follows the database through `vector_state`: an unchanged generation means nothing
 * changed; otherwise rows with a newer `seq` are loaded, and when the row count disagrees the
 * ids are swept for removals. Writes by this connection and by other processes are seen alike.
 */

import { decodeSpans, type PassageSpan } from "../embeddings.js";
import type { SqliteDatabase, SqliteStatement } from "../sqlite/driver.js";
import { type DotsFunction, kernelMemory } from "./dot-kernel.js";

/** A memory's similarity to a query: its best passage's cosine, and that passage. */
export interface DenseHit {
  readonly id: number;
  readonly score: number;
  readonly passage: PassageSpan;
}

/**
 * The similarity of every memory to one query, computed in one pass. Valid until the index's
 * next scan or change.
 */
export interface Scan {
  /** The `n` most similar memories, best first, among those `accept` lets through. */
  best(n: number, accept?: (id: number) => boolean): DenseHit[];
  /** Memory `id`'s similarity, or `undefined` if it has no vectors. */
  score(id: number): DenseHit | undefined;
}

interface Entry {
  /** First row of the memory's passages; they are contiguous. */
  start: number;
  count: number;
  spans: PassageSpan[];
}

const align16 = (bytes: number) => Math.ceil(bytes / 16) * 16;

/**
 * The rows and their scratch space: in WebAssembly memory (query, then one score per row,
 * then the matrix) when the SIMD kernel is available, else in plain arrays.
 */
class Rows {
  readonly capacity: number;
  readonly matrix: Float32Array;
  readonly query: Float32Array;
  readonly scores: Float32Array;
  readonly #dots: DotsFunction | undefined;
  readonly #offsets: { query: number; scores: number; matrix: number };

  constructor(capacity: number, dims: number, useKernel: boolean) {
    this.capacity = capacity;
    const query = 0;
    const scores = align16(dims * 4);
    const matrix = scores + align16(capacity * 4);
    this.#offsets = { query, scores, matrix };
    const bytes = matrix + capacity * dims * 4;
    const kernel = useKernel ? kernelMemory(bytes) : undefined;
    this.#dots = kernel?.dots;
    const buffer = kernel === undefined ? new ArrayBuffer(bytes) : kernel.memory.buffer;
    this.query = new Float32Array(buffer, query, dims);
    this.scores = new Float32Array(buffer, scores, capacity);
    this.matrix = new Float32Array(buffer, matrix, capacity * dims);
  }

  /** scores[r] = matrix row r · query, for rows [from, from + count). */
  dots(from: number, count: number, dims: number): void {
    if (this.#dots !== undefined && dims % 4 === 0) {
      const at = this.#offsets;
      this.#dots(at.matrix + from * dims * 4, at.query, at.scores + from * 4, count, dims);
      return;
    }
    for (let r = from; r < from + count; r++) {
      this.scores[r] = dot(this.matrix, r * dims, this.query);
    }
  }
}

export class VectorIndex {
  readonly dimensions: number;
  readonly #useKernel: boolean;
  #store: Rows;
  /** Memory id of each row; 0 for a free row. */
  #owner: Int32Array;
  #rows = 0;
  #freeRows = 0;
  readonly #entries = new Map<number, Entry>();
  #seq = 0;
  #generation = -1;
  #scans = 0;
  readonly #sql: {
    state: SqliteStatement;
    since: SqliteStatement;
    ids: SqliteStatement;
    passages: SqliteStatement;
  };

  /**
   * @param options.simd use the WebAssembly SIMD kernel where available (default true); false
   *   computes in JavaScript (tests compare the two)
   */
  constructor(db: SqliteDatabase, dimensions: number, options: { simd?: boolean } = {}) {
    this.dimensions = dimensions;
    this.#useKernel = options.simd !== false;
    this.#store = new Rows(64, dimensions, this.#useKernel);
    this.#owner = new Int32Array(64);
    this.#sql = {
      state: db.prepare("SELECT generation, vectors FROM vector_state WHERE id = 1"),
      since: db.prepare(
        "SELECT seq, memory_id AS id, spans, vectors FROM memory_vectors WHERE seq > ? ORDER BY seq",
      ),
      ids: db.prepare("SELECT memory_id AS id FROM memory_vectors"),
      passages: db.prepare(
        "SELECT coalesce(sum(length(spans)), 0) / 8 AS passages FROM memory_vectors",
      ),
    };
  }

  /** How many memories have vectors here. */
  get size(): number {
    return this.#entries.size;
  }

  /** Whether memory `id` has vectors. */
  has(id: number): boolean {
    return this.#entries.has(id);
  }

  /** Brings the copy up to date with the database; cheap when nothing changed. */
  sync(): void {
    const state = this.#sql.state.get() as { generation: number; vectors: number };
    if (state.generation === this.#generation) return;
    // A first load knows how many rows it needs: one allocation instead of a doubling series.
    if (this.#rows === 0) {
      this.#reserve((this.#sql.passages.get() as { passages: number }).passages);
    }
    for (const row of this.#sql.since.iterate(this.#seq) as IterableIterator<{
      seq: number;
      id: number;
      spans: Uint8Array;
      vectors: Uint8Array;
    }>) {
      const spans = decodeSpans(row.spans);
      const floats = new Float32Array(
        row.vectors.buffer.slice(
          row.vectors.byteOffset,
          row.vectors.byteOffset + row.vectors.byteLength,
        ),
      );
      if (spans.length > 0 && floats.length === spans.length * this.dimensions) {
        this.#put(row.id, spans, floats);
      }
      this.#seq = row.seq;
    }
    if (this.#entries.size !== state.vectors) {
      const live = new Set((this.#sql.ids.all() as { id: number }[]).map((row) => row.id));
      for (const id of [...this.#entries.keys()]) if (!live.has(id)) this.#remove(id);
    }
    this.#generation = state.generation;
    if (this.#freeRows > 1024 && this.#freeRows > this.#rows / 4) this.#compact();
  }

  /** Scores every row against `query` in one pass (see {@link Scan}). */
  scan(query: Float32Array): Scan {
    this.#check(query);
    const store = this.#store;
    const dims = this.dimensions;
    store.query.set(query);
    store.dots(0, this.#rows, dims);
    const scores = store.scores;
    const owner = this.#owner;
    const rows = this.#rows;
    const scanNumber = ++this.#scans;
    const valid = () => {
      if (scanNumber !== this.#scans || store !== this.#store) {
        throw new Error("a vector scan was used after the index scanned again or changed");
      }
    };
    const hitOf = (id: number, row: number, score: number): DenseHit => {
      const entry = this.#entries.get(id) as Entry;
      return { id, score, passage: entry.spans[row - entry.start] as PassageSpan };
    };
    return {
      best: (n, accept) => {
        valid();
        if (n < 1) return [];
        // A memory's rows are contiguous, so its best passage is known when the owner
        // changes. A bounded min-heap keeps the best n memories seen so far.
        const heap: Best[] = [];
        const offer = (id: number, score: number, row: number) => {
          const top = heap[0];
          if (heap.length === n && top !== undefined && !less(top, { id, score })) return;
          if (accept !== undefined && !accept(id)) return;
          const entry = { id, score, row };
          if (heap.length < n) heapPush(heap, entry);
          else heapReplaceTop(heap, entry);
        };
        let current = 0;
        let best = Number.NEGATIVE_INFINITY;
        let bestRow = 0;
        for (let r = 0; r < rows; r++) {
          const id = owner[r] as number;
          if (id === 0) continue;
          if (id !== current) {
            if (current !== 0) offer(current, best, bestRow);
            current = id;
            best = Number.NEGATIVE_INFINITY;
          }
          const score = scores[r] as number;
          if (score > best) {
            best = score;
            bestRow = r;
          }
        }
        if (current !== 0) offer(current, best, bestRow);
        return heap
          .sort((a, b) => b.score - a.score || a.id - b.id)
          .map(({ id, score, row }) => hitOf(id, row, score));
      },
      score: (id) => {
        valid();
        const entry = this.#entries.get(id);
        if (entry === undefined) return undefined;
        let bestRow = entry.start;
        for (let r = entry.start + 1; r < entry.start + entry.count; r++) {
          if ((scores[r] as number) > (scores[bestRow] as number)) bestRow = r;
        }
        return hitOf(id, bestRow, scores[bestRow] as number);
      },
    };
  }

  /**
   * The `n` memories most similar to `query`, best first, among those `accept` lets through
   * (all when omitted).
   */
  nearest(query: Float32Array, n: number, accept?: (id: number) => boolean): DenseHit[] {
    return this.scan(query).best(n, accept);
  }

  /** The similarity of memory `id` to `query`, or `undefined` if it has no vectors here. */
  score(query: Float32Array, id: number): DenseHit | undefined {
    this.#check(query);
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    let best = Number.NEGATIVE_INFINITY;
    let bestRow = 0;
    for (let r = 0; r < entry.count; r++) {
      const score = dot(this.#store.matrix, (entry.start + r) * this.dimensions, query);
      if (score > best) {
        best = score;
        bestRow = r;
      }
    }
    return { id, score: best, passage: entry.spans[bestRow] as PassageSpan };
  }

  #check(query: Float32Array): void {
    if (!(query instanceof Float32Array) || query.length !== this.dimensions) {
      throw new RangeError(`a query vector has ${this.dimensions} float32 dimensions`);
    }
  }

  #put(id: number, spans: PassageSpan[], vectors: Float32Array): void {
    this.#remove(id);
    const count = spans.length;
    this.#reserve(this.#rows + count);
    const start = this.#rows;
    this.#store.matrix.set(vectors, start * this.dimensions);
    this.#owner.fill(id, start, start + count);
    this.#rows += count;
    this.#entries.set(id, { start, count, spans });
  }

  #remove(id: number): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#owner.fill(0, entry.start, entry.start + entry.count);
    this.#freeRows += entry.count;
    this.#entries.delete(id);
  }

  /** Room for `rows` rows: a new, larger block (half as large again, at least). */
  #reserve(rows: number): void {
    if (rows <= this.#store.capacity) return;
    const capacity = Math.max(rows, Math.ceil(this.#store.capacity * 1.5));
    const store = new Rows(capacity, this.dimensions, this.#useKernel);
    store.matrix.set(this.#store.matrix.subarray(0, this.#rows * this.dimensions));
    const owner = new Int32Array(capacity);
    owner.set(this.#owner.subarray(0, this.#rows));
    this.#store = store;
    this.#owner = owner;
  }

  /** Moves live rows down over free ones, keeping each memory's rows together. */
  #compact(): void {
    const dims = this.dimensions;
    const matrix = this.#store.matrix;
    let to = 0;
    for (const entry of [...this.#entries.values()].sort((a, b) => a.start - b.start)) {
      if (entry.start !== to) {
        matrix.copyWithin(to * dims, entry.start * dims, (entry.start + entry.count) * dims);
        this.#owner.copyWithin(to, entry.start, entry.start + entry.count);
        entry.start = to;
      }
      to += entry.count;
    }
    this.#owner.fill(0, to, this.#rows);
    this.#rows = to;
    this.#freeRows = 0;
    this.#scans++;
  }
}

/** Dot product of `query` with the row of `matrix` starting at `offset`, four lanes at once. */
function dot(matrix: Float32Array, offset: number, query: Float32Array): number {
  const n = query.length;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let k = 0;
  for (; k + 3 < n; k += 4) {
    a += (matrix[offset + k] as number) * (query[k] as number);
    b += (matrix[offset + k + 1] as number) * (query[k + 1] as number);
    c += (matrix[offset + k + 2] as number) * (query[k + 2] as number);
    d += (matrix[offset + k + 3] as number) * (query[k + 3] as number);
  }
  for (; k < n; k++) a += (matrix[offset + k] as number) * (query[k] as number);
  return a + b + c + d;
}

/** A memory's best passage, by row, while searching. */
interface Best {
  readonly id: number;
  readonly score: number;
  readonly row: number;
}

function heapPush(heap: Best[], hit: Best): void {
  heap.push(hit);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (less(heap[parent] as Best, hit)) break;
    heap[i] = heap[parent] as Best;
    i = parent;
  }
  heap[i] = hit;
}

function heapReplaceTop(heap: Best[], hit: Best): void {
  let i = 0;
  const n = heap.length;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= n) break;
    const right = left + 1;
    const child = right < n && less(heap[right] as Best, heap[left] as Best) ? right : left;
    if (less(hit, heap[child] as Best)) break;
    heap[i] = heap[child] as Best;
    i = child;
  }
  heap[i] = hit;
}

/** Heap order: the worse hit is "less" (lower score; on a tie, the higher id). */
function less(a: Pick<Best, "id" | "score">, b: Pick<Best, "id" | "score">): boolean {
  return a.score < b.score || (a.score === b.score && a.id > b.id);
}
