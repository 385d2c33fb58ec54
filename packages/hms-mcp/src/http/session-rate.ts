/**
 * How fast one token may open sessions: a token bucket per client (token). Each new session
 * costs the server an MCP server object and a transport, so a client opening thousands takes
 * CPU from every other client even when the session caps evict its own; past this rate its
 * initialize requests are refused at once with 429, which costs nothing.
 */
export class SessionRate {
  /** Tokens left and when they were counted, per client; full buckets are forgotten. */
  readonly #buckets = new Map<string, { left: number; at: number }>();
  readonly #perSecond: number;
  readonly #burst: number;

  /** `perSecond` new sessions per client, with bursts of up to twice that. */
  constructor(perSecond: number) {
    this.#perSecond = perSecond;
    this.#burst = perSecond * 2;
  }

  /** Whether `client` may open a session now (and counts it). */
  take(client: string, now = Date.now()): boolean {
    const bucket = this.#buckets.get(client) ?? { left: this.#burst, at: now };
    const left = Math.min(this.#burst, bucket.left + ((now - bucket.at) / 1000) * this.#perSecond);
    if (left < 1) {
      this.#buckets.set(client, { left, at: now });
      return false;
    }
    this.#buckets.set(client, { left: left - 1, at: now });
    this.#forgetFull(now);
    return true;
  }

  /** Seconds until `client` may open a session again (at least 1, for Retry-After). */
  retryAfter(client: string): number {
    const bucket = this.#buckets.get(client);
    if (bucket === undefined) return 1;
    return Math.max(1, Math.ceil((1 - bucket.left) / this.#perSecond));
  }

  // A bucket that has refilled is the same as none: dropping them keeps the map as small as
  // the set of clients opening sessions right now.
  #forgetFull(now: number): void {
    if (this.#buckets.size < 1024) return;
    for (const [client, bucket] of this.#buckets) {
      if (bucket.left + ((now - bucket.at) / 1000) * this.#perSecond >= this.#burst) {
        this.#buckets.delete(client);
      }
    }
  }
}
