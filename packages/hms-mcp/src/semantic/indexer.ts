/**
 * The background indexer: embeds memories waiting in each open store's embedding queue, a
 * small job at a time, off the request path. Writes commit and return at once; their memories
 * are queued by the store (a trigger) and embedded here, the most recently queued first, so a
 * fresh write is embedded before an old backfill. Memories a recall waits for (its caller's own
 * recent writes) jump the queue. Another process's writes are found by polling the queue when
 * idle.
 */
import { isBusy, type MemoryStore, type MemoryVectors, type PendingMemory } from "@hms/store";
import type { Logger } from "pino";
import type { EmbeddedMemory } from "./protocol.js";
import type { Embedding } from "./worker-pool.js";

export interface IndexerOptions {
  /** Most memories in one job for the worker. */
  readonly jobMemories: number;
  /** Most characters of text in one job (at least one memory is always taken). */
  readonly jobChars: number;
  /** How often idle stores are checked for memories queued by other processes, in ms. */
  readonly pollMs: number;
  /** How often backfill progress is logged, in ms. */
  readonly progressMs: number;
  /** A queue at least this long is a backfill: its progress is logged at info level. */
  readonly backfillAt: number;
}

export const DEFAULT_INDEXER_OPTIONS: IndexerOptions = Object.freeze({
  jobMemories: 16,
  jobChars: 8000,
  pollMs: 1000,
  progressMs: 5000,
  backfillAt: 64,
});

interface Watched {
  readonly namespace: string;
  readonly store: MemoryStore;
  /** Memories that failed to embed in this process; not retried until restart. */
  readonly failed: Set<number>;
  /** Memories a recall waits for: embedded before the rest of the queue. */
  readonly urgent: Set<number>;
  /** Recent saves (time in ms, memories), for the rate `stats` reports. */
  readonly saves: { at: number; memories: number }[];
  backfill?: { total: number; done: number; started: number; logged: number } | undefined;
}

/** How far back the embedding rate in `stats` looks, in ms. */
export const RATE_WINDOW_MS = 30_000;

/** One job for the worker: a store, and the memories to embed when they are chosen already. */
interface Job {
  readonly watched: Watched;
  readonly batch?: PendingMemory[];
}

export class Indexer {
  readonly #worker: Embedding;
  readonly #log: Logger;
  readonly #options: IndexerOptions;
  readonly #watched = new Map<MemoryStore, Watched>();
  #turn = 0;
  #stopped = false;
  #wake: (() => void) | undefined;
  #progressListeners: (() => void)[] = [];
  readonly #loop: Promise<void>;

  constructor(worker: Embedding, log: Logger, options: IndexerOptions) {
    this.#worker = worker;
    this.#log = log;
    this.#options = options;
    this.#loop = this.#run();
  }

