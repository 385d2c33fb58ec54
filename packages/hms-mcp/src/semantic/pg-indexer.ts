/**
 * The background indexer on PostgreSQL: one per replica, embedding memories from the
 * database's shared queue (@hms/store-postgres queue.ts). It claims a few memories at a time
 * (FOR UPDATE SKIP LOCKED, under a lease), so replicas never embed the same memory twice;
 * a replica killed mid-job leaves claims that another takes over when their lease expires.
 * Memories a recall waits for (its caller's own recent writes) are claimed first. Other
 * replicas' writes are found by polling the queue when idle.
 */
import { hostname } from "node:os";
import type { ClaimedMemory, PgEmbeddings } from "@hms/store-postgres";
import type { Logger } from "pino";
import type { IndexerOptions } from "./indexer.js";
import { passageCounts, RATE_WINDOW_MS, vectorsOf } from "./indexer.js";
import type { Embedding } from "./worker-pool.js";

/** How long a claim holds before another replica may take it over, in ms. */
export const CLAIM_LEASE_MS = 120_000;

/**
 * How often an idle replica drops old tombstones from the vector change log (@hms/store-postgres
 * vector-changes.ts), in ms, the first time when it is first idle: any replica may, and doing
 * it twice does no harm.
 */
export const PRUNE_EVERY_MS = 600_000;

export class PgIndexer {
  readonly #worker: Embedding;
  readonly #embeddings: PgEmbeddings;
  readonly #log: Logger;
  readonly #options: IndexerOptions;
  /** This replica's name in the queue's claims (for operators reading the table). */
  readonly #name = `${hostname()}:${process.pid}`;
  /** Memories a recall waits for: claimed before the rest of the queue. */
  readonly #urgent = new Set<number>();
  /** Recent saves (time in ms, memories), for the rate `stats` reports. */
  readonly #saves: { at: number; memories: number }[] = [];
  #stopped = false;
  /** When this replica last pruned the vector change log (performance.now()); first when idle. */
  #pruned = Number.NEGATIVE_INFINITY;
  #wake: (() => void) | undefined;
  #progressListeners: (() => void)[] = [];
  readonly #loop: Promise<void>;

  constructor(worker: Embedding, embeddings: PgEmbeddings, log: Logger, options: IndexerOptions) {
    this.#worker = worker;
    this.#embeddings = embeddings;
    this.#log = log;
    this.#options = options;
    this.#loop = this.#run();
  }

  /** Something was queued: look now rather than at the next poll. */
  kick(): void {
    this.#wake?.();
  }

  /**
   * Waits until none of `pending()` is left (the memories have vectors, or are gone), at most
   * `timeoutMs`, claiming them before the rest of the queue (another replica may hold them:
   * then this waits for its save). Returns true when none is left.
   */
  async waitFor(pending: () => Promise<number[]>, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const ids = await pending();
      if (ids.length === 0) return true;
      const left = deadline - performance.now();
      if (left <= 0 || this.#stopped || this.#worker.failure !== undefined) return false;
      for (const id of ids) this.#urgent.add(id);
      this.kick();
      // Woken by this replica's next save, or after a poll interval (another replica's save).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, this.#options.pollMs));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.#progressListeners.push(done);
      });
    }
  }

  /** Memories this replica embedded per second over the last {@link RATE_WINDOW_MS}. */
  rate(): number | null {
    const since = performance.now() - RATE_WINDOW_MS;
    while ((this.#saves[0]?.at ?? since) < since) this.#saves.shift();
    const first = this.#saves[0];
    const last = this.#saves[this.#saves.length - 1];
    if (first === undefined || last === undefined || last.at <= first.at) return null;
    const memories = this.#saves.slice(1).reduce((sum, save) => sum + save.memories, 0);
    return Math.round((memories / ((last.at - first.at) / 1000)) * 10) / 10;
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
        const batch = await this.#claim();
        if (batch.length > 0) await this.#job(batch);
        else {
          await this.#prune();
          await this.#idle();
        }
      } catch (error) {
        // The database out of reach, or a statement refused: log, pause, carry on.
        this.#log.error({ err: error }, "embedding indexer: unexpected error; retrying shortly");
        await this.#idle();
      } finally {
        for (const listener of this.#progressListeners.splice(0)) listener();
      }
    }
  }

  /** The next job: memories a recall waits for, else the newest queued. */
  async #claim(): Promise<ClaimedMemory[]> {
    const lease = { worker: this.#name, limit: this.#options.jobMemories, leaseMs: CLAIM_LEASE_MS };
    if (this.#urgent.size > 0) {
      const ids = [...this.#urgent];
      this.#urgent.clear();
      const urgent = await this.#embeddings.claim({ ...lease, ids });
      if (urgent.length > 0) return urgent;
    }
    return await this.#embeddings.claim(lease);
  }

  /** Drops old tombstones from the vector change log, at most every PRUNE_EVERY_MS. */
  async #prune(): Promise<void> {
    if (performance.now() - this.#pruned < PRUNE_EVERY_MS) return;
    this.#pruned = performance.now();
    const dropped = await this.#embeddings.pruneVectorChanges();
    this.#log.debug({ dropped }, "pruned the vector change log");
  }

  async #idle(): Promise<void> {
    if (this.#stopped) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.#options.pollMs);
      this.#wake = done;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
    this.#wake = undefined;
  }

  async #job(batch: ClaimedMemory[]): Promise<void> {
    let results: Awaited<ReturnType<Embedding["embedMemories"]>>;
    try {
      // Row ids are unique across the database's namespaces.
      results = await this.#worker.embedMemories(
        batch.map((memory) => memory.text),
        batch.map((memory) => String(memory.id)),
      );
    } catch (error) {
      if (this.#worker.failure !== undefined) {
        this.#log.error(
          { err: this.#worker.failure },
          "the embedding worker failed: no more embeddings; recall ranks new memories lexically",
        );
        this.#stopped = true;
        // Another replica may embed them now rather than when the lease runs out.
        await this.#embeddings.release(
          this.#name,
          batch.map((memory) => memory.id),
        );
        return;
      }
      // A text the model cannot take: try each memory alone.
      if (batch.length > 1) {
        for (const memory of batch) await this.#job([memory]);
        return;
      }
      // Left claimed: retried (here or by another replica) once its lease expires.
      this.#log.error(
        { err: error, namespace: batch[0]?.namespace, memoryId: batch[0]?.id },
        "could not embed a memory; it is ranked lexically only until a later try succeeds",
      );
      return;
    }
    const saved = await this.#embeddings.save(
      batch.map((memory, i) => vectorsOf(memory, results[i])),
    );
    this.#log.debug(
      { memories: batch.map((memory) => memory.id), saved, ...passageCounts(results) },
      "embedded",
    );
    if (saved > 0) this.#saves.push({ at: performance.now(), memories: saved });
  }
}
