/**
 * The storage engine: SQLite through node:sqlite (driver.ts). The store's operations (records.ts,
 * tree.ts, recall/recall.ts, recall/search.ts) reach SQLite only through this folder: opening
 * a file (pragmas, WAL, durability, the namespace claim) and the write transaction, here; the
 * schema and its migrations (with the FTS5 index and its triggers), schema.ts; every statement
 * they run, statements.ts, through the `StoreContext` (context.ts) that store.ts builds at open.
 *
 * A second engine (PostgreSQL) would sit beside this folder, as src/postgres/, with the same
 * three parts: an open that migrates its own schema, a write transaction, and a `Statements`
 * with the same fields; `MemoryStore.open` would choose between them. It would also bring its
 * own `Ranker` (recall/ranker.ts is the recall seam), highlighter and embedding queue: the
 * SQLite ones (recall/lexical.ts, recall/hybrid.ts, recall/vector-index.ts,
 * recall/highlight.ts, embeddings.ts) read SQLite and FTS5 themselves, and are public API.
 * Two things to settle first: a `Statements` field is a synchronous statement
 * (`get`/`run`/`all`/`iterate`, driver.ts), and parts of the internal API take the store's
 * `SqliteDatabase` (`StoreOptions.ranker`, the rankers' and `Embeddings`' constructors,
 * `migrate`).
 */
import { claimModel } from "../embeddings.js";
import { StoreError } from "../errors.js";
import { type StoreOptions, SYNCHRONOUS_MODES, type SynchronousMode } from "../types.js";
import { openSqlite, pragma, type SqliteDatabase, transaction } from "./driver.js";
import { boundGrowth, mergeIndexSooner } from "./growth.js";
import { upgrade } from "./upgrade.js";

export type { SqliteDatabase } from "./driver.js";

/**
 * Opens (creating if needed) the SQLite file of a store: WAL, the durability setting, foreign
 * keys, the bounds on its growth (growth.ts), the file and its schema brought up to date
 * (upgrade.ts, reported to `options.onUpgrade`), and the namespace and embedding model
 * claimed. Closes the file again when any of that fails.
 */
export function openDatabase(file: string, options: StoreOptions): SqliteDatabase {
  const db = (options.openFile ?? openSqlite)(file);
  try {
    const busyTimeoutMs = options.busyTimeoutMs ?? 10000;
    db.exec(`PRAGMA busy_timeout = ${waitOf(busyTimeoutMs)}`);
    const mode = pragma(db, "journal_mode = WAL");
    // An in-memory database (an empty namespace's reads) has no journal file: "memory".
    if (mode !== (file === ":memory:" ? "memory" : "wal"))
      throw new Error(`could not put ${file} in WAL mode (got ${mode})`);
    const synchronous = options.synchronous ?? "full";
    if (!(SYNCHRONOUS_MODES as readonly string[]).includes(synchronous)) {
      throw new StoreError(
        "INVALID_ARGUMENT",
        `synchronous must be one of ${SYNCHRONOUS_MODES.join(", ")}, got ${String(synchronous)}`,
      );
    }
    db.exec(`PRAGMA synchronous = ${synchronous.toUpperCase()}`);
    db.exec("PRAGMA foreign_keys = ON");
    db.exec(`PRAGMA cache_size = ${CACHE_SIZE}`);
    boundGrowth(db);
    upgrade(db, file, options);
    mergeIndexSooner(db);
    if (options.namespace !== undefined) claimNamespace(db, file, options.namespace);
    if (options.embeddings !== undefined) {
      const { model, reembed, replaces } = options.embeddings;
      claimModel(db, file, model, { reembed: reembed === true, replaces: replaces ?? [] });
    }
    db.exec(`PRAGMA busy_timeout = ${waitOf(options.busyWaitMs ?? busyTimeoutMs)}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The page cache of each open store, in SQLite's negative-KiB form: 16 MiB. better-sqlite3,
 * the driver before node:sqlite, was built with it as the default; node:sqlite's SQLite keeps
 * SQLite's 2 MiB, with which recall at 100,000 memories read its pages again and took about
 * 15% longer (`pnpm bench sqlite-drivers`). Pages are allocated as they are read, so a small
 * store stays small.
 */
export const CACHE_SIZE = -16000;

/** A lock wait as SQLite's busy_timeout takes it: whole milliseconds, at least 0. */
function waitOf(ms: number): number {
  return Math.max(0, Math.floor(ms));
}

/** The durability setting in force, read back from SQLite. */
export function synchronousOf(db: SqliteDatabase): SynchronousMode {
  const level = pragma(db, "synchronous");
  return level === 2 ? "full" : "normal";
}

/**
 * Runs `body` in one IMMEDIATE transaction: it takes the write lock at BEGIN, so concurrent
 * writers (threads or processes on the file) serialize, and a write's checks and changes are
 * atomic.
 */
export function writeTransaction<T>(db: SqliteDatabase, body: () => T): T {
  return transaction(db, body, "immediate");
}

/** Records the store's namespace on first open and refuses a file that belongs to another. */
function claimNamespace(db: SqliteDatabase, file: string, namespace: string): void {
  transaction(db, () => {
    const row = db.prepare("SELECT value FROM store_info WHERE name = 'namespace'").get() as
      | { value: string }
      | undefined;
    if (row === undefined) {
      db.prepare("INSERT INTO store_info (name, value) VALUES ('namespace', ?)").run(namespace);
    } else if (row.value !== namespace) {
      throw new Error(`${file} holds namespace ${row.value}, not ${namespace}`);
    }
  });
}
