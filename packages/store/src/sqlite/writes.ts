/**
 * The store's write transactions, with what every write needs around it: a full disk
 * reported as STORAGE_FULL (after what can give way has given way: the history's oldest
 * changes, then, for a delete, the spare file, disk-full.ts), the pages a write freed given
 * back, and the WAL trimmed once the store is idle (growth.ts).
 */
import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import { type SqliteDatabase, writeTransaction } from "./database.js";
import { RESERVE_BYTES, Reserve, storageFull } from "./disk-full.js";
import { isDiskFull, pragma } from "./driver.js";
import {
  freePageReclaimer,
  IdleUpkeep,
  indexBytes,
  mergeIndexStep,
  optimizeIndex,
  PAGE_BYTES,
} from "./growth.js";

/** What the store's other parts add to its write transactions (the history's budget). */
export interface WriteHooks {
  /** About how many bytes {@link makeRoom} could free now, in all. */
  roomToMake(): number;
  /**
   * Inside a write transaction, when a write found the disk full: frees about `bytes` (or all
   * it can). The write is tried again after each.
   */
  makeRoom(bytes: number): void;
  /** After each write transaction: whether it committed. */
  ended(committed: boolean): void;
}

const NO_HOOKS: WriteHooks = { roomToMake: () => 0, makeRoom: () => {}, ended: () => {} };

/**
 * Bytes the hooks free per round for a write on a full disk. Less than this in all is not
 * worth giving up: the write would most likely still not fit.
 */
export const ROOM_BYTES = 1024 * 1024;

/**
 * Room on the disk, against the full-text index's size, that rewriting the index takes: its
 * new copy goes to the WAL before the old one is freed.
 */
const INDEX_ROOM_FACTOR = 1.25;

/** Free pages of the file given back to the disk per step for a write on a full disk (1 MiB). */
export const ROOM_PAGES = ROOM_BYTES / PAGE_BYTES;

export class Writes {
  readonly #db: SqliteDatabase;
  readonly #reserve: Reserve;
  readonly #trimmer: IdleUpkeep;
  readonly #hooks: WriteHooks;
  readonly #reclaimFreePages: () => void;
  /** The store's folder; undefined for a store in memory. */
  readonly #dir: string | undefined;
  /** Whether the full-text index was rewritten (or found too big to be) since the last delete. */
  #indexOptimized = false;

  /** For the open store `db` in `file`; makes the spare file if there is room for it. */
  constructor(db: SqliteDatabase, file: string, hooks: WriteHooks = NO_HOOKS) {
    this.#db = db;
    this.#reserve = new Reserve(file);
    this.#trimmer = new IdleUpkeep(db, () => this.#mergeIndex());
    this.#hooks = hooks;
    this.#reclaimFreePages = freePageReclaimer(db);
    this.#dir = this.#reserve.file === undefined ? undefined : dirname(file);
    this.#reserve.ensure();
    // Opening may have written (migrations, the namespace claim): trim that too once idle.
    this.#trimmer.wrote();
  }

