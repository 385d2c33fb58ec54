/**
 * One connection's subscriptions (`resources/subscribe`): which memory files and directories
 * it listens to, and the notifications waiting to be sent to it. A subscription to a file's URI
 * hears of that file; to a directory's (`/memories/notes`, or `/memories` for all), of every
 * file under it. Each notification names the file that changed (`params.uri`, which MCP allows
 * to be a sub-resource of the one subscribed to) and how (`_meta["hms-mcp/change"]`).
 *
 * Bounded: a connection holds at most `maxSubscriptions`, and while it does not take what is
 * sent (a stdio reader that does not read, an HTTP client whose event stream is not read or
 * not open) notifications wait coalesced, one per file, at most `maxPending`. Beyond that they
 * collapse into one per subscription, flagged `overflow` (read again: more changed than was
 * told); a connection with an `overflow` hook that overflows again without having taken
 * anything since is given up (HTTP closes the session).
 *
 * A connection hears only of namespaces it may read now (`mayHear`): when its token's grant
 * shrinks (a tokens file reloaded), its subscriptions to namespaces it lost are dropped as
 * their next change is heard, and nothing already waiting for them is sent.
 */
import { CHANGE_META_KEY, type ChangeMeta } from "@hms/protocol";
import type { MemoryChange } from "@hms/store";
import type { Logger } from "pino";
import type { ChangeHub } from "./hub.js";

/** Subscriptions one connection may hold, by default (`--max-subscriptions`). */
export const DEFAULT_MAX_SUBSCRIPTIONS = 100;
/** Notifications that wait for a connection that does not read, at most (one per file). */
export const DEFAULT_MAX_PENDING = 1000;

/** A resources/updated notification's params. */
export interface UpdatedParams {
  readonly uri: string;
  readonly _meta: { readonly [CHANGE_META_KEY]: ChangeMeta };
}

/** How notifications reach one connection. */
export interface Outlet {
  /** Sends one resources/updated notification; resolves once the connection took it. */
  updated(params: UpdatedParams): Promise<void>;
  /** Sends one resources/list_changed notification. */
  listChanged(): Promise<void>;
  /**
   * True while the connection would only buffer what is sent (HTTP: no event stream open, or
   * its client is not reading it). Absent: `updated` itself waits for the connection.
   */
  blocked?(): boolean;
  /** Calls `resume` once, when the connection can take more again (required with `blocked`). */
  onResume?(resume: () => void): void;
  /**
   * Notifications overflowed while the connection did not take them. Absent: they collapse
   * into one per subscription.
   */
  overflow?(): void;
}

/** Why a subscription is refused (the caller turns it into an MCP error). */
export class SubscriptionLimitError extends Error {}

/** The namespace and key a subscription URI names; `key` is a memory file or directory. */
export interface Subscribed {
  readonly namespace: string;
  readonly key: string;
}

/** A notification waiting to be sent: the namespace it tells of, and what changed. */
interface Waiting {
  readonly namespace: string;
  readonly meta: ChangeMeta;
}

/** Whether a change of `changed` is under the subscription to `key` (the file, or under it). */
export function covers(key: string, changed: string): boolean {
  return changed === key || changed.startsWith(`${key}/`);
}

export class Subscriptions {
  readonly #hub: ChangeHub;
  readonly #outlet: Outlet;
  readonly #log: Logger;
  readonly #maxSubscriptions: number;
  readonly #maxPending: number;
  readonly #resourceUri: (namespace: string, key: string) => string;
  readonly #mayHear: (namespace: string) => boolean;
  /** By subscribed URI. */
  readonly #subscribed = new Map<string, Subscribed>();
  /** Per namespace listened to: stops listening. */
  readonly #listening = new Map<string, Promise<() => void>>();
  /** Notifications waiting, by the changed file's URI (the latest change of it wins). */
  readonly #pending = new Map<string, Waiting>();
  /** The namespaces whose list of memories changed since list_changed was last sent. */
  readonly #listChanged = new Set<string>();
  /** Whether the connection took something since notifications last overflowed. */
  #tookSinceOverflow = true;
  #flushing = false;
  #waiting = false;
  #closed = false;

