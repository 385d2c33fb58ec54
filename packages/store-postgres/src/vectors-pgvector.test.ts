/**
 * pgvector's dense search (vectors-pgvector.ts) against a real pgvector: PGlite (PostgreSQL
 * compiled to WebAssembly) with its pgvector build, with this package's migrations applied.
 * Debian 12 does not package pgvector, so the PostgreSQL server of the other tests lacks it;
 * there the engine uses the exact scan (vectors.test.ts). The exact scan is the reference here.
 */
import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { vector } from "@electric-sql/pglite-pgvector";
import { seededUnitVector } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "./context.js";
import { MIGRATIONS } from "./schema.js";
import { DenseSearch } from "./vectors-dense.js";
import {
  enablePgvector,
  PgvectorSearch,
  pgvectorAvailable,
  type Queryable,
  writePassages,
} from "./vectors-pgvector.js";

const DIMS = 16;
const MEMORIES = 400;
let pglite: PGlite;
let db: Queryable;
let ns: number;

/** A deterministic unit vector for `seed`. */
const unit = (seed: number) => seededUnitVector(seed, DIMS);

/** Memory i's passages: 1 to 3, passage p covering line p + 1. */
function passagesOf(i: number, version = 0): Float32Array {
  const count = 1 + (i % 3);
  const out = new Float32Array(count * DIMS);
  for (let p = 0; p < count; p++) out.set(unit(i * 10 + p + version * 100_000), p * DIMS);
  return out;
}

async function saveVectors(id: number, vectors: Float32Array): Promise<void> {
  const passages = vectors.length / DIMS;
  const lines = Array.from({ length: passages }, (_, p) => p + 1);
  await db.query(
    `INSERT INTO hms_memory_vectors (memory_id, ns, hash, line_start, line_end, vectors)
     VALUES ($1, $2, 'h', $3::integer[], $3::integer[], $4)
     ON CONFLICT (memory_id) DO UPDATE SET line_start = excluded.line_start,
       line_end = excluded.line_end, vectors = excluded.vectors`,
    [id, ns, lines, new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength)],
  );
}

beforeAll(async () => {
  pglite = await PGlite.create({ extensions: { vector, btree_gin, unaccent } });
  db = {
    query: async <R extends object>(text: string, values?: unknown[]) =>
      ({ rows: (await pglite.query<R>(text, values)).rows }) as { rows: R[] },
  };
  for (const migration of MIGRATIONS) await pglite.exec(migration.sql);
  const { rows } = await db.query<{ id: number }>(
    "INSERT INTO hms_namespaces (name) VALUES ('default') RETURNING id",
  );
  ns = Number(rows[0]?.id);
  await db.query("INSERT INTO hms_embedding_models (ns, model, dimensions) VALUES ($1, 'm', $2)", [
    ns,
    DIMS,
  ]);
  for (let i = 1; i <= MEMORIES; i++) {
    await db.query(
      `INSERT INTO hms_memories (ns, key, text, version, hash, bytes, created_at, updated_at)
       VALUES ($1, $2, $3, 1, 'h', 1, 'now', 'now')`,
      [ns, `/m/${i}`, `memory ${i}`],
    );
  }
  const { rows: ids } = await db.query<{ id: number }>("SELECT id FROM hms_memories ORDER BY id");
  for (const [i, row] of ids.entries()) await saveVectors(Number(row.id), passagesOf(i + 1));
}, 180_000);
afterAll(async () => await pglite?.close());

/** The exact scan's answer (the engine's search without pgvector) over the same rows. */
async function exact(query: Float32Array, n: number, allowed?: ReadonlySet<number>) {
  return await new DenseSearch().nearest(db as unknown as Client, ns, query, n, allowed);
}

