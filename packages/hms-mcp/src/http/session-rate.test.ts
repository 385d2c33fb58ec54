import { describe, expect, it } from "vitest";
import { SessionRate } from "./session-rate.js";

describe("SessionRate", () => {
  it("lets a client open a burst of twice its rate, then one per 1/rate seconds", () => {
    const rate = new SessionRate(2);
    const t = 1_000_000;
    expect([1, 2, 3, 4, 5].map(() => rate.take("a", t))).toEqual([true, true, true, true, false]);
    expect(rate.retryAfter("a")).toBe(1);
    expect(rate.take("a", t + 250)).toBe(false);
    expect(rate.take("a", t + 500)).toBe(true);
  });

  it("keeps clients apart: one client's flood never refuses another's session", () => {
    const rate = new SessionRate(1);
    const t = 5_000;
    while (rate.take("flood", t)) {
      // drain the flooding client's bucket
    }
    expect(rate.take("flood", t)).toBe(false);
    expect(rate.take("other", t)).toBe(true);
  });
});