  constructor(options: {
    hub: ChangeHub;
    outlet: Outlet;
    log: Logger;
    resourceUri: (namespace: string, key: string) => string;
    maxSubscriptions?: number | undefined;
    maxPending?: number | undefined;
    /** Whether the connection may read `namespace` now (absent: every namespace, always). */
    mayHear?: ((namespace: string) => boolean) | undefined;
  }) {
    this.#hub = options.hub;
    this.#outlet = options.outlet;
    this.#log = options.log;
    this.#resourceUri = options.resourceUri;
    this.#maxSubscriptions = options.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS;
    this.#maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
    this.#mayHear = options.mayHear ?? (() => true);
  }

  /** How many subscriptions the connection holds. */
  get size(): number {
    return this.#subscribed.size;
  }

  /** How many notifications wait to be sent. */
  get pending(): number {
    return this.#pending.size + (this.#listChanged.size > 0 ? 1 : 0);
  }

  /**
   * Subscribes to `uri` (naming `subscribed`); resolves once every later change is heard.
   * Throws SubscriptionLimitError when the connection holds the most it may.
   */
  async subscribe(uri: string, subscribed: Subscribed): Promise<void> {
    if (this.#closed) return;
    if (!this.#subscribed.has(uri) && this.#subscribed.size >= this.#maxSubscriptions) {
      throw new SubscriptionLimitError(
        `LIMIT_REACHED: this session already holds ${this.#subscribed.size} subscriptions, the ` +
          `most it may (--max-subscriptions ${this.#maxSubscriptions}); unsubscribe from one ` +
          "first, or subscribe to a directory (e.g. /memories) to hear of every file under it",
      );
    }
    const held = this.#subscribed.has(uri);
    this.#subscribed.set(uri, subscribed);
    const { namespace } = subscribed;
    let listening = this.#listening.get(namespace);
    if (listening === undefined) {
      listening = this.#hub.listen(namespace, (changes) => this.#heard(namespace, changes));
      this.#listening.set(namespace, listening);
      listening.catch(() => this.#listening.delete(namespace));
    }
    try {
      await listening;
    } catch (error) {
      // Not listening: the subscription is not held.
      if (!held) this.#subscribed.delete(uri);
      throw error;
    }
  }

  /** Ends the subscription to `uri` (nothing happens if there is none). */
  unsubscribe(uri: string): void {
    const subscribed = this.#subscribed.get(uri);
    if (subscribed === undefined) return;
    this.#subscribed.delete(uri);
    const { namespace } = subscribed;
    if ([...this.#subscribed.values()].some((other) => other.namespace === namespace)) return;
    this.#stopListening(namespace);
  }

  /**
   * Drops every subscription to `namespace`, and what waits to be told of it: the connection
   * may no longer read it.
   */
  #forget(namespace: string): void {
    let dropped = 0;
    for (const [uri, subscribed] of this.#subscribed) {
      if (subscribed.namespace !== namespace) continue;
      this.#subscribed.delete(uri);
      dropped++;
    }
    for (const [uri, waiting] of this.#pending) {
      if (waiting.namespace === namespace) this.#pending.delete(uri);
    }
    this.#listChanged.delete(namespace);
    this.#stopListening(namespace);
    if (dropped > 0) {
      this.#log.info(
        { namespace, subscriptions: dropped },
        "dropped subscriptions of a connection whose token may no longer read their namespace",
      );
    }
  }

  #stopListening(namespace: string): void {
    const listening = this.#listening.get(namespace);
    this.#listening.delete(namespace);
    listening?.then((stop) => stop()).catch(() => {});
  }

  /** Ends every subscription and drops what waits (the connection closed). */
  close(): void {
    this.#closed = true;
    for (const listening of this.#listening.values()) {
      listening.then((stop) => stop()).catch(() => {});
    }
    this.#listening.clear();
    this.#subscribed.clear();
    this.#pending.clear();
    this.#listChanged.clear();
  }

  /** Changes of `namespace` were heard: queue what a subscription covers, then send. */
  #heard(namespace: string, changes: readonly MemoryChange[]): void {
    if (this.#closed || !this.#listening.has(namespace)) return;
    if (!this.#mayHear(namespace)) {
      this.#forget(namespace);
      return;
    }
    const subscriptions = [...this.#subscribed.values()].filter((s) => s.namespace === namespace);
    for (const change of changes) {
      const meta: ChangeMeta = {
        op: change.op,
        key: change.key,
        from_key: change.from_key,
        seq: change.seq,
      };
      // A move changes two files: the one it left and the one it made.
      for (const key of change.from_key === null ? [change.key] : [change.from_key, change.key]) {
        if (subscriptions.some((s) => covers(s.key, key))) {
          const uri = this.#resourceUri(namespace, key);
          this.#pending.delete(uri);
          this.#pending.set(uri, { namespace, meta });
        }
      }
      if (change.op !== "update") this.#listChanged.add(namespace);
    }
    // One read's changes may pass the bound for a moment: they go out now unless it waits.
    if (this.#pending.size > this.#maxPending && this.#waitingOnConnection()) this.#overflow();
    this.#flush();
  }

  /** Whether the connection is not taking what is sent (HTTP: blocked; else a send waits). */
  #waitingOnConnection(): boolean {
    return this.#outlet.blocked?.() ?? this.#flushing;
  }

  #overflow(): void {
    if (this.#outlet.overflow !== undefined && !this.#tookSinceOverflow) {
      this.#log.warn(
        { pending: this.#pending.size },
        "change notifications overflowed: the client does not read them; closing its session",
      );
      this.close();
      this.#outlet.overflow();
      return;
    }
    this.#tookSinceOverflow = false;
    this.#pending.clear();
    for (const [uri, { namespace }] of this.#subscribed) {
      this.#pending.set(uri, { namespace, meta: { overflow: true } });
    }
  }

  /** Sends what waits, one at a time, while the connection takes it. */
  #flush(): void {
    if (this.#flushing || this.#closed) return;
    this.#flushing = true;
    void this.#drain().finally(() => {
      this.#flushing = false;
      // A change heard as the last send ended.
      if (this.pending > 0 && !this.#waiting) this.#flush();
    });
  }

