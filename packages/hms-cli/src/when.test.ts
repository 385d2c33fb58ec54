import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { pointInTime } from "./when.js";

const NOW = Date.parse("2026-07-08T12:00:00.000Z");

describe("pointInTime (hms recall --since, --before)", () => {
  it.each([
    ["30m", "2026-07-08T11:30:00.000Z"],
    ["12h", "2026-07-08T00:00:00.000Z"],
    ["7d", "2026-07-01T12:00:00.000Z"],
    ["2w", "2026-06-24T12:00:00.000Z"],
    ["0d", "2026-07-08T12:00:00.000Z"],
  ])("reads the duration %s back from now", (value, time) => {
    expect(pointInTime(value, NOW)).toBe(time);
  });

  it("passes an ISO 8601 time with a timezone on as it is (hms-mcp reads it)", () => {
    expect(pointInTime("2026-07-01T00:00:00Z", NOW)).toBe("2026-07-01T00:00:00Z");
    expect(pointInTime("2026-07-01T09:30+02:00", NOW)).toBe("2026-07-01T09:30+02:00");
  });

  it.each([
    ["7 days", "it is neither a duration nor a time"],
    ["7D", "it is neither a duration nor a time"],
    ["-7d", "it is neither a duration nor a time"],
    ["1.5d", "it is neither a duration nor a time"],
    ["yesterday", "it is neither a duration nor a time"],
    ["2026-07-01", "it has no timezone"],
    ["2026-07-01T10:00:00", "it has no timezone"],
    ["2026-02-30T00:00:00Z", "it is not a time hms can use"],
    ["999999w", "it reaches back before the year 0000"],
    ["99999999d", "it reaches back before the year 0000"],
    [`${"9".repeat(30)}d`, "it reaches back before the year 0000"], // not even a Date
  ])("refuses %j, saying why", (value, why) => {
    expect(() => pointInTime(value, NOW)).toThrow(InvalidArgumentError);
    expect(() => pointInTime(value, NOW)).toThrow(why);
  });
});
