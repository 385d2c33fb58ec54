/**
 * A point in time as `hms recall --since` and `--before` take it: a duration back from now
 * (`30m`, `12h`, `7d`, `2w`) or an ISO 8601 time with a timezone (`2026-07-01T00:00:00Z`, as
 * hms-mcp's recall takes it). Answers the ISO time to send.
 */
import { checkIsoTime } from "@hms/memory-paths";
import { InvalidArgumentError } from "commander";

const UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;
const DURATION = /^([0-9]+)([mhdw])$/;

/** The earliest time hms-mcp takes: the start of the year 0000. */
const EARLIEST = Date.parse("0000-01-01T00:00:00.000Z");

const HOW =
  "give a duration back from now (30m, 12h, 7d, 2w) or an ISO 8601 time with a timezone " +
  "(2026-07-01T00:00:00Z, 2026-07-01T09:30:00+02:00)";

/** `value` as an ISO time: `now` minus a duration, or the ISO time given; refused otherwise. */
export function pointInTime(value: string, now: number = Date.now()): string {
  const duration = DURATION.exec(value);
  if (duration !== null) {
    const [, amount, unit] = duration as unknown as [string, string, keyof typeof UNITS];
    // Checked as a number first: a time far enough back is not even a Date.
    const then = now - Number(amount) * UNITS[unit];
    if (!(then >= EARLIEST)) {
      throw new InvalidArgumentError("it reaches back before the year 0000: give a shorter one");
    }
    return new Date(then).toISOString();
  }
  const check = checkIsoTime(value);
  if (check.ok) return value;
  if (check.problem === "no-timezone") {
    throw new InvalidArgumentError(
      "it has no timezone: add Z for UTC (2026-07-01T00:00:00Z) or an offset such as +02:00",
    );
  }
  if (check.problem === "no-such-time" || check.problem === "out-of-range") {
    throw new InvalidArgumentError(
      "it is not a time hms can use (a field is out of range, or it falls outside the years 0000 to 9999)",
    );
  }
  throw new InvalidArgumentError(`it is neither a duration nor a time: ${HOW}`);
}
