/**
 * The HTTP sessions of a server, grouped by the client that opened them (a key derived from
 * its bearer token). A client over its own cap loses one of its own sessions (one it never
 * used first, else its least recently used), so no client can evict another's; the server as a whole refuses new sessions once full. Sessions
 * nobody used for the idle timeout are closed.
 */

/** What the registry needs of a session: a way to close it, and whether it streams. */
export interface ClosableSession {
  close(): Promise<void>;
  /** True while the session is in use without requests (an event stream open): never idle. */
  streaming?(): boolean;
}

export interface SessionLimits {
  /** Most sessions one client (one token) keeps; its least recently used is closed to make room. */
  readonly perClient: number;
  /** Most sessions of all clients; beyond it a new session is refused. */
  readonly total: number;
  /** A session not used for this long is closed, in ms. */
  readonly idleMs: number;
}

/**
 * Why the server closes a session: its client is over its cap, nobody used it for the idle
 * timeout, or its token is no longer in the tokens file.
 */
export type EvictReason = "cap" | "idle" | "revoked";

interface Entry<S> {
  readonly session: S;
  readonly client: string;
  lastUsed: number;
  /** Whether a request came on the session after the one that opened it. */
  used: boolean;
}

export class SessionRegistry<S extends ClosableSession> {
  // Insertion order is use order: the first entry is the least recently used.
  readonly #byId = new Map<string, Entry<S>>();
  readonly #countByClient = new Map<string, number>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(
    private readonly limits: SessionLimits,
    private readonly onEvict: (id: string, client: string, why: EvictReason) => void = () => {},
  ) {
    this.#sweeper = setInterval(() => this.closeIdle(), Math.min(limits.idleMs, 60_000));
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#byId.size;
  }

  /** Whether a new session can be opened: false once the server holds `total` sessions. */
  hasRoom(client: string): boolean {
    // A client at its own cap can always open one more: it replaces its own oldest.
    return this.#byId.size < this.limits.total || this.countOf(client) >= this.limits.perClient;
  }

  countOf(client: string): number {
    return this.#countByClient.get(client) ?? 0;
  }

  /** The session `id` if `client` opened it, marked as just used. */
  use(id: string, client: string, now = Date.now()): S | undefined {
    const entry = this.#byId.get(id);
    if (entry === undefined || entry.client !== client) return undefined;
    if (now - entry.lastUsed >= this.limits.idleMs && entry.session.streaming?.() !== true) {
      // Expired, though the sweep has not come by yet.
      this.#evict(id, "idle");
      return undefined;
    }
    entry.lastUsed = now;
    entry.used = true;
    this.#byId.delete(id);
    this.#byId.set(id, entry);
    return entry.session;
  }

  /** Adds a session, closing `client`'s least recently used ones beyond its cap. */
  add(id: string, client: string, session: S, now = Date.now()): void {
    this.#byId.set(id, { session, client, lastUsed: now, used: false });
    this.#countByClient.set(client, this.countOf(client) + 1);
    while (this.countOf(client) > this.limits.perClient) {
      const oldest = this.#oldestOf(client, id);
      if (oldest === undefined) break;
      this.#evict(oldest, "cap");
    }
    // A client at its cap may have pushed the total one over: close its own oldest too.
    while (this.#byId.size > this.limits.total) {
      const oldest = this.#oldestOf(client, id);
      if (oldest === undefined) break;
      this.#evict(oldest, "cap");
    }
  }

  /** Forgets a session that closed itself (DELETE or transport close). */
  remove(id: string): void {
    const entry = this.#byId.get(id);
    if (entry === undefined) return;
    this.#byId.delete(id);
    const left = this.countOf(entry.client) - 1;
    if (left > 0) this.#countByClient.set(entry.client, left);
    else this.#countByClient.delete(entry.client);
  }

  /** Every session, with its id. */
  *entries(): IterableIterator<[string, S]> {
    for (const [id, entry] of [...this.#byId]) yield [id, entry.session];
  }

  /** Closes the session `id` (if there is one) for `why`. */
  close(id: string, why: EvictReason): void {
    this.#evict(id, why);
  }

  /** Closes every session unused for the idle timeout. */
  closeIdle(now = Date.now()): void {
    for (const [id, entry] of [...this.#byId]) {
      // Use order: the first entry still fresh means every later one is too.
      if (now - entry.lastUsed < this.limits.idleMs) break;
      if (entry.session.streaming?.() === true) {
        // Listening to its event stream: in use now.
        entry.lastUsed = now;
        this.#byId.delete(id);
        this.#byId.set(id, entry);
        continue;
      }
      this.#evict(id, "idle");
    }
  }

  /** Closes every session and stops the idle sweep. */
  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    const sessions = [...this.#byId.values()].map((entry) => entry.session);
    for (const id of [...this.#byId.keys()]) this.remove(id);
    await Promise.all(sessions.map((session) => session.close().catch(() => {})));
  }

  /**
   * The session of `client` to close first: the least recently used of those never used since
   * they were opened (a flood of new sessions replaces itself, not the client's working
   * sessions), else its least recently used.
   */
  #oldestOf(client: string, except: string): string | undefined {
    let oldest: string | undefined;
    for (const [id, entry] of this.#byId) {
      if (entry.client !== client || id === except) continue;
      if (!entry.used) return id;
      oldest ??= id;
    }
    return oldest;
  }

  #evict(id: string, why: EvictReason): void {
    const entry = this.#byId.get(id);
    if (entry === undefined) return;
    this.remove(id);
    this.onEvict(id, entry.client, why);
    void entry.session.close().catch(() => {});
  }
}
