/**
 * Dense search with pgvector, used when the server offers the `vector` extension
 * (pg_available_extensions): each passage vector is also kept as a `vector` in
 * hms_passage_vectors, with one HNSW index (cosine) per dimension count, and the nearest
 * memories come from `ORDER BY embedding <=> query LIMIT n` instead of a scan in the process.
 * HNSW is approximate: it may miss a few of the exact nearest (measured in the README). A
 * filtered recall (prefix or tag) ranks its allowed memories exactly, in SQL, since an index
 * scan that drops most rows may return fewer than asked. bytea vectors (hms_memory_vectors)
 * stay the source of truth; this table is derived from them, so it is created here on start,
 * not by a migration (the extension is optional).
 */
import type { DenseHit, PassageSpan } from "@hms/store";
import type { DenseIndex, DenseResult } from "./vectors-dense.js";

/** What the module needs of a connection: node-postgres clients and pools have it. */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: R[] }>;
}

/** Advisory lock keys ("hms", 3) held while creating the pgvector table and indexes. */
const LOCK = [0x686d73, 3];

/** Whether the server can install the `vector` extension. */
export async function pgvectorAvailable(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ available: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available",
  );
  return rows[0]?.available === true;
}

/** The `vector` literal of floats (pgvector's text form). */
export function vectorLiteral(floats: Float32Array): string {
  return `[${Array.from(floats).join(",")}]`;
}

/**
 * Creates the extension, the passage table and the HNSW index of `dimensions` if missing,
 * under an advisory lock (replicas starting together), giving a `vector` to every passage
 * saved before (as bytea only) before the index is built. Needs the right to create the extension (a superuser, or a
 * database owner where the extension is trusted).
 */
export async function enablePgvector(db: Queryable, dimensions: number): Promise<void> {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 2000) {
    // HNSW indexes vectors of at most 2,000 dimensions.
    throw new RangeError(`pgvector's HNSW index takes 1 to 2000 dimensions, not ${dimensions}`);
  }
  await db.query("SELECT pg_advisory_lock($1, $2)", LOCK);
  try {
    await db.query("CREATE EXTENSION IF NOT EXISTS vector");
    await db.query(`
      CREATE TABLE IF NOT EXISTS hms_passage_vectors (
        memory_id  bigint NOT NULL REFERENCES hms_memory_vectors (memory_id) ON DELETE CASCADE,
        passage    integer NOT NULL,
        ns         bigint NOT NULL,
        dimensions integer NOT NULL,
        embedding  vector NOT NULL,
        PRIMARY KEY (memory_id, passage)
      )`);
    // Passages saved before get their vectors first: building the index over them at once is
    // far faster than inserting them into it one by one.
    await backfill(db, dimensions);
    // One partial index per dimension count: HNSW needs a fixed one.
    await db.query(
      `CREATE INDEX IF NOT EXISTS hms_passage_vectors_hnsw_${dimensions} ON hms_passage_vectors
       USING hnsw ((embedding::vector(${dimensions})) vector_cosine_ops)
       WHERE dimensions = ${dimensions}`,
    );
  } finally {
    await db.query("SELECT pg_advisory_unlock($1, $2)", LOCK);
  }
  // Vectors saved meanwhile by replicas not yet writing to the table.
  await backfill(db, dimensions);
}

/**
 * Writes the passages of memories saved before pgvector was enabled, 500 memories a
 * transaction. Their bytea rows are locked (FOR SHARE) as they are read, which yields their
 * latest committed vectors; rows a save is writing at that moment are skipped (SKIP LOCKED):
 * that save writes their passages itself, and a passage row a save wrote first is kept.
 */
async function backfill(db: Queryable, dimensions: number): Promise<void> {
  for (;;) {
    await db.query("BEGIN");
    try {
      const { rows } = await db.query<{ memory_id: number; ns: number; vectors: Uint8Array }>(
        `SELECT v.memory_id, v.ns, v.vectors FROM hms_memory_vectors v
         JOIN hms_embedding_models e ON e.ns = v.ns AND e.dimensions = $1
         WHERE NOT EXISTS (SELECT 1 FROM hms_passage_vectors p WHERE p.memory_id = v.memory_id)
         LIMIT 500
         FOR SHARE OF v SKIP LOCKED`,
        [dimensions],
      );
      await insertPassages(
        db,
        dimensions,
        rows.map((row) => ({
          id: Number(row.memory_id),
          ns: Number(row.ns),
          vectors: floats(row.vectors),
        })),
        "ON CONFLICT (memory_id, passage) DO NOTHING",
      );
      await db.query("COMMIT");
      if (rows.length === 0) return;
    } catch (error) {
      await db.query("ROLLBACK").catch(() => {});
      throw error;
    }
  }
}

