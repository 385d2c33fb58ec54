/**
 * Hybrid recall's vectors on PostgreSQL: which model each namespace's vectors come from, and
 * saving them. The store never computes an embedding: whoever holds a model (hms-mcp's
 * indexer, one per replica) claims memories from the queue (queue.ts), embeds them, and saves
 * here. Vectors are kept only for the text they were computed from: a memory whose text
 * changed since its claim stays queued with its new text.
 */
import {
  type EmbeddingModel,
  EmbeddingModelMismatchError,
  type MemoryVectors,
  type ModelChange,
  StoreError,
} from "@hms/store";
import type pg from "pg";
import type { Client } from "./connection.js";
import { read, transaction } from "./connection.js";
import { type ClaimedMemory, type ClaimOptions, claim, queueBacklog, release } from "./queue.js";
import { pruneVectorChanges } from "./vector-changes.js";
import { type DenseIndex, DenseSearch } from "./vectors-dense.js";
import {
  enablePgvector,
  PgvectorSearch,
  pgvectorAvailable,
  writePassages,
} from "./vectors-pgvector.js";

/** Checks a model at the boundary, as the SQLite store does. */
export function checkModel(model: EmbeddingModel): EmbeddingModel {
  if (typeof model?.id !== "string" || !/^[\x21-\x7e]{1,128}$/.test(model.id)) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      "an embedding model id is 1 to 128 printable ASCII characters",
    );
  }
  if (!Number.isInteger(model.dimensions) || model.dimensions < 1 || model.dimensions > 8192) {
    throw new StoreError("INVALID_ARGUMENT", "an embedding model has 1 to 8192 dimensions");
  }
  return { id: model.id, dimensions: model.dimensions };
}

/**
 * Records `model` as namespace `ns`'s embedding model, inside the caller's transaction (which
 * holds the namespace's row lock). A namespace without a model takes it and queues every
 * memory (the backfill); the same model changes nothing; another model is refused with
 * {@link EmbeddingModelMismatchError}, unless `change` allows it (`reembed`, or a stored model
 * that `model` replaces): then its vectors are dropped and
 * every memory queued again.
 */
export async function claimModel(
  client: Client,
  ns: number,
  name: string,
  model: EmbeddingModel,
  change: ModelChange,
): Promise<void> {
  const { rows } = await client.query<{ model: string; dimensions: number }>(
    "SELECT model, dimensions FROM hms_embedding_models WHERE ns = $1",
    [ns],
  );
  const stored = rows[0];
  if (stored?.model === model.id && stored.dimensions === model.dimensions) return;
  if (stored !== undefined && !change.reembed && !change.replaces.includes(stored.model)) {
    throw new EmbeddingModelMismatchError(`namespace ${name}`, stored.model, model.id);
  }
  await client.query(
    `INSERT INTO hms_embedding_models (ns, model, dimensions) VALUES ($1, $2, $3)
     ON CONFLICT (ns) DO UPDATE SET model = $2, dimensions = $3,
       changes = hms_embedding_models.changes + 1`,
    [ns, model.id, model.dimensions],
  );
  await client.query("DELETE FROM hms_memory_vectors WHERE ns = $1", [ns]);
  await client.query("DELETE FROM hms_embedding_queue WHERE ns = $1", [ns]);
  // Oldest first, so the newest memories get the highest seq and are embedded first.
  await client.query(
    "INSERT INTO hms_embedding_queue (memory_id, ns) SELECT id, ns FROM hms_memories WHERE ns = $1 ORDER BY id",
    [ns],
  );
}

/** Vectors to save: a memory's passages, computed from the text whose hash is `hash`. */
export type SavedVectors = MemoryVectors;

/**
 * Stores computed vectors in one transaction and takes their memories off the queue. Vectors
 * of a text that has since changed (hash), of a memory gone, or of a namespace whose model is
 * no longer `model` are dropped (the memory stays queued when it still exists). Returns how
 * many memories' vectors were stored.
 */
