/**
 * A full disk. SQLite reports it as SQLITE_FULL and rolls the transaction back; the store says
 * so as STORAGE_FULL. Deleting must still work then, so that a person or Claude can make room,
 * but a delete writes too (WAL frames for the pages it changes): each store keeps a spare file
 * of {@link RESERVE_BYTES} beside it, which a delete that finds the disk full releases before
 * trying again, then checkpoints the WAL to give its space back and makes the reserve again.
 * A delete whose changes outgrow the reserve (a prefix of hundreds of memories at once) can
 * still be refused; fewer at a time get through.
 */
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { StoreError } from "../errors.js";
import { isDiskFull } from "./driver.js";

/** The size of a store's spare file, room for the WAL frames of a delete on a full disk. */
export const RESERVE_BYTES = 2 * 1024 * 1024;

/** The spare file of the store in `file`. */
export function reserveFileOf(file: string): string {
  return `${file}-reserve`;
}

/** The refusal of a write that found the disk full. */
export function storageFull(deleting: boolean): StoreError {
  return new StoreError(
    "STORAGE_FULL",
    deleting
      ? "the disk holding the store is full, so even this delete could not be written: delete fewer memories at a time, or free space on that disk, then retry"
      : "the disk holding the store is full, so nothing was written: delete memories you no longer need (deleting still works) or free space on that disk, then retry",
  );
}

/** The spare file that lets deletes run on a full disk. */
export class Reserve {
  /** The spare file; undefined for a store in memory (`:memory:`), which has no disk. */
  readonly file: string | undefined;
  #inPlace = false;

  constructor(storeFile: string) {
    const inMemory = storeFile === ":memory:" || storeFile === "";
    this.file = inMemory ? undefined : reserveFileOf(storeFile);
  }

  /**
   * Makes the spare file if it is missing or short. Returns false, leaving no partial file,
   * when the disk has no room for it. The bytes are random, so a compressing filesystem
   * cannot store them in less space than they will free.
   */
  ensure(): boolean {
    // Known to be in place since the last ensure: no file system call on every delete.
    if (this.file === undefined || this.#inPlace) return true;
    if (existsSync(this.file) && statSync(this.file).size === RESERVE_BYTES) {
      this.#inPlace = true;
      return true;
    }
    let fd: number | undefined;
    try {
      fd = openSync(this.file, "w", 0o600);
      // A write that fills the disk returns short before the next one fails with ENOSPC.
      if (writeSync(fd, randomBytes(RESERVE_BYTES)) < RESERVE_BYTES) {
        throw Object.assign(new Error("short write"), { code: "ENOSPC" });
      }
      const written = fd;
      fd = undefined;
      closeSync(written);
      this.#inPlace = true;
      return true;
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      rmSync(this.file, { force: true });
      if (isDiskFull(error)) return false;
      throw error;
    }
  }

  /** Frees the spare file's space; false when there was none to free. */
  release(): boolean {
    this.#inPlace = false;
    if (this.file === undefined || !existsSync(this.file)) return false;
    rmSync(this.file, { force: true });
    return true;
  }
}
