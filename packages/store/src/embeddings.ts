/**
 * The store's side of hybrid recall: which embedding model made a store's vectors, the queue of
 * memories still waiting for theirs, and the vectors themselves. The store never computes an
 * embedding; whoever holds a model (hms-mcp's indexer) reads the queue, embeds, and saves here.
 */
import { type SqliteDatabase, type TextReads, textReads, transaction } from "./sqlite/driver.js";

/** The embedding model a store is opened with. */
export interface EmbeddingModel {
  /** Names the vector space, e.g. `all-MiniLM-L6-v2-int8`; recorded in the store. */
  readonly id: string;
  /** Length of every vector. */
  readonly dimensions: number;
}

/** A store's vectors were made by one model and it was opened with another. */
export class EmbeddingModelMismatchError extends Error {
  override readonly name = "EmbeddingModelMismatchError";
  constructor(
    readonly file: string,
    /** The model that made the stored vectors. */
    readonly stored: string,
    /** The model the store was opened with. */
    readonly requested: string,
  ) {
    super(
      `${file} holds vectors made by the embedding model ${stored}, not ${requested}; vectors of ` +
        "two models cannot be compared, so the store refuses to mix them. Open it with " +
        `${stored}, or ask for every vector to be replaced by ${requested}'s (re-embedding).`,
    );
  }
}

/** One passage of a memory: a 1-based inclusive line range of its text. */
export interface PassageSpan {
  readonly lineStart: number;
  readonly lineEnd: number;
}

/** A memory waiting for vectors, with the text to embed. */
export interface PendingMemory {
  /** The memory's row id. */
  readonly id: number;
  readonly text: string;
  /** The hash of `text`; pass it back to {@link Embeddings.save}. */
  readonly hash: string;
}

/** The vectors of one memory's passages, computed from the text whose hash is `hash`. */
export interface MemoryVectors {
  readonly id: number;
  readonly hash: string;
  readonly spans: readonly PassageSpan[];
  /** `spans.length × dimensions` floats, passage after passage. */
  readonly vectors: Float32Array;
}

const MODEL_KEY = "embedding_model";
const DIMENSIONS_KEY = "embedding_dimensions";
/** The model whose vectors a re-embedding replaces, kept until the queue is empty. */
const REPLACING_KEY = "embedding_replacing";

/** The model recorded in a store's database, if any. */
export function storedModel(db: SqliteDatabase): EmbeddingModel | undefined {
  const rows = db
    .prepare("SELECT name, value FROM store_info WHERE name IN (?, ?)")
    .all(MODEL_KEY, DIMENSIONS_KEY) as { name: string; value: string }[];
  const values = new Map(rows.map((row) => [row.name, row.value]));
  const id = values.get(MODEL_KEY);
  if (id === undefined) return undefined;
  return { id, dimensions: Number(values.get(DIMENSIONS_KEY) ?? 0) };
}

/** The model whose vectors are being replaced while a re-embedding runs, if one does. */
export function replacingModel(db: SqliteDatabase): string | undefined {
  const row = db.prepare("SELECT value FROM store_info WHERE name = ?").get(REPLACING_KEY) as
    | { value: string }
    | undefined;
  return row?.value;
}

/** When a store recorded with another model may be re-embedded rather than refused. */
export interface ModelChange {
  /** Re-embed whatever model made the vectors (`--reembed`). */
  readonly reembed: boolean;
  /** Re-embed a store of one of these models (an upgrade of the default model). */
  readonly replaces: readonly string[];
}

/**
 * Records `model` as the store's embedding model, in one transaction. A store without a model
 * takes it and queues every memory for embedding (the backfill). A store with the same model
 * is left alone. A store with another model is refused with
 * {@link EmbeddingModelMismatchError}, unless `change` allows it (`reembed`, or the stored
 * model is one `model` replaces): then every vector is dropped, every memory queued again, and
 * the replaced model recorded until the queue is empty ({@link replacingModel}).
 */