  async #drain(): Promise<void> {
    while (!this.#closed && this.pending > 0) {
      if (this.#outlet.blocked?.() === true && this.#outlet.onResume !== undefined) {
        if (!this.#waiting) {
          this.#waiting = true;
          this.#outlet.onResume(() => {
            this.#waiting = false;
            this.#tookSinceOverflow = true;
            this.#flush();
          });
        }
        return;
      }
      try {
        const next = this.#pending.entries().next();
        if (!next.done) {
          const [uri, { namespace, meta }] = next.value;
          this.#pending.delete(uri);
          // Queued before the connection's grant shrank: told of nothing it may not read.
          if (!this.#mayHear(namespace)) {
            this.#forget(namespace);
            continue;
          }
          await this.#outlet.updated({ uri, _meta: { [CHANGE_META_KEY]: meta } });
          if (this.#outlet.blocked === undefined) this.#tookSinceOverflow = true;
        } else {
          const changed = [...this.#listChanged];
          this.#listChanged.clear();
          for (const namespace of changed) {
            if (!this.#mayHear(namespace)) this.#forget(namespace);
          }
          if (changed.some((namespace) => this.#mayHear(namespace))) {
            await this.#outlet.listChanged();
          }
        }
      } catch (error) {
        // The connection is gone: nothing more can reach it.
        this.#log.debug({ err: error }, "a change notification could not be sent");
        this.close();
        return;
      }
    }
  }
}