export async function saveVectors(
  pool: pg.Pool,
  model: EmbeddingModel,
  items: readonly SavedVectors[],
  pgvector = false,
): Promise<number> {
  for (const item of items) {
    if (item.spans.length < 1 || item.vectors.length !== item.spans.length * model.dimensions) {
      throw new RangeError(
        `memory ${item.id}: ${item.spans.length} passages need ${item.spans.length * model.dimensions} floats, got ${item.vectors.length}`,
      );
    }
  }
  if (items.length === 0) return 0;
  return await transaction(pool, async (client) => {
    // Only where the text is still the one embedded and the namespace still uses this model;
    // the memory's row is locked (FOR SHARE) so its text cannot change before this commits.
    const { rows } = await client.query<{ id: number; ns: number }>(
      `SELECT m.id, m.ns FROM hms_memories m
       JOIN unnest($1::bigint[], $2::text[]) AS i (id, hash) ON i.id = m.id AND i.hash = m.hash
       JOIN hms_embedding_models e ON e.ns = m.ns AND e.model = $3 AND e.dimensions = $4
       FOR SHARE OF m`,
      [items.map((item) => item.id), items.map((item) => item.hash), model.id, model.dimensions],
    );
    const current = new Map(rows.map((row) => [row.id, row.ns]));
    const kept = items.filter((item) => current.has(item.id));
    if (kept.length === 0) return 0;
    await client.query(
      `INSERT INTO hms_memory_vectors (memory_id, ns, hash, line_start, line_end, vectors)
       SELECT i.id, i.ns, i.hash, (i.starts::integer[]), (i.ends::integer[]), i.vectors
       FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bytea[])
         AS i (id, ns, hash, starts, ends, vectors)
       ON CONFLICT (memory_id) DO UPDATE SET ns = excluded.ns, hash = excluded.hash,
         line_start = excluded.line_start, line_end = excluded.line_end,
         vectors = excluded.vectors`,
      [
        kept.map((item) => item.id),
        kept.map((item) => current.get(item.id)),
        kept.map((item) => item.hash),
        kept.map((item) => `{${item.spans.map((span) => span.lineStart).join(",")}}`),
        kept.map((item) => `{${item.spans.map((span) => span.lineEnd).join(",")}}`),
        kept.map((item) =>
          Buffer.from(item.vectors.buffer, item.vectors.byteOffset, item.vectors.byteLength),
        ),
      ],
    );
    if (pgvector) {
      await writePassages(
        client,
        model.dimensions,
        kept.map((item) => ({
          id: item.id,
          ns: current.get(item.id) as number,
          vectors: item.vectors,
        })),
      );
    }
    await client.query("DELETE FROM hms_embedding_queue WHERE memory_id = ANY($1::bigint[])", [
      kept.map((item) => item.id),
    ]);
    return kept.length;
  });
}

/** Where dense candidates come from: `auto` uses pgvector when the server offers it. */
export type DenseChoice = "auto" | "exact";

/**
 * An engine's hybrid recall side: its model, its dense index (pgvector's, or the exact scan's
 * in-memory copies), and the queue calls of the replica's indexer (claims span every
 * namespace that uses this model).
 */
export class PgEmbeddings {
  readonly model: EmbeddingModel;
  /** When a namespace of another model is re-embedded rather than refused. */
  readonly change: ModelChange;
  readonly dense: DenseIndex;
  /** Whether saved vectors also go to pgvector's table (and recall uses its index). */
  readonly pgvector: boolean;
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool, model: EmbeddingModel, change: ModelChange, pgvector = false) {
    this.#pool = pool;
    this.model = checkModel(model);
    this.change = change;
    this.pgvector = pgvector;
    this.dense = pgvector ? new PgvectorSearch(this.model.dimensions) : new DenseSearch();
  }

  /**
   * The engine's embeddings on `pool`: with pgvector (created if needed, vectors saved before
   * copied to it) when `dense` is `auto` and the server has the extension, else the exact scan.
   */
  static async open(
    pool: pg.Pool,
    model: EmbeddingModel,
    change: ModelChange,
    dense: DenseChoice = "auto",
  ): Promise<PgEmbeddings> {
    if (dense !== "auto" && dense !== "exact") {
      throw new StoreError("INVALID_ARGUMENT", 'embeddings.dense is "auto" or "exact"');
    }
    const checked = checkModel(model);
    let pgvector = false;
    if (dense === "auto" && (await pgvectorAvailable(pool))) {
      const client = await pool.connect();
      try {
        await enablePgvector(client, checked.dimensions);
      } finally {
        client.release();
      }
      pgvector = true;
    }
    return new PgEmbeddings(pool, checked, change, pgvector);
  }

  /** Claims queued memories to embed (see queue.ts); one short transaction. */
  async claim(options: ClaimOptions): Promise<ClaimedMemory[]> {
    return await transaction(this.#pool, (client) => claim(client, this.model, options));
  }

  /**
   * How many memories wait for vectors, of every namespace using this model (every replica's
   * backlog: they share the queue). One count of the queue; for metrics, not for each call.
   */
  async backlog(): Promise<number> {
    return await read(this.#pool, (client) => queueBacklog(client, this.model));
  }

  /** Gives claimed memories back to the queue. */
  async release(worker: string, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await transaction(this.#pool, (client) => release(client, worker, ids));
  }

  /** Saves computed vectors (see {@link saveVectors}); returns how many were stored. */
  async save(items: readonly SavedVectors[]): Promise<number> {
    return await saveVectors(this.#pool, this.model, items, this.pgvector);
  }

  /**
   * Drops deleted memories' rows from the vector change log when they are more than
   * `keepChanges` changes behind their namespace's counter (see vector-changes.ts); a replica
   * whose copy is older reads it whole. Returns how many rows were dropped.
   */
  async pruneVectorChanges(keepChanges?: number): Promise<number> {
    return await pruneVectorChanges(this.#pool, keepChanges);
  }
}
