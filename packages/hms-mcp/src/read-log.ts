/**
 * Writes the reads each open store has noted (for `unused`) every half minute, in one short
 * transaction per store. A store also writes them when it closes; a crash loses at most the
 * last half minute of last-read days, which are a hint, not data.
 */
import type { MemoryStore } from "@hms/store";
import type { Logger } from "pino";

const INTERVAL_MS = 30_000;

export class ReadLog {
  readonly #stores = new Set<MemoryStore>();
  readonly #log: Logger;
  readonly #timer: NodeJS.Timeout;

  constructor(log: Logger) {
    this.#log = log;
    this.#timer = setInterval(() => this.flushAll(), INTERVAL_MS);
    this.#timer.unref();
  }

  watch(store: MemoryStore): void {
    this.#stores.add(store);
  }

  flushAll(): void {
    for (const store of [...this.#stores]) {
      if (!store.open) {
        this.#stores.delete(store);
        continue;
      }
      try {
        store.access.flush();
      } catch (error) {
        this.#log.warn(
          { err: error, file: store.file },
          "could not write last-read days; will retry",
        );
      }
    }
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#stores.clear();
  }
}
