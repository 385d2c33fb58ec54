/**
 * Backing up and restoring a namespace's store file, as `hms-mcp backup` and `hms-mcp restore`
 * do. A backup is a data directory of its own (`namespaces/ns-….sqlite`, the same file names),
 * so a server can serve it as it is, and restoring a namespace is putting its file back.
 *
 * The copy is SQLite's online backup of one committed state of the file (driver.ts's
 * `backupFile`), taken while servers go on writing: every version, the history with its times
 * and attribution, the embeddings and the history's accounts, page for page. Each copy is
 * checked (`PRAGMA integrity_check`, and the namespace it names) before it takes its place, under
 * a name no store file has until then, so a copy that fails leaves nothing that looks whole.
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeDirectory } from "./make-directory.js";
import { checkNamespace, storeFileName } from "./namespaces.js";
import { backupFile, isBusy, openSqlite, pragma } from "./sqlite/driver.js";

/** A namespace's store file as copied into a backup or back into a data directory. */
export interface NamespaceCopy {
  readonly name: string;
  /** The store file's name, the same in `namespaces/` of every data directory. */
  readonly file: string;
  /** The memories the copy holds. */
  readonly memories: number;
  /** Its history's changes. */
  readonly changes: number;
  /** The copy's size in bytes. */
  readonly bytes: number;
}

/** Where a data directory keeps the store file of `name`. */
export function storeFilePath(dataDir: string, name: string): string {
  return join(dataDir, "namespaces", storeFileName(name));
}

/**
 * Copies the store of namespace `name` from the data directory `dataDir` into the backup
 * directory `toDir` (its `namespaces/`), consistent while servers keep writing to it. The
 * source is only read. Throws when the copy fails its check; nothing is left under the
 * store file's name then.
 */
export async function backupNamespace(
  dataDir: string,
  name: string,
  toDir: string,
): Promise<NamespaceCopy> {
  const source = storeFilePath(dataDir, checkNamespace(name));
  statSync(source); // ENOENT, with the path, when there is no such namespace
  return await copyStoreFile(source, toDir, name);
}

/**
 * Puts namespace `name` of the backup `fromDir` back into the data directory `dataDir`,
 * replacing the store file there if there is one (its write-ahead log goes with it). Refuses,
 * changing nothing, while a process (a server) has that store open: a server holding the old
 * file would go on serving and writing it.
 */
export async function restoreNamespace(
  fromDir: string,
  name: string,
  dataDir: string,
): Promise<NamespaceCopy> {
  const source = storeFilePath(fromDir, checkNamespace(name));
  statSync(source);
  const target = storeFilePath(dataDir, name);
  refuseIfOpen(target, name);
  return await copyStoreFile(source, dataDir, name, () => {
    // Checked again just before the swap: a server may have opened it during the copy.
    refuseIfOpen(target, name);
    rmSync(`${target}-wal`, { force: true });
    rmSync(`${target}-shm`, { force: true });
  });
}

/**
 * Copies the store file `source` of namespace `name` into `dir`'s `namespaces/` under its own
 * name: first as `<file>.partial`, checked and flushed to disk, then renamed into place (after
 * `beforeSwap`), and the directory flushed.
 */
async function copyStoreFile(
  source: string,
  dir: string,
  name: string,
  beforeSwap?: () => void,
): Promise<NamespaceCopy> {
  const folder = join(dir, "namespaces");
  makeDirectory(folder, 0o700);
  const file = storeFileName(name);
  const target = join(folder, file);
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });
  try {
    await backupFile(source, partial);
    const counts = checkCopy(partial, name);
    syncPath(partial);
    beforeSwap?.();
    renameSync(partial, target);
    syncPath(folder);
    return { name, file, ...counts, bytes: statSync(target).size };
  } finally {
    rmSync(partial, { force: true });
    rmSync(`${partial}-wal`, { force: true });
    rmSync(`${partial}-shm`, { force: true });
  }
}

/** Checks a copied store file; returns what it holds. Throws when it is not sound. */
function checkCopy(path: string, name: string): { memories: number; changes: number } {
  const db = openSqlite(path);
  try {
    const verdict = pragma(db, "integrity_check");
    if (verdict !== "ok") {
      throw new Error(`the copy of namespace ${name} failed SQLite's integrity check: ${verdict}`);
    }
    const recorded = db.prepare("SELECT value FROM store_info WHERE name = 'namespace'").get() as
      | { value: string }
      | undefined;
    if (recorded?.value !== name) {
      throw new Error(
        `the store file of namespace ${name} says it is namespace ${recorded?.value ?? "(none)"}`,
      );
    }
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const hasHistory =
      db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'memory_history'").get() !== undefined;
    return {
      memories: count("SELECT count(*) AS n FROM memories"),
      changes: hasHistory ? count("SELECT count(*) AS n FROM memory_history") : 0,
    };
  } finally {
    db.close();
  }
}

/**
 * Throws when a process holds the store file at `path` open. Every connection to a store in
 * WAL mode holds a shared lock while it is open, even idle, so an exclusive lock taken with no
 * wait fails exactly then.
 */
function refuseIfOpen(path: string, name: string): void {
  try {
    statSync(path);
  } catch {
    return; // no such file: nothing holds it
  }
  const db = openSqlite(path);
  try {
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("ROLLBACK");
  } catch (error) {
    if (!isBusy(error)) throw error;
    throw new Error(
      `namespace ${name} is open in another process (a server serving this data directory): ` +
        "stop it before restoring, so that it does not go on serving and writing the old file",
    );
  } finally {
    db.close();
  }
}

/** Flushes a file or a directory to disk. */
function syncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
