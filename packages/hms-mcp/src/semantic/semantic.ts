/**
 * Hybrid recall in the server: the embedding worker, the background indexer, and what the
 * tools need from them. Created only when the server runs with --model-dir.
 */
import { availableParallelism } from "node:os";
import { type EmbeddingOptions, MemoryStore, type StoreApi } from "@hms/store";
import type { PgEmbeddings, PgStore } from "@hms/store-postgres";
import type { Logger } from "pino";
import { DEFAULT_INDEXER_OPTIONS, Indexer } from "./indexer.js";
import { PgIndexer } from "./pg-indexer.js";
import type { EmbedRuntime } from "./protocol.js";
import { EmbeddingPool } from "./worker-pool.js";

/** How the server's memories are cut into passages; chosen on SciFact's train split. */
export const PASSAGES = Object.freeze({
  /** Tokens per passage. all-MiniLM-L6-v2 was trained on 128-token texts. */
  maxTokens: 126,
  /** A first line of at most this many tokens (a title) is repeated before later passages. */
  contextTokens: 48,
  /** Passages per memory; at 126 tokens, 64 cover about 32 KB of English text. */
  maxPassages: 64,
});

/** How many of its caller's most recent writes a recall waits for. */
export const RECALL_WAITS_FOR = 64;

/**
 * Who made a call: one object per connection (a stdio pipe or an HTTP session), made by the
 * server for that connection. A recall waits only for its caller's own recent writes.
 */
export type Caller = object;

/** The sentence that ends every "model not ready" message of the server. */
export const FETCH_HINT =
  "Get it with `hms-mcp fetch-model` and pass the directory it prints as --model-dir (or " +
  "HMS_MCP_MODEL_DIR). With npm it needs python3 with pip (`pnpm fetch-model` in a checkout " +
  "of the repository does the same); with pip, install the model first: " +
  '`pip install "holographic-memory-claude-tool[hybrid]"`.';

export interface SemanticOptions {
  readonly modelDir: string;
  /** The model the directory must hold (an id of @hms/embedder's MODELS); default: any. */
  readonly model?: string | undefined;
  /** Embedding worker threads, each with its own copy of the model (undefined: the default). */
  readonly workers: number | undefined;
  /** ONNX Runtime threads of each embedding worker (undefined: the default). */
  readonly threads: number | undefined;
  /** Which ONNX Runtime runs the model (default auto: native when installed). */
  readonly runtime?: EmbedRuntime | undefined;
  /** Replace another model's vectors instead of refusing the store. */
  readonly reembed: boolean;
  /** Longest a recall waits for its own connection's recent writes to be embedded, in ms. */
  readonly recallWaitMs: number;
  readonly log: Logger;
}

export class Semantic {
  readonly #worker: EmbeddingPool;
  readonly #indexer: Indexer;
  readonly #options: SemanticOptions;
  readonly #log: Logger;
  /** Each caller's recent writes per store: row ids of memories queued by them, oldest first. */
  readonly #writes = new WeakMap<Caller, WeakMap<MemoryStore, number[]>>();
  /** On PostgreSQL: the indexer claiming from the database's queue (see {@link watchDatabase}). */
  #pg: PgIndexer | undefined;
  /** On PostgreSQL: the database's queue, which every replica shares. */
  #pgEmbeddings: PgEmbeddings | undefined;
  /** On PostgreSQL, each caller's recent writes per namespace: their keys, oldest first. */
  readonly #pgWrites = new WeakMap<Caller, Map<string, string[]>>();
  #queryFailureLogged = false;

  private constructor(worker: EmbeddingPool, options: SemanticOptions) {
    this.#worker = worker;
    this.#options = options;
    this.#log = options.log;
    this.#indexer = new Indexer(worker, options.log, DEFAULT_INDEXER_OPTIONS);
  }

  /**
   * Loads the model in each worker thread. Rejects with `ModelUnavailableError` when the model
   * directory is missing, incomplete or altered, or @hms/embedder is not installed.
   */
  static async start(options: SemanticOptions): Promise<Semantic> {
    const script = new URL("./embedding-worker.js", import.meta.url);
    const { workers, threads } = embeddingThreads(options, availableParallelism());
    const setup = {
      modelDir: options.modelDir,
      model: options.model,
      threads,
      runtime: options.runtime ?? "auto",
      fetchHint: FETCH_HINT,
      passages: PASSAGES,
      // Two full passages, or up to eight short ones: long texts gain nothing from bigger runs
      // (the embedder's README), and a query waits behind at most one call.
      tokensPerCall: 256,
    };
    const worker = await EmbeddingPool.start(script, setup, workers);
    return new Semantic(worker, options);
  }

  /** How many embedding worker threads run (each with its own copy of the model). */
  get workers(): number {
    return this.#worker.size;
  }

  /** The ONNX Runtime the model runs on (onnxruntime-node or onnxruntime-web). */
  get runtime(): string {
    return this.#worker.runtime;
  }

  /** The model's id, as recorded in each store. */
  get modelId(): string {
    return this.#worker.modelId;
  }

  /**
   * Why the embedding worker stopped (it exited or crashed), if it did: recall is lexical from
   * then on, and `stats` says so.
   */
  get failure(): string | undefined {
    return this.#worker.failure?.message;
  }

