/**
 * The memory tool's tree on PostgreSQL: forget and move of a file or a directory, their prefix
 * forms, and the checks that keep the tree well formed. The same checks, in the same order,
 * with the same refusals as @hms/store's tree.ts; each operation is one write transaction.
 */
import {
  checkExpected,
  checkKey,
  checkMovePrefixes,
  checkPrefix,
  movePrefixSteps,
  moveSteps,
  moveTreeSteps,
  noKeyWithPrefix,
  notFound,
  now,
  runAsync,
  type TreeConflict,
  type TreeLookup,
  treeConflictSteps,
  treeNotFound,
} from "@hms/store/internal";
import {
  type Client,
  firstUnder,
  head,
  headsUnder,
  nextVersions,
  type PgContext,
  whereOf,
} from "./context.js";

async function deleteUnder(client: Client, ns: number, prefix: string): Promise<number> {
  const params: unknown[] = [ns];
  const where = whereOf(params, { prefix });
  const { rowCount } = await client.query(`DELETE FROM hms_memories m WHERE ${where}`, params);
  return rowCount ?? 0;
}

/** `forgetPrefix`: deletes every key that starts with `prefix` (non-empty). */
export async function forgetPrefix(ctx: PgContext, prefix: string): Promise<{ deleted: number }> {
  const checked = checkPrefix(prefix, ctx.limits, "prefix", false);
  if ((await ctx.id()) === undefined) return { deleted: 0 };
  return await ctx.write(async (client, ns) => ({
    deleted: await deleteUnder(client, ns, checked),
  }));
}

/** `forgetTree`: deletes a file or a directory of the memory tool. */
export async function forgetTree(ctx: PgContext, key: string): Promise<{ deleted: number }> {
  const checked = checkKey(key, ctx.limits);
  if ((await ctx.id()) === undefined) throw treeNotFound(checked);
  return await ctx.write(async (client, ns) => {
    const own = await client.query("DELETE FROM hms_memories WHERE ns = $1 AND key = $2", [
      ns,
      checked,
    ]);
    const deleted = (own.rowCount ?? 0) + (await deleteUnder(client, ns, `${checked}/`));
    if (deleted === 0) throw treeNotFound(checked);
    return { deleted };
  });
}

async function rename(
  client: Client,
  moves: readonly { id: number; key: string }[],
  ns: number,
): Promise<void> {
  if (moves.length === 0) return;
  const first = await nextVersions(client, ns, moves.length);
  await client.query(
    `UPDATE hms_memories m SET key = v.key, version = v.version, updated_at = $4
     FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS v (id, key, version)
     WHERE m.id = v.id`,
    [
      moves.map((move) => move.id),
      moves.map((move) => move.key),
      moves.map((_, i) => first + i),
      now(),
    ],
  );
}

/** `move`: renames one memory. */
export async function move(
  ctx: PgContext,
  from: string,
  to: string,
  options: { expectedVersion?: number | undefined } = {},
): Promise<{ moved: number }> {
  const source = checkKey(from, ctx.limits, "from");
  const target = checkKey(to, ctx.limits, "to");
  const expected = checkExpected(options.expectedVersion);
  if ((await ctx.id()) === undefined) throw notFound(source);
  return await ctx.write(async (client, ns) => {
    const renamed = await runAsync(moveSteps(treeLookup(client, ns), source, target, expected));
    await rename(client, [renamed], ns);
    return { moved: 1 };
  });
}

/** `movePrefix`: renames every key that starts with a prefix. */
export async function movePrefix(
  ctx: PgContext,
  fromPrefix: string,
  toPrefix: string,
): Promise<{ moved: number }> {
  const { from, to } = checkMovePrefixes(fromPrefix, toPrefix, ctx.limits);
  if ((await ctx.id()) === undefined) throw noKeyWithPrefix(from);
  return await ctx.write(async (client, ns) => {
    const moves = await runAsync(movePrefixSteps(treeLookup(client, ns), ctx.limits, from, to));
    await rename(client, moves, ns);
    return { moved: moves.length };
  });
}

/** `moveTree`: moves a file or a directory; the checks in the order `MemoryStore.moveTree` lists. */
export async function moveTree(
  ctx: PgContext,
  from: string,
  to: string,
): Promise<{ moved: number }> {
  const source = checkKey(from, ctx.limits, "from");
  const target = checkKey(to, ctx.limits, "to");
  if ((await ctx.id()) === undefined) throw treeNotFound(source);
  return await ctx.write(async (client, ns) => {
    const moves = await runAsync(moveTreeSteps(treeLookup(client, ns), ctx.limits, source, target));
    await rename(client, moves, ns);
    return { moved: moves.length };
  });
}

/**
 * Why creating the memory-file key `key` would break the memory-file tree: keys lie under it
 * (`directory`), or one of its ancestors below `/memories` is a key (`file`, the shortest).
 */
export async function treeConflict(
  client: Client,
  ns: number,
  key: string,
): Promise<TreeConflict | undefined> {
  return await runAsync(treeConflictSteps(treeLookup(client, ns), key));
}

/** The tree's lookups on one namespace, inside its write transaction. */
function treeLookup(client: Client, ns: number): TreeLookup {
  return {
    async record(key) {
      const found = await head(client, ns, key);
      return found === undefined
        ? undefined
        : { id: found.id, key, version: found.version, tags: found.tags };
    },
    recordsWithPrefix: (prefix) => headsUnder(client, ns, prefix),
    firstKeyUnder: (key) => firstUnder(client, ns, key),
    async firstExisting(keys) {
      // One lookup for all of them: the first in key order.
      const { rows } = await client.query<{ key: string }>(
        "SELECT key FROM hms_memories WHERE ns = $1 AND key = ANY($2::text[]) ORDER BY key LIMIT 1",
        [ns, keys],
      );
      return rows[0]?.key;
    },
  };
}
