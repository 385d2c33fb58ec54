/**
 * What the store's operations share, whichever module holds them: one `StoreContext` per open
 * store (its limits, its prepared statements, its write transaction), and the steps and
 * refusals several operations have in common.
 */
import { StoreError } from "./errors.js";
import { checkInteger, checkPrefix, checkTag, type Limits } from "./limits.js";
import type { Statements } from "./sqlite/statements.js";
import type { Selection } from "./types.js";

export interface StoreContext {
  readonly limits: Limits;
  /** Prepared once, at open. */
  readonly sql: Statements;
  /** Runs `body` as one write transaction; STORAGE_FULL on a full disk (sqlite/writes.ts). */
  write<T>(body: () => T): T;
  /** Runs `body`, a delete, as one write transaction that still gets through on a full disk. */
  free<T>(body: () => T): T;
}

export function now(): string {
  return new Date().toISOString();
}

/**
 * Takes `n` new versions from the store-wide clock (inside a write transaction) and returns
 * the first; the others follow it. Every value is above every version ever written to the
 * store, so no key ever gets a version it had before.
 */
export function nextVersions(ctx: StoreContext, n: number): number {
  const { value } = ctx.sql.tick.get(n) as { value: number };
  return value - n + 1;
}

/** A checked `expectedVersion`, when one is given. */
export function checkExpected(value: number | undefined): number | undefined {
  return value === undefined
    ? undefined
    : checkInteger(value, "expected_version", 1, Number.MAX_SAFE_INTEGER);
}

/** A checked selection; an empty prefix selects everything, as no prefix does. */
export function selectionOf(
  ctx: StoreContext,
  options: Selection,
): { prefix: string | undefined; tag: string | undefined } {
  const prefix = options.prefix === undefined ? undefined : checkPrefix(options.prefix, ctx.limits);
  const tag = options.tag === undefined ? undefined : checkTag(options.tag, ctx.limits);
  return { prefix: prefix || undefined, tag };
}

export function versionConflict(key: string, current: number, expected: number): StoreError {
  return new StoreError(
    "VERSION_CONFLICT",
    `${key} is at version ${current}, not the expected version ${expected}`,
    { key, current_version: current, expected_version: expected },
  );
}

export function notFound(key: string): StoreError {
  return new StoreError("NOT_FOUND", `${key} does not exist`, { key });
}