function floats(bytes: Uint8Array): Float32Array {
  const out = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/**
 * Replaces the `vector` rows of saved memories (`vectors`: passage after passage), in the
 * caller's transaction, the one that saves their bytea vectors.
 */
export async function writePassages(
  db: Queryable,
  dimensions: number,
  items: readonly { id: number; ns: number; vectors: Float32Array }[],
): Promise<void> {
  if (items.length === 0) return;
  await db.query("DELETE FROM hms_passage_vectors WHERE memory_id = ANY($1::bigint[])", [
    items.map((item) => item.id),
  ]);
  await insertPassages(db, dimensions, items, "");
}

async function insertPassages(
  db: Queryable,
  dimensions: number,
  items: readonly { id: number; ns: number; vectors: Float32Array }[],
  onConflict: string,
): Promise<void> {
  if (items.length === 0) return;
  const ids: number[] = [];
  const passages: number[] = [];
  const namespaces: number[] = [];
  const embeddings: string[] = [];
  for (const item of items) {
    for (let at = 0, passage = 0; at < item.vectors.length; at += dimensions, passage++) {
      ids.push(item.id);
      passages.push(passage);
      namespaces.push(item.ns);
      embeddings.push(vectorLiteral(item.vectors.subarray(at, at + dimensions)));
    }
  }
  await db.query(
    `INSERT INTO hms_passage_vectors (memory_id, passage, ns, dimensions, embedding)
     SELECT i.id, i.passage, i.ns, $5, i.embedding::vector
     FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::text[])
       AS i (id, passage, ns, embedding)
     ${onConflict}`,
    [ids, passages, namespaces, embeddings, dimensions],
  );
}

/** A row of a nearest-passage query. */
interface PassageRow {
  memory_id: number | string;
  distance: number;
  line_start: number;
  line_end: number;
}

/** Dense candidates from pgvector's index (see the module's comment). */
export class PgvectorSearch implements DenseIndex {
  readonly dimensions: number;

  constructor(dimensions: number) {
    this.dimensions = dimensions;
  }

  /**
   * The `n` memories of namespace `ns` nearest to `query` (among `allowed`, when given), and
   * the similarity of each of `also` (the lexical candidates).
   */
  async nearest(
    db: Queryable,
    ns: number,
    query: Float32Array,
    n: number,
    allowed: ReadonlySet<number> | undefined,
    also: readonly number[],
  ): Promise<DenseResult> {
    const byMemory = new Map<number, DenseHit>();
    if (query.length !== this.dimensions) return result([], byMemory);
    const dims = this.dimensions;
    const literal = vectorLiteral(query);
    const passageColumns = `p.memory_id, (p.embedding::vector(${dims})) <=> $2::vector(${dims}) AS distance,
       v.line_start[p.passage + 1] AS line_start, v.line_end[p.passage + 1] AS line_end`;
    let rows: PassageRow[];
    if (allowed === undefined) {
      // Several passages of one memory may come first: ask for more than n passages.
      const limit = n * 4;
      await db.query(`SET hnsw.ef_search = ${Math.min(1000, Math.max(40, limit))}`);
      ({ rows } = await db.query<PassageRow>(
        `SELECT ${passageColumns}
         FROM hms_passage_vectors p JOIN hms_memory_vectors v ON v.memory_id = p.memory_id
         WHERE p.ns = $1 AND p.dimensions = ${dims}
         ORDER BY (p.embedding::vector(${dims})) <=> $2::vector(${dims}) LIMIT $3`,
        [ns, literal, limit],
      ));
    } else {
      ({ rows } = await db.query<PassageRow>(
        `SELECT ${passageColumns}
         FROM hms_passage_vectors p JOIN hms_memory_vectors v ON v.memory_id = p.memory_id
         WHERE p.ns = $1 AND p.dimensions = ${dims} AND p.memory_id = ANY($3::bigint[])`,
        [ns, literal, [...allowed]],
      ));
    }
    keepBest(byMemory, rows);
    const nearest = [...byMemory.values()]
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, n);
    const missing = also.filter((id) => !byMemory.has(id));
    if (missing.length > 0) {
      const scored = await db.query<PassageRow>(
        `SELECT ${passageColumns}
         FROM hms_passage_vectors p JOIN hms_memory_vectors v ON v.memory_id = p.memory_id
         WHERE p.ns = $1 AND p.dimensions = ${dims} AND p.memory_id = ANY($3::bigint[])`,
        [ns, literal, missing],
      );
      keepBest(byMemory, scored.rows);
    }
    return result(nearest, byMemory);
  }
}

/** Keeps each memory's best passage (cosine similarity = 1 − cosine distance). */
function keepBest(byMemory: Map<number, DenseHit>, rows: readonly PassageRow[]): void {
  for (const row of rows) {
    const id = Number(row.memory_id);
    const score = 1 - Number(row.distance);
    const seen = byMemory.get(id);
    if (seen === undefined || score > seen.score) {
      const passage: PassageSpan = { lineStart: row.line_start, lineEnd: row.line_end };
      byMemory.set(id, { id, score, passage });
    }
  }
}

function result(nearest: DenseHit[], byMemory: Map<number, DenseHit>): DenseResult {
  return { nearest, score: (id) => byMemory.get(id) };
}
