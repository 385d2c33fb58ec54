/**
 * How the history stores the text of a version, for every engine. Most edits change one
 * stretch of a file (a `str_replace`, an `insert`; a rename or a delete changes nothing), so a
 * version is kept as the one stretch where it differs from the next newer version of the same
 * file: a splice. A row's text is stored one of three ways:
 *
 * - `full`: the whole text (a deleted file's last version; a version that shares little with
 *   the next; every {@link MAX_RUN}-th version of a long run of splices, so that reading an old
 *   version applies at most that many splices);
 * - `live`: none, because it is the text of the memory as it is now (the newest version of a
 *   file that exists: the store holds that text already);
 * - `delta`: a splice of the text of the newer row it names (`base`): keep `head` code points
 *   from its start and `tail` from its end, and put `text` between them.
 *
 * Older versions depend only on newer ones, so dropping the oldest rows (as retention and the
 * history's byte budget do) never leaves a row that cannot be read. Positions count code
 * points, which both engines' string functions count.
 */
import type { Awaitable } from "./engine.js";
import { type Steps, step } from "./rules/steps.js";

/** How a row's text is kept (see the module's comment). */
export type StoredAs = "full" | "live" | "delta";

/**
 * The most splices in a row going back from a `full` or `live` row: when a version would be
 * one more, it is kept whole instead. Reading a version applies at most this many splices.
 */
export const MAX_RUN = 64;

/**
 * A version is kept as a splice only when the splice is at most this share of its whole text;
 * a version that shares less with the next is kept whole (a splice would save little).
 */
export const MAX_SPLICE_SHARE = 0.5;

/** The stretch where `older` differs from `newer`, in code points of `older`. */
export interface Splice {
  /** Code points `older` shares with `newer` from the start. */
  readonly head: number;
  /** Code points `older` shares with `newer` from the end (not overlapping `head`). */
  readonly tail: number;
  /** What `older` has between them. */
  readonly middle: string;
}

/** The splice that turns `newer` back into `older`. */
export function spliceOf(older: string, newer: string): Splice {
  const shortest = Math.min(older.length, newer.length);
  let start = 0;
  while (start < shortest && older.charCodeAt(start) === newer.charCodeAt(start)) start++;
  // Never split a surrogate pair: a shared stretch never ends on the first half of one.
  if (start > 0 && isHigh(older.charCodeAt(start - 1))) start--;
  let end = 0;
  while (
    end < shortest - start &&
    older.charCodeAt(older.length - 1 - end) === newer.charCodeAt(newer.length - 1 - end)
  ) {
    end++;
  }
  if (end > 0 && isLow(older.charCodeAt(older.length - end))) end--;
  const middle = older.slice(start, older.length - end);
  // Without surrogates (most texts), a code point is one UTF-16 unit: no need to count.
  const plain = !SURROGATE.test(older);
  return {
    head: plain ? start : codePoints(older, 0, start),
    tail: plain ? end : codePoints(older, older.length - end, older.length),
    middle,
  };
}

/** `base` with `splice` applied: its first `head` and last `tail` code points around `middle`. */
export function applySplice(base: string, splice: Splice): string {
  const plain = !SURROGATE.test(base);
  const start = plain ? splice.head : unitsFromStart(base, splice.head);
  const end = plain ? base.length - splice.tail : unitsFromEnd(base, splice.tail);
  return base.slice(0, start) + splice.middle + base.slice(end);
}

/** Any UTF-16 surrogate: a text without one counts code points as units. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** A history row as far as its text goes. */
export interface StoredText {
  readonly key: string;
  readonly version: number;
  readonly hash: string;
  readonly stored: StoredAs;
  readonly text: string;
  readonly base: number | null;
  readonly head: number | null;
  readonly tail: number | null;
}

/** What reading a version's text looks up: another row, and a memory's text now. */
export interface TextReads<R extends StoredText> {
  /** The history row `seq`, or undefined when it was dropped. */
  row(seq: number): Awaitable<R | undefined>;
  /** The text of the memory at `key` if it is at `version` with `hash`, else undefined. */
  live(key: string, version: number, hash: string): Awaitable<string | undefined>;
}

/**
 * The text `row` stands for, following its splices to a whole text. Undefined when a row it
 * needs is gone or a `live` row's memory has moved on (a write that bypassed the history).
 */
export function* textSteps<R extends StoredText>(
  row: R,
  reads: TextReads<R>,
): Steps<string | undefined> {
  const splices: Splice[] = [];
  let current: R | undefined = row;
  // A cycle cannot be written (a base is always a newer row); the bound guards a damaged file.
  for (let hops = 0; current.stored === "delta"; hops++) {
    if (current.base === null || hops > 10 * MAX_RUN) return undefined;
    splices.push({ head: current.head ?? 0, tail: current.tail ?? 0, middle: current.text });
    current = yield* step(reads.row(current.base));
    if (current === undefined) return undefined;
  }
  let text =
    current.stored === "full"
      ? current.text
      : yield* step(reads.live(current.key, current.version, current.hash));
  if (text === undefined) return undefined;
  for (let at = splices.length - 1; at >= 0; at--) {
    text = applySplice(text, splices[at] as Splice);
  }
  return text;
}

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** Code points in `text.slice(from, to)` (a lone surrogate counts as one). */
function codePoints(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = from; at < to; at++) {
    count++;
    if (isHigh(text.charCodeAt(at)) && at + 1 < to && isLow(text.charCodeAt(at + 1))) at++;
  }
  return count;
}

/** The UTF-16 index after the first `points` code points of `text`. */
function unitsFromStart(text: string, points: number): number {
  let at = 0;
  for (let n = 0; n < points && at < text.length; n++) {
    at += isHigh(text.charCodeAt(at)) && isLow(text.charCodeAt(at + 1)) ? 2 : 1;
  }
  return at;
}

/** The UTF-16 index before the last `points` code points of `text`. */
function unitsFromEnd(text: string, points: number): number {
  let at = text.length;
  for (let n = 0; n < points && at > 0; n++) {
    at -= isLow(text.charCodeAt(at - 1)) && at > 1 && isHigh(text.charCodeAt(at - 2)) ? 2 : 1;
  }
  return at;
}