  /**
   * Runs `body` as one write transaction. If the disk is full, gives the WAL's space back and
   * tries again, then lets the hooks make room (the history's oldest changes) and tries again
   * as long as they free something; STORAGE_FULL when they have nothing left.
   */
  write<T>(body: () => T): T {
    for (let round = 0; ; round++) {
      try {
        return this.#run(body);
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        if (!this.#makeRoom(round, false)) throw storageFull(false);
      }
    }
  }

  /**
   * Runs `body`, a delete, as one write transaction. If the disk is full, makes room as
   * {@link write} does; when nothing is left to drop, releases the spare file and tries once
   * more. Then checkpoints and truncates the WAL so the space the delete freed goes back to
   * the disk, and makes the spare file again if there is room.
   */
  free<T>(body: () => T): T {
    let released = false;
    for (let round = 0; ; round++) {
      try {
        const result = this.#run(body);
        // What it deleted is left in the full-text index until a rewrite drops it.
        this.#indexOptimized = false;
        if (released) this.#trimmer.trim();
        this.#reserve.ensure();
        return result;
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        if (this.#makeRoom(round, true)) continue;
        if (released || !this.#reserve.release()) throw storageFull(true);
        released = true;
      }
    }
  }

  /** Stops the idle timer; call before closing the database. */
  close(): void {
    this.#trimmer.stop();
  }

  /**
   * Makes room for a write that found the disk full, its `round`-th time. Each time, the WAL's
   * frames go into the file and the WAL is cut back (the failed write grew it); the first
   * time, that is all. After that: free pages of the file go back to the disk, or, when there
   * are none, the full-text index is rewritten, which drops what deleted memories left in it
   * and loses nothing (for a write other than a delete, once per delete, when the disk has
   * room for a copy of the index), then the hooks drop {@link ROOM_BYTES} (the history's
   * oldest changes), and the pages all that frees go back. Giving pages back moves
   * pages, which takes room in the WAL, so it goes {@link ROOM_PAGES} at a time, each step its
   * own transaction (which keeps the pages it frees) followed by a cut of the WAL. False when
   * nothing is left to free.
   *
   * On a disk too full even for a step, the spare file may be released for it: always for a
   * delete (`deleting`), which is what it is for; for another write only when what can be
   * freed pays it back. Once released, the hooks drop more until the spare file is made
   * again (or they have nothing left), so that it stays there for deletes.
   */
  #makeRoom(round: number, deleting: boolean): boolean {
    // The write that failed grew the WAL before it failed: that room comes back first.
    this.#trimmer.trim();
    if (round === 0) return true;
    const free = () => (pragma(this.#db, "freelist_count") as number) * PAGE_BYTES;
    const history = () => this.#hooks.roomToMake();
    // A delete frees room by itself; the rewrite is for writes that add.
    const optimize = !deleting && !this.#indexOptimized;
    if (free() === 0 && history() < ROOM_BYTES && !optimize) return false;
    const spare =
      deleting || history() >= ROOM_BYTES || free() + history() >= ROOM_BYTES + RESERVE_BYTES;
    let released = false;
    /** One step, its transaction then the WAL cut back; the spare file released if need be. */
    const step = (work: () => void): boolean => {
      try {
        this.#run(work, false);
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        if (released || !spare || !this.#reserve.release()) return false;
        released = true;
        try {
          this.#run(work, false);
        } catch (again) {
          if (isDiskFull(again)) return false;
          throw again;
        }
      }
      this.#trimmer.trim();
      return true;
    };
    const reclaim = (): boolean => {
      while (free() > 0) {
        if (!step(() => this.#db.exec(`PRAGMA incremental_vacuum(${ROOM_PAGES})`))) return false;
      }
      return true;
    };
    /**
     * Rewrites the full-text index once the disk has room for a copy of it; gives up for
     * this delete's sake when it does not and the history has nothing left to make room.
     */
    const rewriteIndex = (): boolean => {
      if (!optimize || this.#indexOptimized) return true;
      const room = this.#diskRoom() + (spare && !released ? RESERVE_BYTES : 0);
      if (indexBytes(this.#db) * INDEX_ROOM_FACTOR > room) {
        if (history() === 0) this.#indexOptimized = true;
        return true;
      }
      // Tried once per delete whatever comes of it: it rewrites the whole index.
      this.#indexOptimized = true;
      step(() => optimizeIndex(this.#db));
      return reclaim();
    };
    // Free pages go back as they are; only without them does the index, then the history,
    // give way.
    let target = free() > 0 ? 0 : ROOM_BYTES;
    if (target > 0 && !rewriteIndex()) return false;
    for (;;) {
      while (free() < target && history() > 0) {
        if (!step(() => this.#hooks.makeRoom(target - free()))) return false;
      }
      if (!reclaim()) return false;
      if (target > 0 && !rewriteIndex()) return false;
      // A delete makes the spare file again once it got through (free does).
      if (!released || deleting || this.#reserve.ensure() || history() === 0) return true;
      target = ROOM_BYTES + RESERVE_BYTES;
    }
  }

  /**
   * One idle step of merging the full-text index's segments ({@link mergeIndexStep}), its own
   * write transaction, never waiting for another process's lock. False when there was nothing
   * to merge, or when the step could not run (the file busy or the disk full): the index is
   * correct either way, merging only makes recall cheaper, and the next idle period tries again.
   */
  #mergeIndex(): boolean {
    const busyTimeout = pragma(this.#db, "busy_timeout") as number;
    try {
      this.#db.exec("PRAGMA busy_timeout = 0");
      return writeTransaction(this.#db, () => {
        const merged = mergeIndexStep(this.#db);
        if (merged) this.#reclaimFreePages();
        return merged;
      });
    } catch {
      return false;
    } finally {
      this.#db.exec(`PRAGMA busy_timeout = ${busyTimeout}`);
    }
  }

  /** Bytes the disk holding the store has free (0 for a store in memory). */
  #diskRoom(): number {
    if (this.#dir === undefined) return 0;
    const stats = statfsSync(this.#dir);
    return stats.bavail * stats.bsize;
  }

  /** One write transaction; with `reclaim`, the pages it freed go back to the disk. */
  #run<T>(body: () => T, reclaim = true): T {
    let result: T;
    try {
      result = writeTransaction(this.#db, () => {
        const value = body();
        if (reclaim) this.#reclaimFreePages();
        return value;
      });
    } catch (error) {
      this.#hooks.ended(false);
      throw error;
    }
    this.#hooks.ended(true);
    this.#trimmer.wrote();
    return result;
  }
}
