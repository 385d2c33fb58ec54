import { describe, expect, it } from "vitest";
import { exactTime, humanBytes, relativeTime } from "./time.js";

const NOW = Date.parse("2026-03-10T12:00:00Z");
const ago = (ms: number) => new Date(NOW - ms).toISOString();

describe("relativeTime", () => {
  it("reads recent times as minutes and hours ago", () => {
    expect(relativeTime(ago(5_000), NOW)).toBe("just now");
    // A server clock slightly ahead of the browser's is still "just now".
    expect(relativeTime(ago(-3_000), NOW)).toBe("just now");
    expect(relativeTime(ago(60_000), NOW)).toBe("1 min ago");
    expect(relativeTime(ago(59 * 60_000), NOW)).toBe("59 min ago");
    expect(relativeTime(ago(3 * 3_600_000), NOW)).toBe("3 h ago");
  });

  it("reads older times as days, then as a date", () => {
    expect(relativeTime(ago(30 * 3_600_000), NOW)).toBe("yesterday");
    expect(relativeTime(ago(4 * 86_400_000), NOW)).toBe("4 days ago");
    expect(relativeTime(ago(40 * 86_400_000), NOW)).toMatch(/\d/);
    expect(relativeTime(ago(40 * 86_400_000), NOW)).not.toMatch(/ago/);
  });

  it("shows what is not a time as it is", () => {
    expect(relativeTime("not a time", NOW)).toBe("not a time");
    expect(exactTime("not a time")).toBe("not a time");
  });

  it("gives the exact time with seconds", () => {
    expect(exactTime("2026-03-10T11:58:07Z")).toMatch(/07/);
  });
});

describe("humanBytes", () => {
  it("uses B, KiB and MiB", () => {
    expect(humanBytes(840)).toBe("840 B");
    expect(humanBytes(12_800)).toBe("12.5 KiB");
    expect(humanBytes(1_258_291)).toBe("1.2 MiB");
  });
});
