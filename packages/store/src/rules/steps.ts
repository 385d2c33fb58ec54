/**
 * One sequence of checks for a synchronous engine (SQLite) and an asynchronous one
 * (PostgreSQL). A rule that needs to look something up is written once, as a generator that
 * hands each lookup's answer (a value or a Promise of one) to `yield* step(...)`; each engine
 * runs it with its own driver: `runSync` for SQLite, which never waits, `runAsync` for
 * PostgreSQL, which awaits each answer.
 */
import type { Awaitable } from "../engine.js";

/** A sequence of lookups that ends with a result of type `R` (or a refusal, thrown). */
export type Steps<R> = Generator<unknown, R, unknown>;

/** One lookup of a sequence: gives back its answer, once the driver has it. */
export function* step<T>(answer: Awaitable<T>): Generator<unknown, T, unknown> {
  return (yield answer) as T;
}

/** Runs `steps` on a synchronous engine: every answer must already be there. */
export function runSync<R>(steps: Steps<R>): R {
  let next = steps.next();
  while (!next.done) {
    if (next.value instanceof Promise) {
      throw new TypeError("a synchronous engine's lookup answered with a Promise");
    }
    next = steps.next(next.value);
  }
  return next.value;
}

/** Runs `steps` on an asynchronous engine, awaiting each answer (a failed lookup throws inside). */
export async function runAsync<R>(steps: Steps<R>): Promise<R> {
  let next = steps.next();
  while (!next.done) {
    let answer: unknown;
    try {
      answer = await next.value;
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(answer);
  }
  return next.value;
}
