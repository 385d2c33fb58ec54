/**
 * The embedding queue on PostgreSQL, shared by every replica of a database. A write queues
 * its memory in its own transaction (a trigger, schema.ts); each replica's indexer claims
 * rows with `FOR UPDATE SKIP LOCKED`, so two replicas never take the same memory, and leases
 * them: a claim whose replica died (its lease expired) is taken by the next replica that
 * looks. Saving vectors (vectors.ts) takes a memory off the queue.
 */
import type { EmbeddingModel, PendingMemory } from "@hms/store";
import { StoreError } from "@hms/store";
import type { Client } from "./connection.js";
import { readText } from "./text.js";

/** A claimed memory: what to embed, and its namespace. */
export interface ClaimedMemory extends PendingMemory {
  /** The namespace's name. */
  readonly namespace: string;
}

export interface ClaimOptions {
  /** Who claims (one id per replica's indexer), recorded in the queue for operators. */
  readonly worker: string;
  /** Most memories claimed at once. */
  readonly limit: number;
  /** How long the claim holds, in ms; another replica may take it over afterwards. */
  readonly leaseMs: number;
  /** Claim only these memories (a recall waits for them), else the newest queued first. */
  readonly ids?: readonly number[] | undefined;
}

/** Checks a claim's options at the boundary. */
function checkClaim(options: ClaimOptions): void {
  if (typeof options.worker !== "string" || options.worker.length === 0) {
    throw new StoreError("INVALID_ARGUMENT", "a claim names its worker");
  }
  if (!Number.isInteger(options.limit) || options.limit < 1 || options.limit > 1000) {
    throw new StoreError("INVALID_ARGUMENT", "a claim takes 1 to 1000 memories");
  }
  if (!Number.isInteger(options.leaseMs) || options.leaseMs < 100) {
    throw new StoreError("INVALID_ARGUMENT", "a claim's lease is at least 100 ms");
  }
}

/**
 * Claims up to `limit` queued memories of namespaces whose model is `model`, unclaimed or
 * with an expired lease, skipping rows another replica is claiming at this instant. Runs in
 * the caller's transaction; the lease holds once it commits.
 */
export async function claim(
  client: Client,
  model: EmbeddingModel,
  options: ClaimOptions,
): Promise<ClaimedMemory[]> {
  checkClaim(options);
  const params: unknown[] = [model.id, model.dimensions, options.limit, options.worker];
  params.push(`${options.leaseMs} milliseconds`);
  let only = "";
  if (options.ids !== undefined) {
    params.push(options.ids);
    only = `AND q.memory_id = ANY($${params.length}::bigint[])`;
  }
  const { rows } = await client.query<{
    id: number;
    text: string;
    text_json: boolean;
    hash: string;
    namespace: string;
  }>(
    `WITH picked AS (
       SELECT q.memory_id FROM hms_embedding_queue q
       JOIN hms_embedding_models e ON e.ns = q.ns AND e.model = $1 AND e.dimensions = $2
       WHERE (q.claimed_until IS NULL OR q.claimed_until < now()) ${only}
       ORDER BY q.seq DESC
       LIMIT $3
       FOR UPDATE OF q SKIP LOCKED
     ), claimed AS (
       UPDATE hms_embedding_queue q SET claimed_by = $4, claimed_until = now() + $5::interval
       FROM picked WHERE q.memory_id = picked.memory_id
       RETURNING q.memory_id, q.seq
     )
     SELECT m.id, m.text, m.text_json, m.hash, n.name AS namespace
     FROM claimed c JOIN hms_memories m ON m.id = c.memory_id
     JOIN hms_namespaces n ON n.id = m.ns
     ORDER BY c.seq DESC`,
    params,
  );
  return rows.map((row) => ({
    id: row.id,
    text: readText(row.text, row.text_json),
    hash: row.hash,
    namespace: row.namespace,
  }));
}

/** Gives claimed memories back to the queue at once (this replica will not embed them). */
export async function release(client: Client, worker: string, ids: readonly number[]) {
  await client.query(
    `UPDATE hms_embedding_queue SET claimed_by = NULL, claimed_until = NULL
     WHERE memory_id = ANY($1::bigint[]) AND claimed_by = $2`,
    [ids, worker],
  );
}

/** How many memories of namespace `ns` wait for vectors, and how many have them. */
export async function queueCounts(
  client: Client,
  ns: number,
): Promise<{ pending: number; embedded: number }> {
  const { rows } = await client.query<{ pending: number; embedded: number }>(
    `SELECT (SELECT count(*) FROM hms_embedding_queue WHERE ns = $1) AS pending,
            (SELECT count(*) FROM hms_memory_vectors WHERE ns = $1) AS embedded`,
    [ns],
  );
  return rows[0] ?? { pending: 0, embedded: 0 };
}

/** How many memories of the namespaces using `model` wait for vectors, in all. */
export async function queueBacklog(client: Client, model: EmbeddingModel): Promise<number> {
  const { rows } = await client.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM hms_embedding_queue q
     JOIN hms_embedding_models e ON e.ns = q.ns AND e.model = $1 AND e.dimensions = $2`,
    [model.id, model.dimensions],
  );
  return Number(rows[0]?.n ?? 0);
}

/** The row ids of those of `keys` in namespace `ns` that wait for vectors. */
export async function queuedIds(
  client: Client,
  ns: number,
  keys: readonly string[],
): Promise<number[]> {
  if (keys.length === 0) return [];
  const { rows } = await client.query<{ id: number }>(
    `SELECT q.memory_id AS id FROM hms_embedding_queue q JOIN hms_memories m ON m.id = q.memory_id
     WHERE m.ns = $1 AND m.key = ANY($2::text[])`,
    [ns, keys],
  );
  return rows.map((row) => row.id);
}
