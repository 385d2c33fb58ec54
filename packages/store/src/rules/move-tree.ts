/**
 * `moveTree`'s refusals, for every engine, in the order `StoreApi.moveTree` lists them: the
 * engine answers the lookups inside its write transaction and renames what this returns.
 */
import { StoreError } from "../errors.js";
import { checkKey, type Limits } from "../limits.js";
import { isMemoryFile, memoryFileKeyProblem } from "../memory-file.js";
import { type Steps, step } from "./steps.js";
import { fileAncestorSteps, pathConflict, type TreeLookup, treeNotFound } from "./tree-shape.js";

/** One record's rename: its id and its new key. */
export interface Rename {
  readonly id: number;
  readonly key: string;
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
  const children = yield* step(lookup.recordsUnder(source));
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
