/**
 * better-sqlite3, the native addon the store ran on before node:sqlite, in the shape of the
 * store's `SqliteDatabase` (@hms/store/internal), so the store's own code runs on it:
 * `MemoryStore.open(file, { openFile: openWithBetterSqlite3 })`. For the driver benchmark
 * (`pnpm bench sqlite-drivers`) and the compatibility tests between the two drivers only.
 *
 * Statements are better-sqlite3's own (same `get`/`all`/`iterate`/`run`, bare named
 * parameters), so the benchmark measures better-sqlite3 and not a wrapper. What differs is
 * not translated: its errors carry better-sqlite3's codes (`SQLITE_BUSY`), which the store
 * does not read as a busy lock or a full disk.
 *
 * The addon is built for the Node that ran `pnpm install` (24, scripts/setup.sh): another
 * Node's ABI cannot load it, and this says so when asked to.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

/** better-sqlite3's version and its SQLite's, for the benchmark's report. */
export function betterSqlite3Versions(): { driver: string; sqlite: string } {
  const db = openBetterSqlite3(":memory:");
  try {
    const { v } = db.prepare("SELECT sqlite_version() AS v").get() as { v: string };
    const require = createRequire(import.meta.url);
    const { version } = require("better-sqlite3/package.json") as { version: string };
    return { driver: version, sqlite: v };
  } finally {
    db.close();
  }
}

/** A better-sqlite3 statement, as the store's `SqliteStatement` sees it. */
export interface BetterSqlite3Statement {
  setReturnArrays(enabled: boolean): void;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  run(...params: unknown[]): {
    readonly changes: number;
    readonly lastInsertRowid: number | bigint;
  };
}

/** A better-sqlite3 connection, as the store's `SqliteDatabase` sees it. */
export interface BetterSqlite3Connection {
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
  prepare(sql: string): BetterSqlite3Statement;
  exec(sql: string): void;
  function(
    name: string,
    options: { readonly deterministic?: boolean },
    fn: (...args: never[]) => unknown,
  ): void;
  close(): void;
}

/** Opens `file` (created if missing) with better-sqlite3, as the store's `SqliteDatabase`. */
export function openWithBetterSqlite3(file: string): BetterSqlite3Connection {
  const db = openBetterSqlite3(file);
  return {
    get isOpen(): boolean {
      return db.open;
    },
    get isTransaction(): boolean {
      return db.inTransaction;
    },
    // better-sqlite3's own statement; its raw() is node:sqlite's setReturnArrays().
    prepare: (sql: string) => {
      const statement = db.prepare(sql);
      return Object.assign(statement, {
        setReturnArrays: (enabled: boolean): void => {
          statement.raw(enabled);
        },
      });
    },
    exec: (sql: string): void => {
      db.exec(sql);
    },
    function: (name, options, fn): void => {
      db.function(name, { deterministic: options.deterministic ?? false }, fn);
    },
    close: (): void => {
      db.close();
    },
  };
}

/** better-sqlite3's own connection; its addon loads with the first one. */
function openBetterSqlite3(file: string): BetterSqlite3.Database {
  const require = createRequire(import.meta.url);
  const Database = require("better-sqlite3") as typeof BetterSqlite3;
  try {
    return new Database(file);
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (!/NODE_MODULE_VERSION|did not self-register/.test(message)) throw error;
    throw new Error(
      `better-sqlite3's addon does not load in Node ${process.version}: it is built for the ` +
        "Node that ran pnpm install (24, scripts/setup.sh); run this on that Node",
      { cause: error },
    );
  }
}
