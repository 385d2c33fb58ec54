import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkIsoTime } from "./times.js";

describe("checkIsoTime", () => {
  it.each([
    ["2026-07-01T00:00:00Z", "2026-07-01T00:00:00.000Z"],
    ["2026-07-01T09:30Z", "2026-07-01T09:30:00.000Z"],
    ["2026-07-01T09:30:15.5Z", "2026-07-01T09:30:15.500Z"],
    ["2026-07-01T09:30:00+02:00", "2026-07-01T07:30:00.000Z"],
    ["2026-07-01T01:00:00+02:00", "2026-06-30T23:00:00.000Z"],
    ["2026-12-31T23:30:00-01:00", "2027-01-01T00:30:00.000Z"],
    ["2026-07-01T00:00:00-00:00", "2026-07-01T00:00:00.000Z"],
    ["2024-02-29T12:00:00Z", "2024-02-29T12:00:00.000Z"],
    ["2000-02-29T12:00:00Z", "2000-02-29T12:00:00.000Z"],
    ["0000-01-01T00:00:00Z", "0000-01-01T00:00:00.000Z"],
    ["0000-02-29T00:00:00Z", "0000-02-29T00:00:00.000Z"],
    ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
  ])("reads %s as %s", (value, utc) => {
    const check = checkIsoTime(value);
    expect(check).toEqual({ ok: true, utc, ms: Date.parse(utc) });
  });

  it("rounds a fraction finer than a millisecond up, carrying into the next second", () => {
    expect(checkIsoTime("2026-07-01T10:00:00.0001Z")).toMatchObject({
      utc: "2026-07-01T10:00:00.001Z",
    });
    expect(checkIsoTime("2026-07-01T10:00:00.123000000Z")).toMatchObject({
      utc: "2026-07-01T10:00:00.123Z",
    });
    expect(checkIsoTime("2026-07-01T10:00:59.9991Z")).toMatchObject({
      utc: "2026-07-01T10:01:00.000Z",
    });
  });

  it.each([
    ["2026-07-01", "no-timezone"],
    ["2026-07-01T10:00:00", "no-timezone"],
    ["2026-07-01T10:00", "no-timezone"],
    ["2026-07-01T10:00:00.5", "no-timezone"],
    ["", "not-a-time"],
    ["yesterday", "not-a-time"],
    ["7d", "not-a-time"],
    ["2026-07-01 10:00:00Z", "not-a-time"],
    ["2026-07-01t10:00:00z", "not-a-time"],
    ["2026-07-01T10Z", "not-a-time"],
    ["2026-07-01T10:00:00+0200", "not-a-time"],
    ["2026-07-01T10:00:00+02", "not-a-time"],
    ["2026-07-01T10:00:00.Z", "not-a-time"],
    ["2026-07-01T10:00:00.1234567890Z", "not-a-time"],
    ["26-07-01T10:00:00Z", "not-a-time"],
    ["+02026-07-01T10:00:00Z", "not-a-time"],
    ["2026-07-01T10:00:00Z\n", "not-a-time"],
    [" 2026-07-01T10:00:00Z", "not-a-time"],
    ["２０２６-07-01T10:00:00Z", "not-a-time"],
    ["2026-13-01T00:00:00Z", "no-such-time"],
    ["2026-00-01T00:00:00Z", "no-such-time"],
    ["2026-02-29T00:00:00Z", "no-such-time"],
    ["1900-02-29T00:00:00Z", "no-such-time"],
    ["2026-04-31T00:00:00Z", "no-such-time"],
    ["2026-07-00T00:00:00Z", "no-such-time"],
    ["2026-07-01T24:00:00Z", "no-such-time"],
    ["2026-07-01T10:60:00Z", "no-such-time"],
    ["2026-12-31T23:59:60Z", "no-such-time"],
    ["2026-07-01T10:00:00+24:00", "no-such-time"],
    ["2026-07-01T10:00:00+02:60", "no-such-time"],
    ["0000-01-01T00:30:00+01:00", "out-of-range"],
    ["9999-12-31T23:30:00-01:00", "out-of-range"],
  ])("refuses %j: %s", (value, problem) => {
    expect(checkIsoTime(value)).toEqual({ ok: false, problem });
  });

  it("agrees with Date.parse on every time it accepts", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("0000-01-02T00:00:00Z"),
          max: new Date("9999-12-30T00:00:00Z"),
          noInvalidDate: true,
        }),
        fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
        (date, offset) => {
          // The same instant written with an offset of `offset` minutes.
          const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, 23);
          const sign = offset < 0 ? "-" : "+";
          const zone = `${sign}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0")}:${String(Math.abs(offset) % 60).padStart(2, "0")}`;
          const check = checkIsoTime(`${local}${zone}`);
          expect(check).toEqual({ ok: true, utc: date.toISOString(), ms: date.getTime() });
        },
      ),
      { numRuns: 2000 },
    );
  });
});
