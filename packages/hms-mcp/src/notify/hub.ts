/**
 * Where the server learns that memory files changed, whoever changed them: this process (each
 * write tool call says so, `written`), another hms-mcp process on the same SQLite files (a poll
 * of the namespace's newest history seq, only while someone listens to it), or another replica
 * on the same PostgreSQL database (LISTEN/NOTIFY: each replica announces its writes). In every
 * case what changed is read from the history after a mark (`StoreApi.changes`), so a listener
 * sees each change once, in order, with its key, whichever way it was learned of.
 */
import type { MemoryChange, StoreEngine } from "@hms/store";
import type { Logger } from "pino";

/** How often a SQLite namespace someone listens to is checked for other processes' writes, in ms. */
export const POLL_MS = 100;

/** Told of each namespace's changes, oldest first. */
export type ChangeListener = (changes: readonly MemoryChange[]) => void;

/** How the replicas of one database tell each other of their writes (PostgreSQL). */
export interface Announcements {
  /** Tells every replica listening that memory files of `namespace` changed. */
  announce(namespace: string): Promise<void>;
  /**
   * Listens for announcements: `onChange(namespace)`, or `onChange(undefined)` when any
   * namespace may have changed (the connection was lost and is back).
   */
  listen(
    onChange: (namespace: string | undefined) => void,
    onError: (error: Error) => void,
  ): Promise<{ close(): Promise<void> }>;
}

/** One namespace someone listens to: its listeners and how far its changes were read. */
interface Watch {
  readonly listeners: Set<ChangeListener>;
  /** The seq of the last change delivered (the mark the next read starts after). */
  mark: number;
  /** A read is running; `again` asks it to read once more when it ends. */
  reading: boolean;
  again: boolean;
}

export class ChangeHub {
  readonly #engine: StoreEngine;
  readonly #log: Logger;
  readonly #announcements: Announcements | undefined;
  readonly #pollMs: number;
  readonly #watches = new Map<string, Watch>();
  #poll: NodeJS.Timeout | undefined;
  #channel: Promise<{ close(): Promise<void> } | undefined> | undefined;
  #closed = false;

  constructor(options: {
    engine: StoreEngine;
    log: Logger;
    announcements?: Announcements | undefined;
    pollMs?: number | undefined;
  }) {
    this.#engine = options.engine;
    this.#log = options.log;
    this.#announcements = options.announcements;
    this.#pollMs = options.pollMs ?? POLL_MS;
  }

  /** How many namespaces someone listens to. */
  get watched(): number {
    return this.#watches.size;
  }

  /**
   * Tells `listener` of every change of `namespace` made from now on (by anyone), until the
   * returned function is called. Resolves once listening: a change made after it is seen.
   */
  async listen(namespace: string, listener: ChangeListener): Promise<() => void> {
    let watch = this.#watches.get(namespace);
    if (watch === undefined) {
      const store = await this.#engine.read(namespace);
      const mark = await store.changes.latest();
      // Another listen of the namespace may have started meanwhile: join it.
      watch = this.#watches.get(namespace);
      if (watch === undefined) {
        watch = { listeners: new Set(), mark, reading: false, again: false };
        this.#watches.set(namespace, watch);
      }
    }
    watch.listeners.add(listener);
    await this.#start();
    const joined = watch;
    return () => {
      joined.listeners.delete(listener);
      if (joined.listeners.size === 0 && this.#watches.get(namespace) === joined) {
        this.#watches.delete(namespace);
        if (this.#watches.size === 0) this.#stopPolling();
      }
    };
  }

  /**
   * A write tool call of this process on `namespace` ended: its listeners here are told now,
   * and on PostgreSQL the other replicas are told to read.
   */
  written(namespace: string): void {
    if (this.#announcements !== undefined) {
      this.#announcements.announce(namespace).catch((error: unknown) => {
        this.#log.warn({ err: error, namespace }, "could not announce a change to other replicas");
      });
    }
    // Once the call's answer is on its way.
    if (this.#watches.has(namespace)) setImmediate(() => this.#read(namespace));
  }

  /** Stops polling and listening; listeners hear nothing more. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#watches.clear();
    this.#stopPolling();
    const channel = await this.#channel;
    this.#channel = undefined;
    await channel?.close();
  }

  /** Polls (SQLite) or listens (PostgreSQL) once someone listens. */
  async #start(): Promise<void> {
    if (this.#closed) return;
    if (this.#announcements === undefined) {
      if (this.#poll === undefined) {
        this.#poll = setInterval(() => {
          for (const namespace of this.#watches.keys()) this.#read(namespace);
        }, this.#pollMs);
        this.#poll.unref();
      }
      return;
    }
    const announcements = this.#announcements;
    // One listening connection, opened at the first listen and kept (reopened if it fails).
    this.#channel ??= announcements
      .listen(
        (namespace) => {
          if (namespace === undefined) for (const name of this.#watches.keys()) this.#read(name);
          else if (this.#watches.has(namespace)) this.#read(namespace);
        },
        (error) => this.#log.warn({ err: error }, "listening for other replicas' changes failed"),
      )
      .catch((error: unknown) => {
        this.#log.warn({ err: error }, "cannot listen for other replicas' changes");
        this.#channel = undefined;
        return undefined;
      });
    await this.#channel;
  }

  #stopPolling(): void {
    clearInterval(this.#poll);
    this.#poll = undefined;
  }

  /** Reads the changes of `namespace` after its mark and tells its listeners. */
  #read(namespace: string): void {
    const watch = this.#watches.get(namespace);
    if (watch === undefined) return;
    if (watch.reading) {
      watch.again = true;
      return;
    }
    watch.reading = true;
    this.#readAll(namespace, watch)
      .catch((error: unknown) => {
        this.#log.debug({ err: error, namespace }, "reading a namespace's changes failed");
      })
      .finally(() => {
        watch.reading = false;
        if (watch.again) {
          watch.again = false;
          this.#read(namespace);
        }
      });
  }

  async #readAll(namespace: string, watch: Watch): Promise<void> {
    const store = await this.#engine.read(namespace);
    const latest = await store.changes.latest();
    // SQLite numbers the history's rows from 1 again once it was emptied (retention, the byte
    // budget): every row it holds now is newer than the mark.
    if (latest < watch.mark) watch.mark = 0;
    if (latest === watch.mark) return;
    for (;;) {
      const changes = await store.changes.after(watch.mark);
      if (changes.length === 0) return;
      watch.mark = (changes[changes.length - 1] as MemoryChange).seq;
      for (const listener of [...watch.listeners]) {
        try {
          listener(changes);
        } catch (error) {
          this.#log.warn({ err: error, namespace }, "a change listener failed");
        }
      }
      if (this.#watches.get(namespace) !== watch) return;
    }
  }
}
