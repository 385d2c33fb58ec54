/**
 * The memory tool's tree over keys: a memory-file key is a file, the keys under `key/` make
 * `key` a directory, and no key is both. Here are the tree forms of forget and move (a file or
 * a directory at once), their prefix forms, and the checks that keep the tree well formed.
 * MemoryStore's methods of the same names call these.
 */
import { checkExpected, nextVersions, now, type StoreContext } from "./context.js";
import { checkKey, checkPrefix } from "./limits.js";
import { checkMovePrefixes, movePrefixSteps, moveSteps, moveTreeSteps } from "./rules/moves.js";
import { runSync } from "./rules/steps.js";
import {
  checkMemoryFile,
  pathConflict,
  type TreeConflict,
  type TreeLookup,
  type TreeRecord,
  treeConflictSteps,
  treeNotFound,
} from "./rules/tree-shape.js";
import { bindSelection, type Head } from "./sqlite/statements.js";

// The tree's engine-neutral rules, where this module's importers have always found them.
export { checkMemoryFile, pathConflict, type TreeConflict };

/** Deletes every key that starts with `prefix` (non-empty): `MemoryStore.forgetPrefix`. */
export function forgetPrefix(ctx: StoreContext, prefix: string): { deleted: number } {
  const checked = checkPrefix(prefix, ctx.limits, "prefix", false);
  const { params, shape } = bindSelection(checked, undefined);
  return ctx.free(() => ({
    deleted: Number(ctx.sql.deleteRange.for(shape).run(params).changes),
  }));
}

/** Deletes a file or a directory of the memory tool: `MemoryStore.forgetTree`. */
export function forgetTree(ctx: StoreContext, key: string): { deleted: number } {
  const checked = checkKey(key, ctx.limits);
  const under = bindSelection(`${checked}/`, undefined);
  return ctx.free(() => {
    const deleted =
      Number(ctx.sql.deleteKey.run(checked).changes) +
      Number(ctx.sql.deleteRange.for(under.shape).run(under.params).changes);
    if (deleted === 0) throw treeNotFound(checked);
    return { deleted };
  });
}

/** Renames one memory: `MemoryStore.move`, which lists its refusals. */
export function move(
  ctx: StoreContext,
  from: string,
  to: string,
  options: { expectedVersion?: number | undefined } = {},
): { moved: number } {
  const source = checkKey(from, ctx.limits, "from");
  const target = checkKey(to, ctx.limits, "to");
  const expected = checkExpected(options.expectedVersion);
  return ctx.write(() => {
    renameAll(ctx, [runSync(moveSteps(treeLookup(ctx), source, target, expected))]);
    return { moved: 1 };
  });
}

/** Renames every key that starts with a prefix: `MemoryStore.movePrefix`. */
export function movePrefix(
  ctx: StoreContext,
  fromPrefix: string,
  toPrefix: string,
): { moved: number } {
  const { from, to } = checkMovePrefixes(fromPrefix, toPrefix, ctx.limits);
  return ctx.write(() => {
    const moves = runSync(movePrefixSteps(treeLookup(ctx), ctx.limits, from, to));
    renameAll(ctx, moves);
    return { moved: moves.length };
  });
}

/**
 * Moves a file or a directory of the memory tool: `MemoryStore.moveTree`, whose refusals, in
 * the order listed there, are the order of the checks here.
 */
export function moveTree(ctx: StoreContext, from: string, to: string): { moved: number } {
  const source = checkKey(from, ctx.limits, "from");
  const target = checkKey(to, ctx.limits, "to");
  return ctx.write(() => {
    const moves = runSync(moveTreeSteps(treeLookup(ctx), ctx.limits, source, target));
    renameAll(ctx, moves);
    return { moved: moves.length };
  });
}

/** Renames records (in a write transaction), each to a new version of the clock. */
function renameAll(ctx: StoreContext, moves: readonly { id: number; key: string }[]): void {
  const first = nextVersions(ctx, moves.length);
  const at = now();
  moves.forEach(({ id, key }, i) => {
    ctx.sql.rename.run({ id, key, version: first + i, updated_at: at });
  });
}

/**
 * Why creating the memory-file key `key` would break the memory-file tree: keys lie under it
 * (`directory`), or one of its ancestors below `/memories` is a key (`file`, the shortest).
 */
export function treeConflict(ctx: StoreContext, key: string): TreeConflict | undefined {
  return runSync(treeConflictSteps(treeLookup(ctx), key));
}

/** The tree's lookups on the store's statements (inside its write transaction). */
function treeLookup(ctx: StoreContext): TreeLookup {
  const record = (key: string, head: Head): TreeRecord => ({
    id: head.id,
    key,
    version: head.version,
    tags: JSON.parse(head.tags) as string[],
  });
  return {
    record(key) {
      const head = ctx.sql.head.get(key) as Head | undefined;
      return head === undefined ? undefined : record(key, head);
    },
    recordsWithPrefix(prefix) {
      const { params, shape } = bindSelection(prefix, undefined);
      const heads = ctx.sql.headsInRange.for(shape).all(params) as (Head & { key: string })[];
      return heads.map((head) => record(head.key, head));
    },
    firstKeyUnder(key) {
      const { params, shape } = bindSelection(`${key}/`, undefined);
      const row = ctx.sql.firstKeyInRange.for(shape).get(params) as { key: string } | undefined;
      return row?.key;
    },
    firstExisting(keys) {
      return keys.find((key) => ctx.sql.head.get(key) !== undefined);
    },
  };
}
