/**
 * The memory tool's tree over keys: a memory-file key is a file, the keys under `key/` make
 * `key` a directory, and no key is both. Here are the tree forms of forget and move (a file or
 * a directory at once), their prefix forms, and the checks that keep the tree well formed.
 * MemoryStore's methods of the same names call these.
 */
import {
  checkExpected,
  nextVersions,
  notFound,
  now,
  type StoreContext,
  versionConflict,
} from "./context.js";
import { StoreError } from "./errors.js";
import { checkKey, checkPrefix } from "./limits.js";
import { isMemoryFile } from "./memory-file.js";
import { moveTreeSteps } from "./rules/move-tree.js";
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
    deleted: ctx.sql.deleteRange.for(shape).run(params).changes,
  }));
}

/** Deletes a file or a directory of the memory tool: `MemoryStore.forgetTree`. */
export function forgetTree(ctx: StoreContext, key: string): { deleted: number } {
  const checked = checkKey(key, ctx.limits);
  const under = bindSelection(`${checked}/`, undefined);
  return ctx.free(() => {
    const deleted =
      ctx.sql.deleteKey.run(checked).changes +
      ctx.sql.deleteRange.for(under.shape).run(under.params).changes;
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
    const head = ctx.sql.head.get(source) as Head | undefined;
    if (head === undefined) throw notFound(source);
    if (expected !== undefined && head.version !== expected) {
      throw versionConflict(source, head.version, expected);
    }
    if (source === target) {
      throw new StoreError("EXISTS", `cannot move ${source} onto itself`, { key: target });
    }
    if (ctx.sql.head.get(target) !== undefined) {
      throw new StoreError("EXISTS", `cannot move ${source} to ${target}: ${target} exists`, {
        key: target,
      });
    }
    const tags = JSON.parse(head.tags) as string[];
    if (isMemoryFile(target, tags)) {
      const found = treeConflict(ctx, target);
      if (found !== undefined) throw pathConflict(`cannot move ${source} to ${target}`, found);
    }
    checkMemoryFile(target, tags);
    ctx.sql.rename.run({
      id: head.id,
      key: target,
      version: nextVersions(ctx, 1),
      updated_at: now(),
    });
    return { moved: 1 };
  });
}

/** Renames every key that starts with a prefix: `MemoryStore.movePrefix`. */
export function movePrefix(
  ctx: StoreContext,
  fromPrefix: string,
  toPrefix: string,
): { moved: number } {
  const from = checkPrefix(fromPrefix, ctx.limits, "from_prefix", false);
  const to = checkPrefix(toPrefix, ctx.limits, "to_prefix", false);
  if (to.startsWith(from)) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `to_prefix ${JSON.stringify(to)} starts with from_prefix ${JSON.stringify(from)}: cannot move keys under themselves`,
    );
  }
  const { params, shape } = bindSelection(from, undefined);
  return ctx.write(() => {
    const sources = ctx.sql.headsInRange.for(shape).all(params) as (Head & { key: string })[];
    if (sources.length === 0) {
      throw new StoreError("NOT_FOUND", `no key starts with ${JSON.stringify(from)}`, {
        prefix: from,
      });
    }
    const moves = sources.map((source) => {
      const target = checkKey(to + source.key.slice(from.length), ctx.limits, "destination key");
      const tags = JSON.parse(source.tags) as string[];
      checkMemoryFile(target, tags);
      return { id: source.id, key: target, memoryFile: isMemoryFile(target, tags) };
    });
    for (const { key } of moves) {
      if (ctx.sql.head.get(key) !== undefined) {
        throw new StoreError("EXISTS", `cannot move to ${key}: it exists`, { key });
      }
    }
    for (const { key, memoryFile } of moves) {
      const found = memoryFile ? treeConflict(ctx, key) : undefined;
      if (found !== undefined) throw pathConflict(`cannot move to ${key}`, found);
    }
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
    tags: JSON.parse(head.tags) as string[],
  });
  return {
    record(key) {
      const head = ctx.sql.head.get(key) as Head | undefined;
      return head === undefined ? undefined : record(key, head);
    },
    recordsUnder(key) {
      const { params, shape } = bindSelection(`${key}/`, undefined);
      const heads = ctx.sql.headsInRange.for(shape).all(params) as (Head & { key: string })[];
      return heads.map((head) => record(head.key, head));
    },
    firstKeyUnder(key) {
      const { params, shape } = bindSelection(`${key}/`, undefined);
      return ctx.sql.firstKeyInRange.for(shape).get(params) as string | undefined;
    },
    firstExisting(keys) {
      return keys.find((key) => ctx.sql.head.get(key) !== undefined);
    },
  };
}