export function claimModel(
  db: SqliteDatabase,
  file: string,
  model: EmbeddingModel,
  change: ModelChange,
): void {
  if (!/^[\x21-\x7e]{1,128}$/.test(model.id)) {
    throw new TypeError("an embedding model id is 1 to 128 printable ASCII characters");
  }
  if (!Number.isInteger(model.dimensions) || model.dimensions < 1 || model.dimensions > 8192) {
    throw new TypeError("an embedding model has 1 to 8192 dimensions");
  }
  transaction(db, () => {
    const stored = storedModel(db);
    if (stored?.id === model.id && stored.dimensions === model.dimensions) return;
    if (stored !== undefined && !change.reembed && !change.replaces.includes(stored.id)) {
      throw new EmbeddingModelMismatchError(file, stored.id, model.id);
    }
    const set = db.prepare("INSERT OR REPLACE INTO store_info (name, value) VALUES (?, ?)");
    set.run(MODEL_KEY, model.id);
    set.run(DIMENSIONS_KEY, String(model.dimensions));
    if (stored === undefined) {
      db.prepare("DELETE FROM store_info WHERE name = ?").run(REPLACING_KEY);
    } else {
      set.run(REPLACING_KEY, stored.id);
    }
    db.exec("DELETE FROM memory_vectors");
    // Oldest first, so the newest memories have the highest seq and are embedded first.
    db.exec(
      "INSERT OR IGNORE INTO embedding_queue (memory_id) SELECT id FROM memories ORDER BY id",
    );
  });
}

/**
 * The embedding queue and vector table of one store opened with a model. Every method is
 * synchronous; {@link save} is one write transaction.
 */
export class Embeddings {
  readonly model: EmbeddingModel;
  readonly #db: SqliteDatabase;
  readonly #reads: TextReads;
  readonly #sql: ReturnType<typeof prepareEmbeddings>;

  /** @internal The store makes it (`MemoryStore.embeddings`) from its database handle. */
  constructor(db: SqliteDatabase, model: EmbeddingModel) {
    this.#db = db;
    this.model = model;
    this.#reads = textReads(db);
    this.#sql = prepareEmbeddings(db, this.#reads);
  }

