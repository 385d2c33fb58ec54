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
import { isMemoryFile, memoryAncestors, memoryFileKeyProblem } from "./memory-file.js";
import { bindSelection, type Head } from "./sqlite/statements.js";

/** A tree form's NOT_FOUND: neither the key nor anything under it exists. */
function treeNotFound(key: string): StoreError {
  return new StoreError("NOT_FOUND", `neither ${key} nor any key under ${key}/ exists`, { key });
}

/**
 * Why giving a memory-file key existence would make a key both a file and a directory:
 * `directory` when keys lie under it, `file` when one of its ancestors is a key. `path` is the
 * key that is a directory, or the shortest ancestor that is a file.
 */
export interface TreeConflict {
  readonly conflict: "directory" | "file";
  readonly path: string;
  /** Says what is in the way, for the error message. */
  readonly reason: string;
}

export function pathConflict(action: string, found: TreeConflict): StoreError {
  return new StoreError("PATH_CONFLICT", `${action}: ${found.reason}`, {
    conflict: found.conflict,
    path: found.path,
  });
}

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
  const under = bindSelection(`${source}/`, undefined);
  return ctx.write(() => {
    const own = ctx.sql.head.get(source) as Head | undefined;
    const children = ctx.sql.headsInRange.for(under.shape).all(under.params) as (Head & {
      key: string;
    })[];
    // Key order: `from` sorts before every key that starts with `from/`.
    const sources = own === undefined ? children : [{ ...own, key: source }, ...children];
    if (sources.length === 0) throw treeNotFound(source);
    if (target === source) {
      throw new StoreError("EXISTS", `cannot move ${source} onto itself`, { key: target });
    }
    if (children.length > 0 && target.startsWith(`${source}/`)) {
      throw new StoreError(
        "INVALID_ARGUMENT",
        `cannot move the directory ${source} into itself: ${target} lies under it`,
        { reason: "into_itself" },
      );
    }
    const blocking = ctx.sql.head.get(target) !== undefined ? target : firstUnder(ctx, target);
    if (blocking !== undefined) {
      const why =
        blocking === target
          ? `${target} exists`
          : `${target} exists as a directory (${blocking} lies under it)`;
      throw new StoreError("EXISTS", `cannot move ${source} to ${target}: ${why}`, {
        key: target,
      });
    }
    const fileAbove = fileAncestor(ctx, target);
    if (fileAbove !== undefined) {
      throw pathConflict(`cannot move ${source} to ${target}`, fileAbove);
    }
    const moves = sources.map((record) => {
      const key = target + record.key.slice(source.length);
      const problem = newKeyProblem(ctx, key, JSON.parse(record.tags) as string[]);
      if (problem !== undefined) {
        throw new StoreError(
          "INVALID_ARGUMENT",
          `cannot move ${record.key} to ${key}: ${problem}`,
          {
            reason: "invalid_key",
            key,
          },
        );
      }
      return { id: record.id, key };
    });
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
  const child = firstUnder(ctx, key);
  if (child !== undefined) {
    return {
      conflict: "directory",
      path: key,
      reason: `${key} is a directory (${child} lies under it)`,
    };
  }
  return fileAncestor(ctx, key);
}

/** The shortest proper ancestor of `key` below `/memories` that is a key, as a conflict. */
function fileAncestor(ctx: StoreContext, key: string): TreeConflict | undefined {
  for (const ancestor of memoryAncestors(key)) {
    if (ctx.sql.head.get(ancestor) !== undefined) {
      return {
        conflict: "file",
        path: ancestor,
        reason: `${ancestor} is a file, so nothing can lie under it`,
      };
    }
  }
  return undefined;
}

/** The first key (in key order) that starts with `key/`, if any. */
function firstUnder(ctx: StoreContext, key: string): string | undefined {
  const { params, shape } = bindSelection(`${key}/`, undefined);
  return ctx.sql.firstKeyInRange.for(shape).get(params) as string | undefined;
}

/** Why `key` cannot be a new key of a record with `tags`, or undefined when it can. */
function newKeyProblem(
  ctx: StoreContext,
  key: string,
  tags: readonly string[],
): string | undefined {
  try {
    checkKey(key, ctx.limits, "the new key");
  } catch (error) {
    if (error instanceof StoreError) return error.message;
    throw error;
  }
  return isMemoryFile(key, tags) ? memoryFileKeyProblem(key) : undefined;
}

/** Refuses a memory file whose key breaks the memory-path rules. */
export function checkMemoryFile(key: string, tags: readonly string[]): void {
  if (!isMemoryFile(key, tags)) return;
  const problem = memoryFileKeyProblem(key);
  if (problem !== undefined) {
    throw new StoreError("INVALID_ARGUMENT", problem, { key });
  }
}
