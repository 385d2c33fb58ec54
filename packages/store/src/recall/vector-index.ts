/**
 * An in-memory copy of a store's passage vectors, for exact (brute-force) nearest-neighbour
 * search: one Float32 matrix with a row per passage, scanned with dot products (vectors have
 * unit length, so a dot product is a cosine). At 100,000 memories × 384 dimensions that is
 * 150 MiB and one pass of 38 million multiply-adds per query; see the hms-mcp README for the
 * measured cost.
 *
 * The copy follows the database through `vector_state`: an unchanged generation means nothing
 * changed; otherwise rows with a newer `seq` are loaded, and when the row count disagrees the
 * ids are swept for removals. Writes by this connection and by other processes are seen alike.
 */
import type BetterSqlite3 from "better-sqlite3";
import { decodeSpans, type PassageSpan } from "../embeddings.js";

/** A memory's similarity to a query: its best passage's cosine, and that passage. */
export interface DenseHit {
  readonly id: number;
  readonly score: number;
  readonly passage: PassageSpan;
}

interface Entry {
  /** First row of the memory's passages; they are contiguous. */
  start: number;
  count: number;
  spans: PassageSpan[];
}

export class VectorIndex {
  readonly dimensions: number;
  #matrix: Float32Array;
  /** Memory id of each row; 0 for a free row. */
  #owner: Int32Array;
  #rows = 0;
  #freeRows = 0;
  readonly #entries = new Map<number, Entry>();
  #seq = 0;
  #generation = -1;
  readonly #sql: {
    state: BetterSqlite3.Statement;
    since: BetterSqlite3.Statement;
    ids: BetterSqlite3.Statement;
  };

  constructor(db: BetterSqlite3.Database, dimensions: number) {
    this.dimensions = dimensions;
    this.#matrix = new Float32Array(64 * dimensions);
    this.#owner = new Int32Array(64);
    this.#sql = {
      state: db.prepare("SELECT generation, vectors FROM vector_state WHERE id = 1"),
      since: db.prepare(
        "SELECT seq, memory_id AS id, spans, vectors FROM memory_vectors WHERE seq > ? ORDER BY seq",
      ),
      ids: db.prepare("SELECT memory_id FROM memory_vectors").pluck(),
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
    for (const row of this.#sql.since.iterate(this.#seq) as IterableIterator<{
      seq: number;
      id: number;
      spans: Buffer;
      vectors: Buffer;
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
      const live = new Set(this.#sql.ids.all() as number[]);
      for (const id of [...this.#entries.keys()]) if (!live.has(id)) this.#remove(id);
    }
    this.#generation = state.generation;
    if (this.#freeRows > 1024 && this.#freeRows > this.#rows / 4) this.#compact();
  }

  /**
   * The `n` memories most similar to `query`, best first, among those `accept` lets through
   * (all when omitted).
   */
  nearest(query: Float32Array, n: number, accept?: (id: number) => boolean): DenseHit[] {
    this.#check(query);
    if (n < 1) return [];
    // One pass over the rows: a memory's rows are contiguous, so its best passage is known when
    // the owner changes. A bounded min-heap keeps the best n memories seen so far.
    const heap: Best[] = [];
    const dims = this.dimensions;
    const owner = this.#owner;
    const matrix = this.#matrix;
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
    for (let r = 0; r < this.#rows; r++) {
      const id = owner[r] as number;
      if (id === 0) continue;
      if (id !== current) {
        if (current !== 0) offer(current, best, bestRow);
        current = id;
        best = Number.NEGATIVE_INFINITY;
      }
      const score = dot(matrix, r * dims, query);
      if (score > best) {
        best = score;
        bestRow = r;
      }
    }
    if (current !== 0) offer(current, best, bestRow);
    return heap
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .map(({ id, score, row }) => {
        const entry = this.#entries.get(id) as Entry;
        return { id, score, passage: entry.spans[row - entry.start] as PassageSpan };
      });
  }

  /** The similarity of memory `id` to `query`, or `undefined` if it has no vectors here. */
  score(query: Float32Array, id: number): DenseHit | undefined {
    this.#check(query);
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    let best = -Infinity;
    let bestRow = 0;
    for (let r = 0; r < entry.count; r++) {
      const score = dot(this.#matrix, (entry.start + r) * this.dimensions, query);
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
    this.#matrix.set(vectors, start * this.dimensions);
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

  #reserve(rows: number): void {
    if (rows <= this.#owner.length) return;
    let capacity = this.#owner.length;
    while (capacity < rows) capacity *= 2;
    const matrix = new Float32Array(capacity * this.dimensions);
    matrix.set(this.#matrix.subarray(0, this.#rows * this.dimensions));
    const owner = new Int32Array(capacity);
    owner.set(this.#owner.subarray(0, this.#rows));
    this.#matrix = matrix;
    this.#owner = owner;
  }

  /** Moves live rows down over free ones, keeping each memory's rows together. */
  #compact(): void {
    const dims = this.dimensions;
    let to = 0;
    for (const entry of [...this.#entries.values()].sort((a, b) => a.start - b.start)) {
      if (entry.start !== to) {
        this.#matrix.copyWithin(to * dims, entry.start * dims, (entry.start + entry.count) * dims);
        this.#owner.copyWithin(to, entry.start, entry.start + entry.count);
        entry.start = to;
      }
      to += entry.count;
    }
    this.#owner.fill(0, to, this.#rows);
    this.#rows = to;
    this.#freeRows = 0;
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
function less(a: Pick<DenseHit, "id" | "score">, b: Pick<DenseHit, "id" | "score">): boolean {
  return a.score < b.score || (a.score === b.score && a.id > b.id);
}