  /** Up to `limit` memories waiting for vectors, most recently queued first. */
  pending(limit: number, options: { skip?: ReadonlySet<number> } = {}): PendingMemory[] {
    const skip = options.skip ?? new Set<number>();
    const out: PendingMemory[] = [];
    for (const row of this.#sql.pending.iterate() as IterableIterator<PendingRow>) {
      if (skip.has(row.id)) continue;
      out.push(this.#pendingMemory(row));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** How many memories are waiting for vectors. */
  pendingCount(): number {
    return (this.#sql.pendingCount.get() as { n: number }).n;
  }

  /**
   * The row id of the memory under `key` when it waits for vectors (a write just queued it),
   * else undefined. The server records it to wait for that writer's own memories.
   */
  queuedIdOf(key: string): number | undefined {
    return (this.#sql.queuedIdOf.get(key) as { id: number } | undefined)?.id;
  }

  /** Those of the memories `ids` that still wait for vectors, with their texts. */
  pendingAmong(ids: readonly number[]): PendingMemory[] {
    if (ids.length === 0) return [];
    const rows = this.#sql.pendingAmong.all(JSON.stringify(ids)) as PendingRow[];
    return rows.map((row) => this.#pendingMemory(row));
  }

  #pendingMemory(row: PendingRow): PendingMemory {
    return { id: row.id, text: this.#reads.text(row.text), hash: row.hash };
  }

  /** How many memories have vectors. */
  embeddedCount(): number {
    return (this.#sql.embeddedCount.get() as { n: number }).n;
  }

  /**
   * Stores computed vectors, in one transaction, and takes their memories off the queue.
   * Vectors computed from a text that has since changed (its hash no longer matches) are
   * dropped: the memory stays queued with its new text. Returns how many were stored.
   */
  save(items: readonly MemoryVectors[]): number {
    const dims = this.model.dimensions;
    for (const item of items) {
      if (item.spans.length < 1 || item.vectors.length !== item.spans.length * dims) {
        throw new RangeError(
          `memory ${item.id}: ${item.spans.length} passages need ${item.spans.length * dims} floats, got ${item.vectors.length}`,
        );
      }
    }
    return transaction(this.#db, () => {
      let saved = 0;
      for (const item of items) {
        const current = this.#sql.hashOf.get(item.id) as { hash: string } | undefined;
        if (current?.hash !== item.hash) continue;
        this.#sql.deleteVectors.run(item.id);
        this.#sql.insertVectors.run({
          id: item.id,
          hash: item.hash,
          spans: encodeSpans(item.spans),
          vectors: Buffer.from(
            item.vectors.buffer,
            item.vectors.byteOffset,
            item.vectors.byteLength,
          ),
        });
        this.#sql.dequeue.run(item.id);
        saved++;
      }
      // The last memory re-embedded: the store no longer holds any of the old model's vectors.
      if (saved > 0) this.#sql.replaced.run();
      return saved;
    });
  }
}

/** A pending memory as its statements read it (the text through `TextReads`). */
interface PendingRow {
  readonly id: number;
  readonly text: unknown;
  readonly hash: string;
}

function prepareEmbeddings(db: SqliteDatabase, reads: TextReads) {
  const text = `${reads.column("m.text")} AS text`;
  return {
    pending: db.prepare(`
      SELECT m.id, ${text}, m.hash FROM embedding_queue q JOIN memories m ON m.id = q.memory_id
      ORDER BY q.seq DESC`),
    pendingCount: db.prepare("SELECT count(*) AS n FROM embedding_queue"),
    queuedIdOf: db.prepare(
      "SELECT q.memory_id AS id FROM embedding_queue q JOIN memories m ON m.id = q.memory_id WHERE m.key = ?",
    ),
    pendingAmong: db.prepare(`
      SELECT m.id, ${text}, m.hash FROM embedding_queue q JOIN memories m ON m.id = q.memory_id
      WHERE q.memory_id IN (SELECT value FROM json_each(?)) ORDER BY q.seq DESC`),
    embeddedCount: db.prepare("SELECT vectors AS n FROM vector_state WHERE id = 1"),
    hashOf: db.prepare("SELECT hash FROM memories WHERE id = ?"),
    deleteVectors: db.prepare("DELETE FROM memory_vectors WHERE memory_id = ?"),
    insertVectors: db.prepare(
      "INSERT INTO memory_vectors (memory_id, hash, spans, vectors) VALUES (@id, @hash, @spans, @vectors)",
    ),
    dequeue: db.prepare("DELETE FROM embedding_queue WHERE memory_id = ?"),
    replaced: db.prepare(
      `DELETE FROM store_info WHERE name = '${REPLACING_KEY}'
         AND NOT EXISTS (SELECT 1 FROM embedding_queue)`,
    ),
  };
}

/** Passage spans as little-endian uint32 pairs (line_start, line_end). */
export function encodeSpans(spans: readonly PassageSpan[]): Buffer {
  const buffer = Buffer.alloc(spans.length * 8);
  spans.forEach((span, i) => {
    buffer.writeUInt32LE(span.lineStart, i * 8);
    buffer.writeUInt32LE(span.lineEnd, i * 8 + 4);
  });
  return buffer;
}

export function decodeSpans(buffer: Uint8Array): PassageSpan[] {
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const spans: PassageSpan[] = [];
  for (let at = 0; at + 8 <= buffer.byteLength; at += 8) {
    spans.push({ lineStart: view.getUint32(at, true), lineEnd: view.getUint32(at + 4, true) });
  }
  return spans;
}
