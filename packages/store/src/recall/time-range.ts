/**
 * Recall's time filter: `modifiedAfter` and `modifiedBefore` (the contract's `modified_after`
 * and `modified_before`), checked and put in the form the store writes `updated_at` in, so
 * that both engines compare them with a memory's last change as plain text. Both engines
 * refuse with the same messages.
 */
import { checkIsoTime } from "@hms/memory-paths";
import { StoreError } from "../errors.js";

/** A checked time range: memories last changed at or after `after` and before `before`. */
export interface TimeRange {
  /** Inclusive lower bound, `YYYY-MM-DDTHH:MM:SS.sssZ`, or undefined for none. */
  readonly after: string | undefined;
  /** Exclusive upper bound, in the same form, or undefined for none. */
  readonly before: string | undefined;
}

/** The example every refusal shows. */
const EXAMPLE = "such as 2026-07-01T00:00:00Z or 2026-07-01T09:30:00+02:00";

/**
 * The time range of a recall: `modifiedAfter` (inclusive) and `modifiedBefore` (exclusive),
 * ISO 8601 times with a timezone (`checkIsoTime` of @hms/memory-paths), each optional.
 * INVALID_ARGUMENT when one is not such a time, or when `modifiedAfter` is later than
 * `modifiedBefore` (equal ones select nothing, and are allowed).
 */
export function checkTimeRange(options: {
  readonly modifiedAfter?: unknown;
  readonly modifiedBefore?: unknown;
}): TimeRange {
  const after = checkBound(options.modifiedAfter, "modified_after");
  const before = checkBound(options.modifiedBefore, "modified_before");
  if (after !== undefined && before !== undefined && after.ms > before.ms) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `modified_after ${after.given} is later than modified_before ${before.given}, so no ` +
        "memory could match: give an earlier modified_after or a later modified_before",
    );
  }
  return { after: after?.utc, before: before?.utc };
}

function checkBound(
  value: unknown,
  name: string,
): { given: string; utc: string; ms: number } | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `${name} must be a string: an ISO 8601 time with a timezone, ${EXAMPLE}`,
    );
  }
  const check = checkIsoTime(value);
  if (check.ok) return { given: value, utc: check.utc, ms: check.ms };
  // A string of the time's form is ASCII and short, so it is safe to repeat.
  switch (check.problem) {
    case "no-timezone":
      throw new StoreError(
        "INVALID_ARGUMENT",
        `${name} has no timezone: add Z for UTC (2026-07-01T00:00:00Z) or an offset such as +02:00`,
      );
    case "no-such-time":
      throw new StoreError(
        "INVALID_ARGUMENT",
        `${name} ${value} is not a real time: a month, day, hour, minute, second or offset is out of range`,
      );
    case "out-of-range":
      throw new StoreError(
        "INVALID_ARGUMENT",
        `${name} ${value} falls outside the years 0000 to 9999 in UTC`,
      );
    default:
      throw new StoreError(
        "INVALID_ARGUMENT",
        `${name} must be an ISO 8601 time with a timezone, ${EXAMPLE}`,
      );
  }
}
