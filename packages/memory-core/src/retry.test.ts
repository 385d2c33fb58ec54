import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, RETRY, type RetryPolicy, withRetries } from "./retry.js";

function policy(overrides: Partial<RetryPolicy>, sleeps: number[]): RetryPolicy {
  return {
    ...DEFAULT_RETRY_POLICY,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  };
}

describe("withRetries", () => {
  it("returns the first result that is not RETRY, without waiting before the first try", async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const result = await withRetries(
      policy({}, sleeps),
      async () => (++calls < 3 ? RETRY : "done"),
      () => "exhausted",
    );
    expect(result).toBe("done");
    expect(calls).toBe(3);
    expect(sleeps).toHaveLength(2);
  });

  it("defaults to 25 attempts, then calls exhausted", async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const result = await withRetries(
      policy({}, sleeps),
      async () => {
        calls++;
        return RETRY;
      },
      () => "exhausted",
    );
    expect(result).toBe("exhausted");
    expect(calls).toBe(25);
    expect(sleeps).toHaveLength(24);
  });

  it("waits a random fraction of a ceiling that doubles from 2 ms up to 200 ms", async () => {
    const sleeps: number[] = [];
    await withRetries(
      policy({ attempts: 10, random: () => 0.5 }, sleeps),
      async () => RETRY,
      () => undefined,
    );
    expect(sleeps).toEqual([1, 2, 4, 8, 16, 32, 64, 100, 100]);
  });

  it("passes the attempt number and lets errors through", async () => {
    const seen: number[] = [];
    await expect(
      withRetries(
        policy({}, []),
        async (n) => {
          seen.push(n);
          if (n === 2) throw new Error("boom");
          return RETRY;
        },
        () => undefined,
      ),
    ).rejects.toThrow("boom");
    expect(seen).toEqual([1, 2]);
  });
});
