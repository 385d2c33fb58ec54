/**
 * Writes the reads each open store has noted (for `unused`) every half minute, in one short
 * transaction per store. A store also writes them when it closes; a crash loses at most the
 * last half minute of last-read days, which are a hint, not data.
 */
import type { StoreApi } from "@hms/store";
import type { Logger } from "pino";
import { isClosed } from "./engines.js";

const INTERVAL_MS = 30_000;

export class ReadLog {
  /** The store of each namespace watched. */
  readonly #stores = new Map<string, StoreApi>();
  readonly #log: Logger;
  readonly #timer: NodeJS.Timeout;

  constructor(log: Logger) {
    this.#log = log;
    this.#timer = setInterval(() => this.flushAll(), INTERVAL_MS);
    this.#timer.unref();
  }

  watch(namespace: string, store: StoreApi): void {
    this.#stores.set(namespace, store);
  }

  flushAll(): void {
    for (const [namespace, store] of [...this.#stores]) {
      if (isClosed(store)) {
        if (this.#stores.get(namespace) === store) this.#stores.delete(namespace);
        continue;
      }
      const failed = (error: unknown) =>
        this.#log.warn({ err: error, namespace }, "could not write last-read days; will retry");
      try {
        const written = store.access.flush();
        if (written instanceof Promise) written.catch(failed);
      } catch (error) {
        failed(error);
      }
    }
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#stores.clear();
  }
}
