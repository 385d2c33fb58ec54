/**
 * The store's write transactions, with what every write needs around it: a full disk
 * reported as STORAGE_FULL (after what can give way has given way: the history's oldest
 * changes, then, for a delete, the spare file, disk-full.ts), the pages a write freed given
 * back, and the WAL trimmed once the store is idle (growth.ts).
 */
import { type SqliteDatabase, writeTransaction } from "./database.js";
import { isDiskFull, RESERVE_BYTES, Reserve, storageFull } from "./disk-full.js";
import { reclaimFreePages, WalTrimmer } from "./growth.js";

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

export class Writes {
  readonly #db: SqliteDatabase;
  readonly #reserve: Reserve;
  readonly #trimmer: WalTrimmer;
  readonly #hooks: WriteHooks;

  /** For the open store `db` in `file`; makes the spare file if there is room for it. */
  constructor(db: SqliteDatabase, file: string, hooks: WriteHooks = NO_HOOKS) {
    this.#db = db;
    this.#reserve = new Reserve(file);
    this.#trimmer = new WalTrimmer(db);
    this.#hooks = hooks;
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
        if (!this.#makeRoom(round)) throw storageFull(false);
      }
    }
  }

  /**
   * Runs `body`, a delete, as one write transaction. If the disk is full, makes room as
   * {@link write} does; when nothing is left to drop, releases the spare file and tries once
   * more. Then checkpoints and
   * truncates the WAL so the space the delete freed goes back to the disk, and makes the
   * spare file again if there is room.
   */
  free<T>(body: () => T): T {
    let released = false;
    for (let round = 0; ; round++) {
      try {
        const result = this.#run(body);
        if (released) this.#trimmer.trim();
        this.#reserve.ensure();
        return result;
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        if (this.#makeRoom(round)) continue;
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
   * Makes room for a write that found the disk full, its `round`-th time: first the WAL's
   * frames go into the file and the WAL is cut back (free, and it may be all that was
   * needed); after that, one transaction of the hooks' `makeRoom` of {@link ROOM_BYTES} each
   * time, then the WAL cut back again so that what it freed goes back to the disk. False
   * when the hooks have less than that left to free.
   *
   * Dropping writes too. On a disk too full even for that, the spare file is released for
   * it, and it drops the spare file's size more, so that the spare file can be made again
   * before the write tries again and stay there for deletes.
   */
  #makeRoom(round: number): boolean {
    if (round === 0) {
      this.#trimmer.trim();
      return true;
    }
    const available = this.#hooks.roomToMake();
    if (available < ROOM_BYTES) return false;
    try {
      this.#run(() => this.#hooks.makeRoom(ROOM_BYTES));
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      if (!this.#reserve.release()) return false;
      try {
        this.#run(() => this.#hooks.makeRoom(ROOM_BYTES + RESERVE_BYTES));
      } catch (again) {
        if (isDiskFull(again)) return false;
        throw again;
      }
    }
    this.#trimmer.trim();
    this.#reserve.ensure();
    return true;
  }

  #run<T>(body: () => T): T {
    let result: T;
    try {
      result = writeTransaction(this.#db, () => {
        const value = body();
        reclaimFreePages(this.#db);
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
