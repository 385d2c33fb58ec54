/**
 * The store's write transactions, with what every write needs around it: a full disk
 * reported as STORAGE_FULL (deletes use the spare file to get through, disk-full.ts), the
 * pages a write freed given back, and the WAL trimmed once the store is idle (growth.ts).
 */
import { type SqliteDatabase, writeTransaction } from "./database.js";
import { Reserve, storageFull } from "./disk-full.js";
import { isDiskFull } from "./driver.js";
import { reclaimFreePages, WalTrimmer } from "./growth.js";

export class Writes {
  readonly #db: SqliteDatabase;
  readonly #reserve: Reserve;
  readonly #trimmer: WalTrimmer;

  /** For the open store `db` in `file`; makes the spare file if there is room for it. */
  constructor(db: SqliteDatabase, file: string) {
    this.#db = db;
    this.#reserve = new Reserve(file);
    this.#trimmer = new WalTrimmer(db);
    this.#reserve.ensure();
    // Opening may have written (migrations, the namespace claim): trim that too once idle.
    this.#trimmer.wrote();
  }

  /** Runs `body` as one write transaction; STORAGE_FULL when the disk is full. */
  write<T>(body: () => T): T {
    try {
      return this.#run(body);
    } catch (error) {
      if (isDiskFull(error)) throw storageFull(false);
      throw error;
    }
  }

  /**
   * Runs `body`, a delete, as one write transaction. If the disk is full, releases the spare
   * file and tries once more, then checkpoints and truncates the WAL so the space the delete
   * freed goes back to the disk, and makes the spare file again if there is room.
   */
  free<T>(body: () => T): T {
    let result: T;
    try {
      result = this.#run(body);
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      if (!this.#reserve.release()) throw storageFull(true);
      try {
        result = this.#run(body);
      } catch (again) {
        if (isDiskFull(again)) throw storageFull(true);
        throw again;
      }
      this.#trimmer.trim();
    }
    this.#reserve.ensure();
    return result;
  }

  /** Stops the idle timer; call before closing the database. */
  close(): void {
    this.#trimmer.stop();
  }

  #run<T>(body: () => T): T {
    const result = writeTransaction(this.#db, () => {
      const value = body();
      reclaimFreePages(this.#db);
      return value;
    });
    this.#trimmer.wrote();
    return result;
  }
}
