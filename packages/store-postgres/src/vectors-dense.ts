/**
 * Dense search without pgvector: exact cosine in this process over a namespace's passage
 * vectors (unit length, so a dot product is a cosine). Each namespace's vectors are copied
 * into memory once, labelled with the namespace's change counter (bumped in the same
 * transaction as any change to its vectors, schema.ts). Every query reads the counter first,
 * so a replica never ranks with vectors another replica has replaced or deleted. When it has
 * moved, only what changed is read: the memories whose change log row (hms_vector_changes,
 * migration 4) is newer than the copy's counter, with their vectors as they are now (none:
 * deleted). A copy of another dimension count (the model changed), or older than the log's
 * pruned horizon (vector-changes.ts), is read again whole.
 */
import type { DenseHit, PassageSpan } from "@hms/store";
import type { Client } from "./connection.js";

/** The nearest memories, and the similarity of the other memories asked about. */
export interface DenseResult {
  /** Best first, ties by id. */
  readonly nearest: DenseHit[];
  /** Similarity and best passage of a memory among the nearest or those asked about. */
  score(id: number): DenseHit | undefined;
}

/** Where hybrid recall's dense candidates come from: this exact scan, or pgvector's index. */
export interface DenseIndex {
  /**
   * The `n` memories of namespace `ns` nearest to `query` (among `allowed`, when given), and
   * the similarity of each of `also` (the lexical candidates).
   */
  nearest(
    client: Client,
    ns: number,
    query: Float32Array,
    n: number,
    allowed: ReadonlySet<number> | undefined,
    also: readonly number[],
  ): Promise<DenseResult>;
}

/** One memory's passages in a copy. */
interface Entry {
  readonly spans: PassageSpan[];
  /** `spans.length × dimensions` floats, passage after passage. */
  readonly vectors: Float32Array;
}

/** One namespace's vectors in memory, as of counter value `changes`. */
interface Copy {
  changes: number;
  readonly dimensions: number;
  readonly memories: Map<number, Entry>;
}

/** A row of vectors as read from hms_memory_vectors (null columns: the memory has none). */
interface VectorRow {
  changes: number;
  memory_id: number | null;
  line_start: number[] | null;
  line_end: number[] | null;
  vectors: Buffer | null;
}

/** How copies were brought up to date, for tests and operators. */
export interface DenseCounters {
  /** Copies read whole (first use, or a new dimension count). */
  full: number;
  /** Copies brought up to date from the change log. */
  incremental: number;
  /** Memories read by incremental updates. */
  changedMemories: number;
}

export class DenseSearch implements DenseIndex {
  readonly #copies = new Map<number, Copy>();
  readonly counters: DenseCounters = { full: 0, incremental: 0, changedMemories: 0 };

  async nearest(
    client: Client,
    ns: number,
    query: Float32Array,
    n: number,
    allowed: ReadonlySet<number> | undefined,
  ): Promise<DenseResult> {
    const scan = await this.scan(client, ns, query);
    return {
      nearest: scan.best(n, allowed === undefined ? undefined : (id) => allowed.has(id)),
      score: scan.score,
    };
  }

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
      for (const [id, entry] of copy.memories) {
        const { vectors, spans } = entry;
        let best = Number.NEGATIVE_INFINITY;
        let bestPassage = 0;
        for (let passage = 0; passage < spans.length; passage++) {
          let sum = 0;
          const at = passage * dims;
          for (let d = 0; d < dims; d++) sum += (vectors[at + d] as number) * (query[d] as number);
          if (sum > best) {
            best = sum;
            bestPassage = passage;
          }
        }
        byMemory.set(id, { id, score: best, passage: spans[bestPassage] as PassageSpan });
      }
    }
    const sorted = [...byMemory.values()].sort((a, b) => b.score - a.score || a.id - b.id);
    return {
      best: (n, accept) =>
        (accept === undefined ? sorted : sorted.filter((hit) => accept(hit.id))).slice(0, n),
      score: (id) => byMemory.get(id),
    };
  }

  /** The namespace's vectors as of now: the kept copy, brought up to date if its counter moved. */
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
    if (kept !== undefined && kept.dimensions === state.dimensions) {
      if (kept.changes === state.changes || (await this.#applyChanges(client, ns, kept))) {
        return kept;
      }
    }
    const copy = await this.#load(client, ns, state.dimensions);
    this.#copies.set(ns, copy);
    return copy;
  }

  /**
   * Reads every vector of the namespace. The counter is read again with the vectors, in one
   * statement, so the copy is labelled with the counter its vectors belong to (a change
   * between the two reads is applied next time).
   */
  async #load(client: Client, ns: number, dimensions: number): Promise<Copy> {
    const { rows } = await client.query<VectorRow>(
      `SELECT e.changes, v.memory_id, v.line_start, v.line_end, v.vectors
       FROM hms_embedding_models e LEFT JOIN hms_memory_vectors v ON v.ns = e.ns
       WHERE e.ns = $1`,
      [ns],
    );
    const copy: Copy = { changes: rows[0]?.changes ?? 0, dimensions, memories: new Map() };
    for (const row of rows) setRow(copy, row);
    this.counters.full++;
    return copy;
  }

  /**
   * Applies the changes logged since the copy's counter, in one statement (one snapshot): each
   * changed memory's vectors as they are now, or its removal when it has none. Returns false,
   * changing nothing, when the log no longer reaches back to the copy's counter (tombstones it
   * needs were pruned, vector-changes.ts): the copy must then be read whole.
   */
  async #applyChanges(client: Client, ns: number, copy: Copy): Promise<boolean> {
    const { rows } = await client.query<
      VectorRow & { changed_id: number | null; pruned_through: number }
    >(
      `SELECT e.changes, e.pruned_through, c.memory_id AS changed_id, v.memory_id, v.line_start,
              v.line_end, v.vectors
       FROM hms_embedding_models e
       LEFT JOIN hms_vector_changes c ON c.ns = e.ns AND c.changed > $2
       LEFT JOIN hms_memory_vectors v ON v.memory_id = c.memory_id AND v.ns = e.ns
       WHERE e.ns = $1`,
      [ns, copy.changes],
    );
    if (copy.changes < Number(rows[0]?.pruned_through ?? 0)) return false;
    for (const row of rows) {
      if (row.changed_id === null) continue;
      copy.memories.delete(row.changed_id);
      setRow(copy, row);
      this.counters.changedMemories++;
    }
    copy.changes = rows[0]?.changes ?? copy.changes;
    this.counters.incremental++;
    return true;
  }
}

/** Puts a row's vectors in the copy (a row without vectors, or of other dimensions, adds none). */
function setRow(copy: Copy, row: VectorRow): void {
  if (row.memory_id === null || row.vectors === null) return;
  const starts = row.line_start ?? [];
  const ends = row.line_end ?? [];
  const vectors = new Float32Array(row.vectors.byteLength / 4);
  new Uint8Array(vectors.buffer).set(row.vectors);
  if (starts.length === 0 || vectors.length !== starts.length * copy.dimensions) return;
  const spans = starts.map((lineStart, i) => ({ lineStart, lineEnd: ends[i] as number }));
  copy.memories.set(row.memory_id, { spans, vectors });
}
