/** How compare-and-set conflicts are retried. */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 25). */
  attempts: number;
  /** Upper bound of the first backoff, in milliseconds (default 2). Doubles each retry. */
  baseDelayMs: number;
  /** Largest backoff upper bound, in milliseconds (default 200). */
  maxDelayMs: number;
  /** Uniform random number in [0, 1), for jitter (default `Math.random`). */
  random: () => number;
  /** Waits `ms` milliseconds (default: a timer). */
  sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 25,
  baseDelayMs: 2,
  maxDelayMs: 200,
  random: Math.random,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Returned by an attempt that lost a compare-and-set race and should run again. */
export const RETRY: unique symbol = Symbol("retry");

/**
 * Runs `attempt` until it returns something other than {@link RETRY}, waiting a jittered,
 * exponentially growing time between tries ("full jitter": uniform in [0, min(max, base·2^n))
 * before retry n+1). After `policy.attempts` lost races, returns (or throws) `exhausted()`.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  attempt: (attemptNumber: number) => Promise<T | typeof RETRY>,
  exhausted: () => T,
): Promise<T> {
  for (let n = 0; n < policy.attempts; n++) {
    const result = await attempt(n + 1);
    if (result !== RETRY) return result;
    if (n + 1 < policy.attempts) {
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** n);
      await policy.sleep(policy.random() * ceiling);
    }
  }
  return exhausted();
}