  /** The store options that make a store hybrid with this model. */
  get storeOptions(): EmbeddingOptions {
    return {
      model: { id: this.#worker.modelId, dimensions: this.#worker.dimensions },
      reembed: this.#options.reembed,
      replaces: this.#worker.replaces,
    };
  }

  /**
   * On PostgreSQL: starts this replica's indexer on the database's queue, shared with the other
   * replicas (each memory is embedded by one of them).
   */
  watchDatabase(embeddings: PgEmbeddings): void {
    this.#pg ??= new PgIndexer(this.#worker, embeddings, this.#log, DEFAULT_INDEXER_OPTIONS);
    this.#pgEmbeddings ??= embeddings;
  }

  /**
   * Memories waiting to be embedded (the metrics' hms_embed_backlog): on SQLite in the stores
   * this server has open, on PostgreSQL in the database's queue (every replica's).
   */
  async backlog(): Promise<number> {
    if (this.#pgEmbeddings !== undefined) return await this.#pgEmbeddings.backlog();
    return this.#indexer.backlog;
  }

  /** Starts embedding a newly opened store's queue. */
  watch(namespace: string, store: MemoryStore): void {
    this.#indexer.watch(namespace, store);
  }

  /**
   * `caller` wrote the memory under `key` in `store`: when that queued it for embedding (a new
   * text), remember it as one of the caller's recent writes and start embedding now.
   */
  written(api: StoreApi, key: string, caller: Caller): void {
    const pg = postgresStore(api);
    if (pg !== undefined) {
      const namespaces = this.#pgWrites.get(caller) ?? new Map<string, string[]>();
      this.#pgWrites.set(caller, namespaces);
      const keys = (namespaces.get(pg.namespace) ?? []).filter((other) => other !== key);
      keys.push(key);
      namespaces.set(pg.namespace, keys.slice(-RECALL_WAITS_FOR));
      this.#pg?.kick();
      return;
    }
    if (!(api instanceof MemoryStore)) return;
    const store = api;
    const id = store.embeddings?.queuedIdOf(key);
    if (id !== undefined) {
      const stores = this.#writes.get(caller) ?? new WeakMap<MemoryStore, number[]>();
      this.#writes.set(caller, stores);
      const ids = (stores.get(store) ?? []).filter((other) => other !== id);
      ids.push(id);
      stores.set(store, ids.slice(-RECALL_WAITS_FOR));
    }
    this.#indexer.kick();
  }

  /** Indexing progress of `store` for `stats`. */
  progress(
    api: StoreApi,
  ):
    | { embedded: number; perSecond: number | null }
    | Promise<{ embedded: number; perSecond: number | null }> {
    const pg = postgresStore(api);
    if (pg !== undefined) {
      const perSecond = this.#pg?.rate() ?? null;
      return pg.embeddingCounts().then(({ embedded }) => ({ embedded, perSecond }));
    }
    if (!(api instanceof MemoryStore)) return { embedded: 0, perSecond: null };
    const store = api;
    return {
      embedded: store.embeddings?.embeddedCount() ?? 0,
      perSecond: this.#indexer.rate(store),
    };
  }

  /**
   * The query vector for a recall on `store` by `caller`, after waiting (at most the recall
   * wait) for the caller's own recent writes to be embedded; they go before any backlog.
   * Memories others wrote are not waited for: recall ranks what is embedded so far. Undefined
   * when the model is unusable; recall is then lexical, and says so.
   */
  async queryVector(
    api: StoreApi,
    query: string,
    caller: Caller,
  ): Promise<Float32Array | undefined> {
    // A SQLite store opened without the model (it cannot be, while the server has one).
    if (api instanceof MemoryStore && api.embeddings === undefined) return undefined;
    const [vector] = await Promise.all([
      this.#worker.embedQuery(query).catch((error: unknown) => {
        if (!this.#queryFailureLogged) {
          this.#queryFailureLogged = true;
          this.#log.error({ err: error }, "cannot embed queries: recall falls back to lexical");
        }
        return undefined;
      }),
      this.#waitForWrites(api, caller),
    ]);
    return vector;
  }

  /** Waits (at most the recall wait) for `caller`'s own recent writes to `api` to be embedded. */
  async #waitForWrites(api: StoreApi, caller: Caller): Promise<void> {
    const wait = this.#options.recallWaitMs;
    const pg = postgresStore(api);
    if (pg !== undefined) {
      const keys = this.#pgWrites.get(caller)?.get(pg.namespace) ?? [];
      if (this.#pg === undefined || keys.length === 0) return;
      await this.#pg
        .waitFor(() => pg.queuedIds(keys), wait)
        .catch((error: unknown) => {
          this.#log.warn({ err: error }, "could not wait for recent writes to be embedded");
        });
      return;
    }
    if (!(api instanceof MemoryStore) || api.embeddings === undefined) return;
    const ids = this.#writes.get(caller)?.get(api) ?? [];
    await this.#indexer.waitFor(api, ids, wait);
  }

  /** Stops the indexer and the worker. */
  async close(): Promise<void> {
    await this.#indexer.stop();
    await this.#pg?.stop();
    await this.#worker.close();
  }
}

/**
 * How many embedding workers run, and how many ONNX Runtime threads each uses. One worker by
 * default, with the available cores (at most 4): a second worker embeds about a fifth more
 * memories per second on 2 cores (two sessions of one thread each keep the cores busier than one
 * session of two threads), but holds a second copy of the model, about 220 MiB more at peak, so
 * it is asked for (`--embed-workers 2`). The threads are shared out between the workers.
 */
export function embeddingThreads(
  options: { readonly workers: number | undefined; readonly threads: number | undefined },
  cores: number,
): { workers: number; threads: number } {
  const budget = Math.max(1, Math.min(cores, 4));
  const workers = options.workers ?? 1;
  const threads = options.threads ?? Math.max(1, Math.floor(budget / workers));
  return { workers, threads };
}

/** `store` as a PostgreSQL store, or undefined on SQLite (told apart by `engine`). */
function postgresStore(store: StoreApi): PgStore | undefined {
  return store.engine === "postgres" ? (store as PgStore) : undefined;
}
