/**
 * Restores from the history of memory files, for every engine: which state a file goes back
 * to (and the refusals when the history does not hold it), how a state is written over the
 * file as it is now, and a directory's restore, deletes first. The engine answers the lookups
 * and does the writes (its own `remember` and `forget`, so they check what any write checks).
 */

import { isDeepStrictEqual } from "node:util";
import { notFound } from "../context.js";
import type { Awaitable } from "../engine.js";
import { StoreError } from "../errors.js";
import type { HistoryVersion, TreeRestoreResult } from "../history-types.js";
import type { RememberInput, RememberResult } from "../types.js";
import { type Steps, step } from "./steps.js";

/** What `restoreFile` answers. */
export interface FileRestoreResult {
  readonly key: string;
  readonly version: number | null;
  readonly deleted: boolean;
}

/** What a restore reads of the history before its write transaction. */
export interface RestoreReads {
  version(key: string, version: number): Awaitable<HistoryVersion | undefined>;
  stateAt(key: string, at: string): Awaitable<HistoryVersion | null | "unknown">;
}

/** What a restore looks up and writes inside its write transaction. */
export interface RestoreWrites {
  /** The version of the file at `key` now, or undefined when there is none. */
  versionNow(key: string): Awaitable<number | undefined>;
  /** Every key that starts with `prefix`, in the history (moves' sources too) or the store. */
  filesUnder(prefix: string): Awaitable<string[]>;
  /** The file at time `at` (see `StoreHistory.stateAt`). */
  stateAt(key: string, at: string): Awaitable<HistoryVersion | null | "unknown">;
  forget(key: string, expectedVersion: number): Awaitable<unknown>;
  remember(input: RememberInput): Awaitable<RememberResult>;
}

/**
 * The state `restoreFile` brings the file `key` (checked) back to: a version of it, or its
 * state at a time (null: it did not exist then). NOT_FOUND when the history does not hold it.
 */
export function* restoreTargetSteps(
  reads: RestoreReads,
  key: string,
  target: { version: number } | { at: string },
): Steps<HistoryVersion | null> {
  if ("version" in target) {
    const found = yield* step(reads.version(key, target.version));
    if (found === undefined) {
      throw new StoreError(
        "NOT_FOUND",
        `the history of ${key} has no version ${target.version} (see its history for the versions kept)`,
        { key, version: target.version },
      );
    }
    return found;
  }
  const found = yield* step(reads.stateAt(key, target.at));
  if (found === "unknown") {
    throw new StoreError("NOT_FOUND", `the history of ${key} does not reach back to ${target.at}`, {
      key,
      at: target.at,
    });
  }
  return found;
}

/**
 * Writes `state` (or deletes, for null) over the file's current state. With
 * `expectedVersion`, only over that version; without, over whatever is there now. A file
 * that already holds what `state` holds is left alone: no new version, no history.
 */
export function* applyRestoreSteps(
  writes: RestoreWrites,
  key: string,
  state: HistoryVersion | null,
  expectedVersion: number | undefined,
): Steps<FileRestoreResult> {
  const current = yield* step(writes.versionNow(key));
  if (state === null) {
    if (current === undefined) {
      if (expectedVersion !== undefined) throw notFound(key);
      return { key, version: null, deleted: false };
    }
    yield* step(writes.forget(key, expectedVersion ?? current));
    return { key, version: null, deleted: true };
  }
  if (
    current !== undefined &&
    (expectedVersion === undefined || expectedVersion === current) &&
    (yield* isStateNow(writes, key, state))
  ) {
    return { key, version: current, deleted: false };
  }
  const written = yield* step(
    writes.remember({
      key,
      text: state.text,
      tags: state.tags,
      metadata: state.metadata,
      ...(expectedVersion !== undefined
        ? { expectedVersion }
        : current === undefined
          ? { ifAbsent: true }
          : { expectedVersion: current }),
    }),
  );
  return { key, version: written.version, deleted: false };
}

/**
 * Brings every file under the directory `key` (checked) back to its state at `at` (checked):
 * files changed since are written back, files made since are deleted, files unchanged since
 * are left alone (and not listed), and files whose state then the history does not reach are
 * left as they are (and listed).
 */
export function* restoreTreeSteps(
  writes: RestoreWrites,
  key: string,
  at: string,
): Steps<TreeRestoreResult> {
  const files = yield* step(writes.filesUnder(`${key}/`));
  const result: TreeRestoreResult = { restored: [], deleted: [], unknown: [] };
  const states: [string, HistoryVersion | null | "unknown"][] = [];
  for (const file of [...files].sort()) {
    states.push([file, yield* step(writes.stateAt(file, at))]);
  }
  // Deletes first, so that a file restored where a directory stood meanwhile fits.
  for (const [file, state] of states) {
    if (state === "unknown") result.unknown.push(file);
    else if (state === null && (yield* step(writes.versionNow(file))) !== undefined) {
      yield* applyRestoreSteps(writes, file, null, undefined);
      result.deleted.push(file);
    }
  }
  for (const [file, state] of states) {
    if (state === "unknown" || state === null) continue;
    if (yield* isStateNow(writes, file, state)) continue;
    const done = yield* applyRestoreSteps(writes, file, state, undefined);
    result.restored.push({ key: file, version: done.version as number });
  }
  return result;
}

/** A time after every change: the state of a file at it is the file's last recorded state. */
const END_OF_TIME = "9999-12-31T23:59:59.999Z";

/**
 * Whether the file at `key` holds `state`'s text, tags and metadata now. Read from its last
 * history row (every change of a memory file writes one in the change's transaction), so
 * that each engine's restore lookups serve; a history pruned past it answers no.
 */
function* isStateNow(writes: RestoreWrites, key: string, state: HistoryVersion): Steps<boolean> {
  const now = yield* step(writes.stateAt(key, END_OF_TIME));
  return (
    now !== null &&
    now !== "unknown" &&
    now.hash === state.hash &&
    isDeepStrictEqual(now.tags, state.tags) &&
    isDeepStrictEqual(now.metadata, state.metadata)
  );
}
