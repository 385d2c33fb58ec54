/**
 * Several embedding worker threads used as one (one by default; `--embed-workers`). Each thread
 * holds its own copy of the model and computes on its own: on 2 cores, two sessions of one
 * thread each embed about a fifth more memories per second than one session of two threads
 * (the model's products are too small to keep two threads of one session busy), at the cost of
 * a second copy of the model in memory (`pnpm bench embed-throughput`).
 *
 * A job of memories is shared out between the threads by length and put back together in
 * order; a memory embedded before goes back to the same thread (whose recent passages hold its
 * unchanged ones, see vector-cache.ts), known by the key its indexer gives it. A query goes to the thread with the least work in
 * flight.
 */
import type { EmbeddedMemory, WorkerSetup } from "./protocol.js";
import { EmbeddingWorker } from "./worker-client.js";

/** What the indexers and recall need from the embedding threads. */
export interface Embedding {
  readonly modelId: string;
  readonly dimensions: number;
  /** Why embedding stopped working (a thread exited or crashed), if it did. */
  readonly failure: Error | undefined;
  embedQuery(text: string): Promise<Float32Array>;
  /**
   * Each memory's passages, in order. `keys` name the memories (stable across edits), so an
   * edited memory can go back to the thread that embedded it.
   */
  embedMemories(texts: readonly string[], keys: readonly string[]): Promise<EmbeddedMemory[]>;
  close(): Promise<void>;
}

export class EmbeddingPool implements Embedding {
  readonly modelId: string;
  readonly dimensions: number;
  /** Models whose stores this model re-embeds on its own (an upgrade). */
  readonly replaces: readonly string[];
  /** The ONNX Runtime the models run on. */
  readonly runtime: string;
  readonly #workers: readonly EmbeddingWorker[];
  /** Texts in flight per worker, to send a query where it waits least. */
  readonly #busy: number[];
  /** Where each memory (by key) was embedded last, to send its edits there. */
  readonly #affinity = new Affinity(4096);

  private constructor(workers: readonly EmbeddingWorker[]) {
    const first = workers[0] as EmbeddingWorker;
    this.#workers = workers;
    this.#busy = workers.map(() => 0);
    this.modelId = first.modelId;
    this.dimensions = first.dimensions;
    this.replaces = first.replaces;
    this.runtime = first.runtime;
  }

  /**
   * Starts `count` worker threads at `script` and waits until each has loaded the model. When
   * one cannot, the others are stopped and the first error is thrown (a
   * `ModelUnavailableError` when the model is missing or broken).
   */
  static async start(script: URL, setup: WorkerSetup, count: number): Promise<EmbeddingPool> {
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(
        `the number of embedding workers must be a positive integer, got ${count}`,
      );
    }
    const started = await Promise.allSettled(
      Array.from({ length: count }, () => EmbeddingWorker.start(script, setup)),
    );
    const workers = started.flatMap((result) =>
      result.status === "fulfilled" ? [result.value] : [],
    );
    const failed = started.find((result) => result.status === "rejected");
    if (failed !== undefined) {
      await Promise.all(workers.map((worker) => worker.close()));
      throw failed.reason;
    }
    return new EmbeddingPool(workers);
  }

  /** How many worker threads embed. */
  get size(): number {
    return this.#workers.length;
  }

  /** The first failure of any thread: from then on the pool refuses work (recall is lexical). */
  get failure(): Error | undefined {
    for (const worker of this.#workers) if (worker.failure !== undefined) return worker.failure;
    return undefined;
  }

  embedQuery(text: string): Promise<Float32Array> {
    const failure = this.failure;
    if (failure !== undefined) return Promise.reject(failure);
    return this.#on(this.#idlest(), 1, (worker) => worker.embedQuery(text));
  }

  /** Each memory's passages, in order; the texts are shared out between the threads. */
  async embedMemories(
    texts: readonly string[],
    keys: readonly string[],
  ): Promise<EmbeddedMemory[]> {
    const failure = this.failure;
    if (failure !== undefined) throw failure;
    if (keys.length !== texts.length) {
      throw new RangeError(`${texts.length} texts but ${keys.length} keys`);
    }
    const shares = shareOut(
      texts.map((text) => text.length),
      this.#workers.length,
      keys.map((key) => this.#affinity.of(key)),
    );
    shares.forEach((indexes, w) => {
      for (const i of indexes) this.#affinity.set(keys[i] as string, w);
    });
    const results = await Promise.all(
      shares.map((indexes, w) =>
        indexes.length === 0
          ? []
          : this.#on(w, indexes.length, (worker) =>
              worker.embedMemories(indexes.map((i) => texts[i] as string)),
            ),
      ),
    );
    const memories: EmbeddedMemory[] = new Array(texts.length);
    shares.forEach((indexes, w) => {
      indexes.forEach((i, j) => {
        memories[i] = (results[w] as EmbeddedMemory[])[j] as EmbeddedMemory;
      });
    });
    return memories;
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.close()));
  }

  #idlest(): number {
    let best = 0;
    for (let w = 1; w < this.#busy.length; w++) {
      if ((this.#busy[w] as number) < (this.#busy[best] as number)) best = w;
    }
    return best;
  }

  async #on<T>(
    w: number,
    texts: number,
    task: (worker: EmbeddingWorker) => Promise<T>,
  ): Promise<T> {
    this.#busy[w] = (this.#busy[w] as number) + texts;
    try {
      return await task(this.#workers[w] as EmbeddingWorker);
    } finally {
      this.#busy[w] = (this.#busy[w] as number) - texts;
    }
  }
}

/**
 * Shares items of the given sizes out between `count` parts of near-equal total size: an item
 * with a preferred part goes there, the others go largest first to the part with the least so
 * far. Each part lists its items' indexes in their original order.
 */
export function shareOut(
  sizes: readonly number[],
  count: number,
  preferred: readonly (number | undefined)[] = [],
): number[][] {
  const parts: number[][] = Array.from({ length: count }, () => []);
  const totals = new Array<number>(count).fill(0);
  const place = (i: number, p: number) => {
    (parts[p] as number[]).push(i);
    totals[p] = (totals[p] as number) + (sizes[i] as number);
  };
  const free: number[] = [];
  sizes.forEach((_, i) => {
    const p = preferred[i];
    if (p !== undefined && p >= 0 && p < count) place(i, p);
    else free.push(i);
  });
  free.sort((a, b) => (sizes[b] as number) - (sizes[a] as number) || a - b);
  for (const i of free) {
    let least = 0;
    for (let p = 1; p < count; p++)
      if ((totals[p] as number) < (totals[least] as number)) least = p;
    place(i, least);
  }
  for (const part of parts) part.sort((a, b) => a - b);
  return parts;
}

/**
 * Which worker last embedded each memory, by the memory's key (its store and row id, which
 * edits keep): an edited memory goes back to the worker whose recent passages hold its
 * unchanged ones. Least recently used first out.
 */
export class Affinity {
  readonly #workers = new Map<string, number>();
  constructor(readonly maxEntries: number) {}

  of(key: string): number | undefined {
    return this.#workers.get(key);
  }

  set(key: string, worker: number): void {
    this.#workers.delete(key);
    this.#workers.set(key, worker);
    for (const oldest of this.#workers.keys()) {
      if (this.#workers.size <= this.maxEntries) break;
      this.#workers.delete(oldest);
    }
  }
}
