/**
 * The shape of the memory tool's tree, for every engine: a memory-file key is a file, the keys
 * under `key/` make `key` a directory, and no key is both. The refusals that keep it so, and
 * the lookups (`TreeLookup`) an engine answers for them, synchronously or not (see steps.ts).
 */
import type { Awaitable } from "../engine.js";
import { StoreError } from "../errors.js";
import { isMemoryFile, memoryAncestors, memoryFileKeyProblem } from "../memory-file.js";
import { type Steps, step } from "./steps.js";

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

/** A record as the tree's rules see it. */
export interface TreeRecord {
  readonly id: number;
  readonly key: string;
  readonly version: number;
  readonly tags: string[];
}

/** What the tree's rules look up, inside the engine's write transaction. */
export interface TreeLookup {
  /** The record at `key`, or undefined. */
  record(key: string): Awaitable<TreeRecord | undefined>;
  /** The records whose keys start with `prefix`, in key order. */
  recordsWithPrefix(prefix: string): Awaitable<TreeRecord[]>;
  /** The first key, in key order, under the directory `key`, if any. */
  firstKeyUnder(key: string): Awaitable<string | undefined>;
  /**
   * The first of `keys` (a key's ancestors, shortest first, which is also key order) that is
   * a record's key, if any.
   */
  firstExisting(keys: readonly string[]): Awaitable<string | undefined>;
}

export function pathConflict(action: string, found: TreeConflict): StoreError {
  return new StoreError("PATH_CONFLICT", `${action}: ${found.reason}`, {
    conflict: found.conflict,
    path: found.path,
  });
}

/** A tree form's NOT_FOUND: neither the key nor anything under it exists. */
export function treeNotFound(key: string): StoreError {
  return new StoreError("NOT_FOUND", `neither ${key} nor any key under ${key}/ exists`, { key });
}

/**
 * Refuses a memory file whose key breaks the memory-path rules: every rule for a new key,
 * those that also hold for an existing file's name when `existing` (see memoryFileKeyProblem).
 */
export function checkMemoryFile(key: string, tags: readonly string[], existing = false): void {
  if (!isMemoryFile(key, tags)) return;
  const problem = memoryFileKeyProblem(key, existing);
  if (problem !== undefined) {
    throw new StoreError("INVALID_ARGUMENT", problem, { key });
  }
}

/**
 * Why creating the memory-file key `key` would break the memory-file tree: keys lie under it
 * (`directory`), or one of its ancestors below `/memories` is a key (`file`, the shortest).
 */
export function* treeConflictSteps(
  lookup: TreeLookup,
  key: string,
): Steps<TreeConflict | undefined> {
  const child = yield* step(lookup.firstKeyUnder(key));
  if (child !== undefined) {
    return {
      conflict: "directory",
      path: key,
      reason: `${key} is a directory (${child} lies under it)`,
    };
  }
  return yield* fileAncestorSteps(lookup, key);
}

/** The shortest proper ancestor of `key` below `/memories` that is a key, as a conflict. */
export function* fileAncestorSteps(
  lookup: TreeLookup,
  key: string,
): Steps<TreeConflict | undefined> {
  const ancestors = memoryAncestors(key);
  if (ancestors.length === 0) return undefined;
  const ancestor = yield* step(lookup.firstExisting(ancestors));
  if (ancestor === undefined) return undefined;
  return {
    conflict: "file",
    path: ancestor,
    reason: `${ancestor} is a file, so nothing can lie under it`,
  };
}
