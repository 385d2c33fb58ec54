/**
 * ISO 8601 times with a timezone, as recall's time filters take them (`modified_after`,
 * `modified_before`): read strictly, the same way here and in the Python package
 * (`hms_memory_tool.paths.check_iso_time`), so that both languages accept the same strings and
 * mean the same instant by each.
 *
 * Accepted: `YYYY-MM-DDTHH:MM`, optionally `:SS` and then optionally a fraction of 1 to 9
 * digits, followed by `Z` or an offset `+HH:MM` / `-HH:MM` (the forms of RFC 3339, seconds
 * optional). ASCII digits only, an upper-case `T` and `Z`. The fields must name a real time in
 * the proleptic Gregorian calendar: months 01-12, days that the month has, hours 00-23, minutes
 * and seconds 00-59 (no leap second), offsets up to 23:59.
 *
 * The instant is kept to the millisecond, a finer fraction rounded up: stored times have
 * milliseconds, so `t >= bound` and `t < bound` mean the same for the rounded bound as for the
 * exact one. Instants outside the years 0000 to 9999 in UTC are refused: the store compares
 * times as text of that fixed width.
 */

/** Why a string is not an accepted time. */
export type IsoTimeProblem =
  /** Not of the form at all. */
  | "not-a-time"
  /** A date, or a date and time, without `Z` or an offset. */
  | "no-timezone"
  /** Of the form, but a field is out of range (month 13, February 30, hour 24, second 60...). */
  | "no-such-time"
  /** A real time whose instant falls outside the years 0000 to 9999 in UTC. */
  | "out-of-range";

/** The answer of {@link checkIsoTime}. */
export type IsoTimeCheck =
  | {
      readonly ok: true;
      /** The instant as the store writes times: `YYYY-MM-DDTHH:MM:SS.sssZ`, UTC. */
      readonly utc: string;
      /** Milliseconds since 1970-01-01T00:00:00Z. */
      readonly ms: number;
    }
  | { readonly ok: false; readonly problem: IsoTimeProblem };

const TIME =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:[0-9]{2})?$/;
const DATE_ONLY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const FIRST_MS = daysFromCivil(0, 1, 1) * DAY_MS;
const LAST_MS = daysFromCivil(10_000, 1, 1) * DAY_MS - 1;

/** Reads `value` as an ISO 8601 time with a timezone (see the module documentation). */
export function checkIsoTime(value: string): IsoTimeCheck {
  const match = TIME.exec(value);
  if (match === null) {
    return { ok: false, problem: DATE_ONLY.test(value) ? "no-timezone" : "not-a-time" };
  }
  const [, y, mo, d, h, mi, s, fraction, zone] = match as unknown as (string | undefined)[];
  if (zone === undefined) return { ok: false, problem: "no-timezone" };
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  const offsetHours = zone === "Z" ? 0 : Number(zone.slice(1, 3));
  const offsetMinutes = zone === "Z" ? 0 : Number(zone.slice(4, 6));
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    offsetHours > 23 ||
    offsetMinutes > 59
  ) {
    return { ok: false, problem: "no-such-time" };
  }
  // Nanoseconds, rounded up to whole milliseconds.
  const nanos = fraction === undefined ? 0 : Number(fraction.padEnd(9, "0"));
  const millis = Math.ceil(nanos / 1_000_000);
  const sign = zone.startsWith("-") ? -1 : 1;
  const ms =
    daysFromCivil(year, month, day) * DAY_MS +
    ((hour * 60 + minute) * 60 + second) * 1000 +
    millis -
    sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  if (ms < FIRST_MS || ms > LAST_MS) return { ok: false, problem: "out-of-range" };
  return { ok: true, utc: formatUtc(ms), ms };
}

/** Days of `month` (1-12) in `year`, leap years as the proleptic Gregorian calendar has them. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days from 1970-01-01 to the given date (proleptic Gregorian; any year). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** `ms` (within the years 0000 to 9999) as `YYYY-MM-DDTHH:MM:SS.sssZ`. */
function formatUtc(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  // civil_from_days: the date of a day count.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const millis = rest - second * 1000;
  const pad = (n: number, width: number) => String(n).padStart(width, "0");
  return (
    `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T` +
    `${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(millis, 3)}Z`
  );
}
