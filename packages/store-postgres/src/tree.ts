/**
 * The memory tool's tree on PostgreSQL: forget and move of a file or a directory, their prefix
 * forms, and the checks that keep the tree well formed. The same checks, in the same order,
 * with the same refusals as @hms/store's tree.ts; each operation is one write transaction.
 */
import { isMemoryFile, StoreError } from "@hms/store";
import {
  checkExpected,
  checkKey,
  checkMemoryFile,
  checkPrefix,
  moveTreeSteps,
  notFound,
  now,
  pathConflict,
  runAsync,
  type TreeConflict,
  type TreeLookup,
  treeConflictSteps,
  treeNotFound,
  versionConflict,
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
    const own = await head(client, ns, source);
    if (own === undefined) throw notFound(source);
    if (expected !== undefined && own.version !== expected) {
      throw versionConflict(source, own.version, expected);
    }
    if (source === target) {
      throw new StoreError("EXISTS", `cannot move ${source} onto itself`, { key: target });
    }
    if ((await head(client, ns, target)) !== undefined) {
      throw new StoreError("EXISTS", `cannot move ${source} to ${target}: ${target} exists`, {
        key: target,
      });
    }
    if (isMemoryFile(target, own.tags)) {
      const found = await treeConflict(client, ns, target);
      if (found !== undefined) throw pathConflict(`cannot move ${source} to ${target}`, found);
    }
    checkMemoryFile(target, own.tags);
    await rename(client, [{ id: own.id, key: target }], ns);
    return { moved: 1 };
  });
}

/** `movePrefix`: renames every key that starts with a prefix. */
export async function movePrefix(
  ctx: PgContext,
  fromPrefix: string,
  toPrefix: string,
): Promise<{ moved: number }> {
  const from = checkPrefix(fromPrefix, ctx.limits, "from_prefix", false);
  const to = checkPrefix(toPrefix, ctx.limits, "to_prefix", false);
  if (to.startsWith(from)) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `to_prefix ${JSON.stringify(to)} starts with from_prefix ${JSON.stringify(from)}: cannot move keys under themselves`,
    );
  }
  const none = () =>
    new StoreError("NOT_FOUND", `no key starts with ${JSON.stringify(from)}`, { prefix: from });
  if ((await ctx.id()) === undefined) throw none();
  return await ctx.write(async (client, ns) => {
    const sources = await headsUnder(client, ns, from);
    if (sources.length === 0) throw none();
    const moves = sources.map((source) => {
      const target = checkKey(to + source.key.slice(from.length), ctx.limits, "destination key");
      checkMemoryFile(target, source.tags);
      return { id: source.id, key: target, memoryFile: isMemoryFile(target, source.tags) };
    });
    for (const { key } of moves) {
      if ((await head(client, ns, key)) !== undefined) {
        throw new StoreError("EXISTS", `cannot move to ${key}: it exists`, { key });
      }
    }
    for (const { key, memoryFile } of moves) {
      const found = memoryFile ? await treeConflict(client, ns, key) : undefined;
      if (found !== undefined) throw pathConflict(`cannot move to ${key}`, found);
    }
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
      return found === undefined ? undefined : { id: found.id, key, tags: found.tags };
    },
    recordsUnder: (key) => headsUnder(client, ns, `${key}/`),
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
