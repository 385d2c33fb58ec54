/**
 * Keeps the history of memory files within the configured retention (--keep-versions,
 * --keep-days, --keep-mib): each open store is pruned when it opens and then every few
 * minutes, in steps of a few hundred rows with the event loop free between steps, so pruning
 * never holds the write lock for long or delays calls. The store itself keeps every write
 * within --keep-mib; pruning brings down a store that was over it when it opened (written by
 * an older version, or under a larger --keep-mib). What the history drops is logged here.
 */
import { setImmediate as yieldToCalls } from "node:timers/promises";
import { type HistoryDropEvent, isBusy, type StoreApi } from "@hms/store";
import type { Logger } from "pino";
import { isClosed } from "../runtime/engines.js";

/** How much history to keep; 0 means no bound of that kind. */
export interface Retention {
  readonly keepVersions: number;
  readonly keepDays: number;
  /** MiB of history per namespace (or its live text's size, when more). */
  readonly keepMib: number;
}

/** Bytes in a MiB. */
export const MIB = 1024 * 1024;

const STEP_ROWS = 500;
const INTERVAL_MS = 5 * 60_000;

export class HistoryRetention {
  /** The store of each namespace watched. */
  readonly #stores = new Map<string, StoreApi>();
  readonly #retention: Retention;
  readonly #log: Logger;
  readonly #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(retention: Retention, log: Logger) {
    this.#retention = retention;
    this.#log = log;
    if (this.#bounded) {
      this.#timer = setInterval(() => void this.pruneAll(), INTERVAL_MS);
      this.#timer.unref();
    }
  }

  get #bounded(): boolean {
    const { keepVersions, keepDays, keepMib } = this.#retention;
    return keepVersions > 0 || keepDays > 0 || keepMib > 0;
  }

  /** Prunes `store` now and with the others from then on. */
  watch(namespace: string, store: StoreApi): void {
    if (!this.#bounded || this.#stores.get(namespace) === store) return;
    this.#stores.set(namespace, store);
    void this.pruneAll();
  }

  /** One pass over every open store (a pass already running is awaited instead). */
  pruneAll(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#running ??= this.#pass().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /**
   * Prunes no more: a pass in flight takes no further step, and the promise resolves once it
   * has ended, so the stores can then be closed under it (a step on a closed PostgreSQL pool
   * would fail).
   */
  stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#stores.clear();
    return this.#running ?? Promise.resolve();
  }

  async #pass(): Promise<void> {
    const { keepVersions, keepDays, keepMib } = this.#retention;
    const options = {
      ...(keepVersions > 0 ? { keepVersions } : {}),
      ...(keepDays > 0 ? { keepDays } : {}),
      ...(keepMib > 0 ? { maxBytes: keepMib * MIB } : {}),
      limit: STEP_ROWS,
    };
    for (const [namespace, store] of [...this.#stores]) {
      try {
        let deleted = 0;
        for (;;) {
          await yieldToCalls();
          if (this.#stopped) return;
          if (isClosed(store)) {
            if (this.#stores.get(namespace) === store) this.#stores.delete(namespace);
            break;
          }
          const step = await store.history.prune(options);
          deleted += step;
          // A step of the byte budget may end short of STEP_ROWS with more to drop.
          if (step === 0) break;
        }
        if (deleted > 0) this.#log.debug({ namespace, deleted }, "history pruned");
      } catch (error) {
        // A busy store (another process writing) is pruned on the next pass; nothing a caller
        // waits for failed, so that is no warning. Anything else is.
        if (isBusy(error)) {
          this.#log.debug({ namespace }, "history pruning waits: the store is busy; will retry");
        } else {
          this.#log.warn({ err: error, namespace }, "history pruning failed; will retry");
        }
      }
    }
  }
}

/**
 * An `onHistoryDropped` for the stores of a server: what the history gave up to make room on a
 * full disk is a warning (the operator should know the disk is full); what it dropped to stay
 * within --keep-mib is routine (debug).
 */
export function historyDropLogger(log: Logger): (event: HistoryDropEvent) => void {
  return ({ namespace, reason, changes, bytes, through }) => {
    const what = `${changes} oldest ${changes === 1 ? "change" : "changes"} of the history of memory files (${bytes.toLocaleString("en-US")} bytes, made up to ${through})`;
    if (reason === "disk_full") {
      log.warn(
        { namespace, reason, changes, bytes, through },
        `the disk holding namespace ${namespace}'s store is full: dropped the ${what} to make room for a write`,
      );
    } else {
      log.debug(
        { namespace, reason, changes, bytes, through },
        `dropped the ${what} to keep namespace ${namespace}'s history within --keep-mib`,
      );
    }
  };
}