  /** Starts embedding `store`'s queue (its backfill first, if it has one). */
  watch(namespace: string, store: MemoryStore): void {
    if (store.embeddings === undefined || this.#watched.has(store)) return;
    this.#watched.set(store, {
      namespace,
      store,
      failed: new Set(),
      urgent: new Set(),
      saves: [],
    });
    this.kick();
  }

  /** Something was queued: look now rather than at the next poll. */
  kick(): void {
    this.#wake?.();
  }

  /**
   * Waits until the memories `ids` of `store` have vectors (or are gone), at most `timeoutMs`,
   * embedding them before the rest of the queue. Returns true when they have (or none was
   * waiting). A memory that failed to embed is not waited for.
   */
  async waitFor(store: MemoryStore, ids: readonly number[], timeoutMs: number): Promise<boolean> {
    const watched = this.#watched.get(store);
    if (watched === undefined || ids.length === 0) return true;
    const deadline = performance.now() + timeoutMs;
    while (store.open && this.#waiting(watched, ids).length > 0) {
      const left = deadline - performance.now();
      if (left <= 0 || this.#stopped || this.#worker.failure !== undefined) return false;
      for (const id of ids) watched.urgent.add(id);
      this.kick();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, left);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.#progressListeners.push(done);
      });
    }
    return true;
  }

  /**
   * Indexing progress of `store` for `stats`: memories embedded per second over the last
   * {@link RATE_WINDOW_MS} (null when fewer than two jobs were saved in that time).
   */
  rate(store: MemoryStore): number | null {
    const saves = this.#recentSaves(this.#watched.get(store));
    const first = saves[0];
    const last = saves[saves.length - 1];
    if (first === undefined || last === undefined || last.at <= first.at) return null;
    // The first save ends the period measured; its memories were embedded before it.
    const memories = saves.slice(1).reduce((sum, save) => sum + save.memories, 0);
    return Math.round((memories / ((last.at - first.at) / 1000)) * 10) / 10;
  }

  /** Memories waiting to be embedded in the open stores this indexer watches. */
  get backlog(): number {
    let waiting = 0;
    for (const watched of this.#watched.values()) {
      if (watched.store.open) waiting += watched.store.embeddings?.pendingCount() ?? 0;
    }
    return waiting;
  }

  /** Stops after the job in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.kick();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        const next = this.#pick();
        if (next === undefined) {
          await this.#idle();
          continue;
        }
        await this.#job(next);
      } catch (error) {
        // A store closed under the indexer, or a database error: log, pause, carry on.
        this.#log.error({ err: error }, "embedding indexer: unexpected error; retrying shortly");
        await this.#idle();
      } finally {
        for (const listener of this.#progressListeners.splice(0)) listener();
      }
    }
  }

  /**
   * The next job: memories a recall waits for, else the next open store with a queue (the
   * batch is then taken from the head of its queue).
   */
  #pick(): Job | undefined {
    for (const [store, watched] of this.#watched) {
      if (!store.open) this.#watched.delete(store);
      else if (watched.backfill !== undefined && store.embeddings?.pendingCount() === 0) {
        this.#finishBackfill(watched);
      }
    }
    for (const watched of this.#watched.values()) {
      if (watched.urgent.size === 0) continue;
      // Embedded, deleted or failed memories are no longer urgent.
      const waiting = this.#waiting(watched, [...watched.urgent]);
      watched.urgent.clear();
      for (const memory of waiting) watched.urgent.add(memory.id);
      const batch = this.#batch(waiting.slice(0, this.#options.jobMemories));
      if (batch.length > 0) return { watched, batch };
    }
    const all = [...this.#watched.values()];
    for (let i = 0; i < all.length; i++) {
      const candidate = all[(this.#turn + i) % all.length] as Watched;
      if (this.#hasWork(candidate.store)) {
        this.#turn = (this.#turn + i + 1) % all.length;
        return { watched: candidate };
      }
    }
    return undefined;
  }

  #hasWork(store: MemoryStore): boolean {
    const watched = this.#watched.get(store);
    const embeddings = store.embeddings;
    if (watched === undefined || embeddings === undefined) return false;
    return embeddings.pendingCount() > watched.failed.size;
  }

  async #idle(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.#options.pollMs);
      const wake = () => done();
      this.#wake = wake;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
    this.#wake = undefined;
  }

  /** Those of `ids` still waiting for vectors in `watched`'s store, failed ones left out. */
  #waiting(watched: Watched, ids: readonly number[]): PendingMemory[] {
    const pending = watched.store.embeddings?.pendingAmong(ids) ?? [];
    return pending.filter((memory) => !watched.failed.has(memory.id));
  }

  #recentSaves(watched: Watched | undefined): { at: number; memories: number }[] {
    if (watched === undefined) return [];
    const since = performance.now() - RATE_WINDOW_MS;
    while ((watched.saves[0]?.at ?? since) < since) watched.saves.shift();
    return watched.saves;
  }

  async #job({ watched, batch: chosen }: Job): Promise<void> {
    const { store } = watched;
    const embeddings = store.embeddings;
    if (embeddings === undefined) return;
    const queued = embeddings.pendingCount();
    if (watched.backfill === undefined && queued >= this.#options.backfillAt) {
      const now = performance.now();
      watched.backfill = { total: queued, done: 0, started: now, logged: now };
      this.#log.info(
        { namespace: watched.namespace, pending: queued, model: embeddings.model.id },
        `embedding ${queued} memories in the background (recall ranks them lexically until then)`,
      );
    }
    const batch =
      chosen ??
      this.#batch(embeddings.pending(this.#options.jobMemories, { skip: watched.failed }));
    if (batch.length === 0) return;
    let saved = 0;
    try {
      const results = await this.#worker.embedMemories(
        batch.map((memory) => memory.text),
        batch.map((memory) => memoryKey(watched, memory)),
      );
      if (!store.open) return;
      saved = embeddings.save(batch.map((memory, i) => vectorsOf(memory, results[i])));
      this.#log.debug(
        { namespace: watched.namespace, saved, ...passageCounts(results) },
        "embedded",
      );
    } catch (error) {
      if (this.#worker.failure !== undefined) {
        this.#log.error(
          { err: this.#worker.failure },
          "the embedding worker failed: no more embeddings; recall ranks new memories lexically",
        );
        this.#stopped = true;
        return;
      }
      if (!store.open) return;
      if (isBusy(error)) {
        this.#log.warn(
          { namespace: watched.namespace },
          "store busy; embeddings will be saved later",
        );
        return;
      }
      // A text the model cannot take: try each memory alone and set aside those that fail.
      if (batch.length > 1) {
        for (const memory of batch) await this.#single(watched, memory);
        return;
      }
      const [memory] = batch;
      if (memory !== undefined) this.#setAside(watched, memory, error);
      return;
    }
    this.#progress(watched, saved);
  }

  async #single(watched: Watched, memory: PendingMemory): Promise<void> {
    try {
      const [result] = await this.#worker.embedMemories(
        [memory.text],
        [memoryKey(watched, memory)],
      );
      if (!watched.store.open) return;
      const saved = watched.store.embeddings?.save([vectorsOf(memory, result)]);
      this.#progress(watched, saved ?? 0);
    } catch (error) {
      if (this.#worker.failure === undefined && watched.store.open) {
        this.#setAside(watched, memory, error);
      }
    }
  }

  #setAside(watched: Watched, memory: PendingMemory, error: unknown): void {
    watched.failed.add(memory.id);
    this.#log.error(
      { err: error, namespace: watched.namespace, memoryId: memory.id },
      "could not embed a memory; it is ranked lexically only until the server restarts",
    );
  }

  /** The pending memories that fit one job: at most jobChars of text, at least one memory. */
  #batch(pending: PendingMemory[]): PendingMemory[] {
    const batch: PendingMemory[] = [];
    let chars = 0;
    for (const memory of pending) {
      if (batch.length > 0 && chars + memory.text.length > this.#options.jobChars) break;
      batch.push(memory);
      chars += memory.text.length;
    }
    return batch;
  }

  #progress(watched: Watched, saved: number): void {
    if (saved > 0) {
      this.#recentSaves(watched).push({ at: performance.now(), memories: saved });
    }
    const backfill = watched.backfill;
    if (backfill === undefined) return;
    backfill.done += saved;
    const now = performance.now();
    if (now - backfill.logged < this.#options.progressMs) return;
    backfill.logged = now;
    const pending = watched.store.embeddings?.pendingCount() ?? 0;
    this.#log.info(
      {
        namespace: watched.namespace,
        embedded: backfill.done,
        pending,
        per_second: Math.round((backfill.done / ((now - backfill.started) / 1000)) * 10) / 10,
      },
      `embedding: ${backfill.done} memories done, ${pending} to go`,
    );
  }

  #finishBackfill(watched: Watched): void {
    const backfill = watched.backfill;
    if (backfill === undefined) return;
    watched.backfill = undefined;
    const seconds = (performance.now() - backfill.started) / 1000;
    this.#log.info(
      {
        namespace: watched.namespace,
        embedded: backfill.done,
        seconds: Math.round(seconds * 10) / 10,
      },
      `embedding done: ${backfill.done} memories in ${seconds.toFixed(1)} s`,
    );
  }
}

/** A memory's key for the embedding pool: its store's namespace and its row id there. */
function memoryKey(watched: Watched, memory: PendingMemory): string {
  return `${watched.namespace}:${memory.id}`;
}

/**
 * How many passages a job's memories have, and how many of them the model ran for (the others
 * were embedded lately and kept): what the debug log says of each job.
 */
export function passageCounts(results: readonly EmbeddedMemory[]): {
  passages: number;
  model_passages: number;
} {
  let passages = 0;
  let fresh = 0;
  for (const result of results) {
    passages += result.spans.length / 2;
    fresh += result.fresh;
  }
  return { passages, model_passages: fresh };
}

/** The store's form of the worker's answer for one memory. */
export function vectorsOf(
  memory: PendingMemory,
  result: EmbeddedMemory | undefined,
): MemoryVectors {
  if (result === undefined) throw new Error("the embedding worker returned too few memories");
  const spans = [];
  for (let p = 0; p < result.spans.length; p += 2) {
    spans.push({ lineStart: result.spans[p] as number, lineEnd: result.spans[p + 1] as number });
  }
  return { id: memory.id, hash: memory.hash, spans, vectors: result.vectors };
}
