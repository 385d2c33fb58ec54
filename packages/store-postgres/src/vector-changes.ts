/**
 * Keeping the change log of migration 4 (hms_vector_changes) from growing without end. Each
 * memory whose vectors ever changed has one row there; a deleted memory's row stays, as a
 * tombstone, so that a replica's copy of the namespace's vectors learns of the deletion. Only
 * copies older than the deletion need it, so tombstones far enough behind a namespace's change
 * counter are dropped, and the namespace records how far (pruned_through, migration 5): a copy
 * older than that is read whole instead of from the log (vectors-dense.ts).
 */
import type pg from "pg";

/** How many changes behind its namespace's counter a tombstone is kept, by default. */
export const DEFAULT_KEEP_CHANGES = 10_000;

/**
 * Drops, in every namespace, the tombstones more than `keepChanges` changes behind the
 * namespace's counter, and raises its pruned_through to that horizon in the same statement (so
 * no reader sees one without the other). Returns how many rows were dropped.
 */
export async function pruneVectorChanges(
  pool: pg.Pool,
  keepChanges: number = DEFAULT_KEEP_CHANGES,
): Promise<number> {
  if (!Number.isSafeInteger(keepChanges) || keepChanges < 0) {
    throw new RangeError(`keepChanges must be a non-negative integer, got ${keepChanges}`);
  }
  const { rows } = await pool.query<{ dropped: number }>(
    `WITH horizon AS (
       SELECT e.ns, e.changes - $1::bigint AS through
       FROM hms_embedding_models e
       WHERE e.changes - $1::bigint > e.pruned_through
         AND EXISTS (
           SELECT 1 FROM hms_vector_changes c
           WHERE c.ns = e.ns AND c.changed <= e.changes - $1::bigint
             AND NOT EXISTS (SELECT 1 FROM hms_memory_vectors v WHERE v.memory_id = c.memory_id))
     ),
     marked AS (
       UPDATE hms_embedding_models e SET pruned_through = h.through
       FROM horizon h WHERE e.ns = h.ns
       RETURNING e.ns, e.pruned_through
     ),
     dropped AS (
       DELETE FROM hms_vector_changes c USING marked m
       WHERE c.ns = m.ns AND c.changed <= m.pruned_through
         AND NOT EXISTS (SELECT 1 FROM hms_memory_vectors v WHERE v.memory_id = c.memory_id)
       RETURNING 1
     )
     SELECT count(*)::integer AS dropped FROM dropped`,
    [keepChanges],
  );
  return rows[0]?.dropped ?? 0;
}
