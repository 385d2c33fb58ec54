/**
 * The refusals of the three moves (`move`, `movePrefix`, `moveTree`), for every engine, in the
 * order `StoreApi` lists them: the engine checks the arguments before its write transaction,
 * answers the lookups inside it, and renames what the sequence returns.
 */
import { notFound, versionConflict } from "../context.js";
import { StoreError } from "../errors.js";
import { checkKey, checkPrefix, type Limits } from "../limits.js";
import { isMemoryFile, memoryFileKeyProblem } from "../memory-file.js";
import { type Steps, step } from "./steps.js";
import {
  checkMemoryFile,
  fileAncestorSteps,
  pathConflict,
  type TreeLookup,
  treeConflictSteps,
  treeNotFound,
} from "./tree-shape.js";

/** One record's rename: its id and its new key. */
export interface Rename {
  readonly id: number;
  readonly key: string;
}

/**
 * Checks the move of the memory `source` to `target` (both checked keys), at `expected` when
 * given, and returns its rename; throws the first refusal that applies.
 */
export function* moveSteps(
  lookup: TreeLookup,
  source: string,
  target: string,
  expected: number | undefined,
): Steps<Rename> {
  const own = yield* step(lookup.record(source));
  if (own === undefined) throw notFound(source);
  if (expected !== undefined && own.version !== expected) {
    throw versionConflict(source, own.version, expected);
  }
  if (source === target) {
    throw new StoreError("EXISTS", `cannot move ${source} onto itself`, { key: target });
  }
  if ((yield* step(lookup.record(target))) !== undefined) {
    throw new StoreError("EXISTS", `cannot move ${source} to ${target}: ${target} exists`, {
      key: target,
    });
  }
  if (isMemoryFile(target, own.tags)) {
    const found = yield* treeConflictSteps(lookup, target);
    if (found !== undefined) throw pathConflict(`cannot move ${source} to ${target}`, found);
  }
  checkMemoryFile(target, own.tags);
  return { id: own.id, key: target };
}

/** `movePrefix`'s two prefixes, checked (before any transaction). */
export function checkMovePrefixes(
  fromPrefix: string,
  toPrefix: string,
  limits: Limits,
): { from: string; to: string } {
  const from = checkPrefix(fromPrefix, limits, "from_prefix", false);
  const to = checkPrefix(toPrefix, limits, "to_prefix", false);
  if (to.startsWith(from)) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `to_prefix ${JSON.stringify(to)} starts with from_prefix ${JSON.stringify(from)}: cannot move keys under themselves`,
    );
  }
  return { from, to };
}

/** `movePrefix`'s NOT_FOUND: no key starts with `prefix`. */
export function noKeyWithPrefix(prefix: string): StoreError {
  return new StoreError("NOT_FOUND", `no key starts with ${JSON.stringify(prefix)}`, { prefix });
}

/**
 * Checks the move of every key that starts with `from` to the same key starting with `to`
 * (prefixes checked by `checkMovePrefixes`) and returns the renames, in key order.
 */
export function* movePrefixSteps(
  lookup: TreeLookup,
  limits: Limits,
  from: string,
  to: string,
): Steps<Rename[]> {
  const sources = yield* step(lookup.recordsWithPrefix(from));
  if (sources.length === 0) throw noKeyWithPrefix(from);
  const moves = sources.map((source) => {
    const target = checkKey(to + source.key.slice(from.length), limits, "destination key");
    checkMemoryFile(target, source.tags);
    return { id: source.id, key: target, memoryFile: isMemoryFile(target, source.tags) };
  });
  for (const { key } of moves) {
    if ((yield* step(lookup.record(key))) !== undefined) {
      throw new StoreError("EXISTS", `cannot move to ${key}: it exists`, { key });
    }
  }
  for (const { key, memoryFile } of moves) {
    const found = memoryFile ? yield* treeConflictSteps(lookup, key) : undefined;
    if (found !== undefined) throw pathConflict(`cannot move to ${key}`, found);
  }
  return moves.map(({ id, key }) => ({ id, key }));
}

/**
 * Checks the move of the file or directory `source` to `target` (both checked keys) and
 * returns the renames, in key order; throws the first refusal that applies.
 */
export function* moveTreeSteps(
  lookup: TreeLookup,
  limits: Limits,
  source: string,
  target: string,
): Steps<Rename[]> {
  const own = yield* step(lookup.record(source));
  const children = yield* step(lookup.recordsWithPrefix(`${source}/`));
  // Key order: `from` sorts before every key that starts with `from/`.
  const sources = own === undefined ? children : [own, ...children];
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
  const blocking =
    (yield* step(lookup.record(target))) !== undefined
      ? target
      : yield* step(lookup.firstKeyUnder(target));
  if (blocking !== undefined) {
    const why =
      blocking === target
        ? `${target} exists`
        : `${target} exists as a directory (${blocking} lies under it)`;
    throw new StoreError("EXISTS", `cannot move ${source} to ${target}: ${why}`, {
      key: target,
    });
  }
  const fileAbove = yield* fileAncestorSteps(lookup, target);
  if (fileAbove !== undefined) {
    throw pathConflict(`cannot move ${source} to ${target}`, fileAbove);
  }
  return sources.map((record) => {
    const key = target + record.key.slice(source.length);
    const problem = newKeyProblem(limits, key, record.tags);
    if (problem !== undefined) {
      throw new StoreError("INVALID_ARGUMENT", `cannot move ${record.key} to ${key}: ${problem}`, {
        reason: "invalid_key",
        key,
      });
    }
    return { id: record.id, key };
  });
}

/** Why `key` cannot be a new key of a record with `tags`, or undefined when it can. */
function newKeyProblem(limits: Limits, key: string, tags: readonly string[]): string | undefined {
  try {
    checkKey(key, limits, "the new key");
  } catch (error) {
    if (error instanceof StoreError) return error.message;
    throw error;
  }
  return isMemoryFile(key, tags) ? memoryFileKeyProblem(key) : undefined;
}