describe("dense search with pgvector (PGlite)", () => {
  it("is found available, creates its table and HNSW index, and copies the vectors saved before", async () => {
    expect(await pgvectorAvailable(db)).toBe(true);
    await enablePgvector(db, DIMS);
    await enablePgvector(db, DIMS); // a second replica starting: nothing to do
    const { rows } = await db.query<{ passages: number }>(
      "SELECT count(*)::integer AS passages FROM hms_passage_vectors",
    );
    let expected = 0;
    for (let i = 1; i <= MEMORIES; i++) expected += 1 + (i % 3);
    expect(rows[0]?.passages).toBe(expected);
    const plan = await db.query<{ "QUERY PLAN": string }>(
      `EXPLAIN SELECT memory_id FROM hms_passage_vectors WHERE ns = 1 AND dimensions = ${DIMS}
       ORDER BY (embedding::vector(${DIMS})) <=> '${JSON.stringify(Array.from(unit(5)))}'::vector(${DIMS})
       LIMIT 40`,
    );
    expect(plan.rows.map((row) => row["QUERY PLAN"]).join("\n")).toMatch(
      new RegExp(`Index Scan using hms_passage_vectors_hnsw_${DIMS}`),
    );
  }, 60_000);

  it("finds the exact scan's nearest memories, with the same similarities and passages", async () => {
    const search = new PgvectorSearch(DIMS);
    let found = 0;
    for (let q = 0; q < 40; q++) {
      const query = unit(9_000_000 + q);
      const approximate = await search.nearest(db, ns, query, 10, undefined, []);
      const reference = await exact(query, 10);
      expect(approximate.nearest).toHaveLength(10);
      const want = new Set(reference.nearest.map((hit) => hit.id));
      found += approximate.nearest.filter((hit) => want.has(hit.id)).length;
      for (const hit of approximate.nearest) {
        // A memory's similarity is its best passage's, as the exact scan computes it.
        const truth = reference.score(hit.id) ?? (await exact(query, MEMORIES)).score(hit.id);
        expect(hit.score).toBeCloseTo(truth?.score as number, 5);
        expect(hit.passage).toEqual(truth?.passage);
      }
    }
    // HNSW is approximate; on 400 memories it should miss almost nothing.
    expect(found / 400).toBeGreaterThanOrEqual(0.95);
  }, 60_000);

  it("ranks a filtered recall's memories exactly and scores the lexical candidates asked about", async () => {
    const search = new PgvectorSearch(DIMS);
    const query = unit(77);
    const allowed = new Set(Array.from({ length: 60 }, (_, i) => i * 5 + 1));
    const filtered = await search.nearest(db, ns, query, 10, allowed, [2, 3]);
    const reference = await exact(query, 10, allowed);
    expect(filtered.nearest.map((hit) => hit.id)).toEqual(reference.nearest.map((hit) => hit.id));
    const all = await exact(query, MEMORIES);
    for (const id of [2, 3]) {
      expect(filtered.score(id)?.score).toBeCloseTo(all.score(id)?.score as number, 5);
      expect(filtered.score(id)?.passage).toEqual(all.score(id)?.passage);
    }
  }, 60_000);

  it("serves re-saved vectors and forgets deleted memories", async () => {
    const search = new PgvectorSearch(DIMS);
    // Memory 7 gets new vectors: its first passage is now the query itself.
    const query = unit(424242);
    const replaced = passagesOf(7, 1);
    replaced.set(query, 0);
    await saveVectors(7, replaced);
    await writePassages(db, DIMS, [{ id: 7, ns, vectors: replaced }]);
    const first = await search.nearest(db, ns, query, 5, undefined, []);
    expect(first.nearest[0]?.id).toBe(7);
    expect(first.nearest[0]?.score).toBeCloseTo(1, 5);
    // Deleting the memory cascades to its vectors and their pgvector rows.
    await db.query("DELETE FROM hms_memories WHERE id = 7");
    const second = await search.nearest(db, ns, query, 5, undefined, [7]);
    expect(second.nearest.map((hit) => hit.id)).not.toContain(7);
    expect(second.score(7)).toBeUndefined();
  }, 60_000);
});
