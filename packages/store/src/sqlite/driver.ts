/**
 * The SQLite driver: Node's own `node:sqlite` (in the Node.js lines `engines` names), so installing the store
 * builds and downloads nothing. Everything else in the store reaches SQLite through the two
 * small interfaces here, which `node:sqlite`'s `DatabaseSync` and `StatementSync` satisfy as
 * they are; the driver benchmark and the compatibility tests pass better-sqlite3 through them
 * too (`StoreOptions.openFile`), so one store code runs on both.
 *
 * What `node:sqlite` lacks beside better-sqlite3 is here: pragmas read back as a value
 * ({@link pragma}), transactions that nest ({@link transaction}), SQLite's result code read
 * from its errors ({@link isBusy}, {@link isDiskFull}), plain-object rows ({@link plainRows});
 * and what Node 22's build does differently: its load warning (dropped) and its reads of a
 * text holding NUL ({@link textReads}).
 */
import type * as NodeSqlite from "node:sqlite";
import packageJson from "../../package.json" with { type: "json" };

/** A value a statement binds (a JavaScript number binds as a REAL, a bigint as an INTEGER). */
export type SqliteInput = null | number | bigint | string | NodeJS.ArrayBufferView;

/** A value a statement reads: an INTEGER as a number (unless asked for bigints), a BLOB as bytes. */
export type SqliteOutput = null | number | bigint | string | Uint8Array;

/**
 * A statement's parameters: values for `?` in order, or one object of named values, by bare
 * name (`{ key }` for `@key`).
 */
export type SqliteBinding = SqliteInput | Readonly<Record<string, SqliteInput>>;

/**
 * A prepared statement. Rows are objects keyed by column name (blobs as `Uint8Array`s), or
 * arrays of the columns in order after `setReturnArrays(true)`; `get` gives undefined when there
 * is no row.
 */
export interface SqliteStatement {
  /** Rows as arrays: cheaper to make than objects, for statements that read many rows. */
  setReturnArrays(enabled: boolean): void;
  get(...params: SqliteBinding[]): unknown;
  all(...params: SqliteBinding[]): unknown[];
  iterate(...params: SqliteBinding[]): IterableIterator<unknown>;
  run(...params: SqliteBinding[]): {
    readonly changes: number | bigint;
    readonly lastInsertRowid: number | bigint;
  };
}

/** An open SQLite file: what the store uses of a connection. */
export interface SqliteDatabase {
  /** False once closed. */
  readonly isOpen: boolean;
  /** Whether a transaction is open on this connection. */
  readonly isTransaction: boolean;
  prepare(sql: string): SqliteStatement;
  /** Runs one or more statements, without parameters or results. */
  exec(sql: string): void;
  /** Defines a scalar SQL function on this connection. */
  function(
    name: string,
    options: { readonly deterministic?: boolean },
    fn: (...args: SqliteOutput[]) => SqliteInput,
  ): void;
  close(): void;
}

type Sqlite = typeof NodeSqlite;
let sqlite: Sqlite | undefined;

/**
 * `node:sqlite`, loaded on first use. Node 22 prints an ExperimentalWarning when the module
 * loads (Node 24 does not): a user would read it on every start of a server, about a module
 * the store tests on both lines. That one warning, while this load runs, is dropped; every
 * other warning is printed as usual.
 * A Node without the module (20, or 22 run with --no-experimental-sqlite) gets an error with
 * Node's own code for it, ERR_UNKNOWN_BUILTIN_MODULE, that says which Node to use.
 */
function loadSqlite(): Sqlite {
  if (sqlite !== undefined) return sqlite;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning, ...rest: unknown[]) {
    if (isSqliteExperimentalWarning(warning, rest[0])) return;
    return Reflect.apply(emitWarning, this, [warning, ...rest]);
  } as typeof process.emitWarning;
  try {
    // Node 20.16 and later have getBuiltinModule, which answers undefined for a missing module.
    sqlite = process.getBuiltinModule?.("node:sqlite") as Sqlite | undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
  if (sqlite === undefined) {
    throw Object.assign(
      new Error(
        `Node.js ${process.version} has no node:sqlite, the SQLite the store runs on: use ` +
          supportedNode(packageJson.engines.node),
      ),
      { code: "ERR_UNKNOWN_BUILTIN_MODULE" },
    );
  }
  return sqlite;
}

/** Node 22's warning that `node:sqlite` is experimental, as `process.emitWarning` gets it. */
function isSqliteExperimentalWarning(warning: unknown, type: unknown): boolean {
  const text = warning instanceof Error ? warning.message : warning;
  const kind = warning instanceof Error ? warning.name : type;
  return (
    kind === "ExperimentalWarning" &&
    typeof text === "string" &&
    text.startsWith("SQLite is an experimental feature")
  );
}

/**
 * Opens `file` (created if missing, unless `readOnly`: then it must exist) with `node:sqlite`.
 * `":memory:"` is a database in memory.
 */
export function openSqlite(file: string, options: { readOnly?: boolean } = {}): SqliteDatabase {
  const { DatabaseSync } = loadSqlite();
  return new DatabaseSync(file, { readOnly: options.readOnly === true });
}

/**
 * Pages a backup copies per step: all of them, in one step. SQLite's online backup starts
 * again from the first page whenever another connection writes between two steps, so a store
 * that a server keeps writing would never finish in small steps; in one step the backup reads
 * the file inside one read transaction, which in WAL mode never blocks a writer and sees one
 * committed state of it.
 */
const ALL_PAGES = 2 ** 31 - 1;

/**
 * Copies the SQLite file `source` (opened read-only, so nothing is created or upgraded) to a
 * new file `destination` through SQLite's online backup, as one committed state of it, while
 * other processes go on writing. Resolves to the pages copied. Runs off the main thread.
 */
export async function backupFile(source: string, destination: string): Promise<number> {
  const { DatabaseSync, backup } = loadSqlite();
  const db = new DatabaseSync(source, { readOnly: true });
  try {
    return await backup(db, destination, { rate: ALL_PAGES });
  } finally {
    db.close();
  }
}

/**
 * Runs `PRAGMA <text>`, one that answers with a row, and returns its first column:
 * `pragma(db, "user_version")`, `pragma(db, "journal_mode = WAL")`. A pragma that sets a
 * value and answers nothing runs with `db.exec` (better-sqlite3 refuses to read it).
 */
export function pragma(db: SqliteDatabase, text: string): unknown {
  const row = db.prepare(`PRAGMA ${text}`).get() as Record<string, unknown> | undefined;
  return row === undefined ? undefined : Object.values(row)[0];
}

/**
 * Runs `body` in a transaction and commits it, or rolls it back when `body` throws. An
 * IMMEDIATE one takes the write lock at BEGIN, so writers serialize and a write's checks and
 * changes are atomic. Inside a transaction already open, `body` runs in a savepoint: its
 * changes are undone alone when it throws, and commit with the outer transaction.
 */
export function transaction<T>(
  db: SqliteDatabase,
  body: () => T,
  mode: "immediate" | "deferred" = "immediate",
): T {
  const nested = db.isTransaction;
  db.exec(nested ? "SAVEPOINT hms_nested" : mode === "immediate" ? "BEGIN IMMEDIATE" : "BEGIN");
  try {
    const result = body();
    if (result instanceof Promise) {
      throw new TypeError("a transaction's body must be synchronous: it commits when it returns");
    }
    db.exec(nested ? "RELEASE hms_nested" : "COMMIT");
    return result;
  } catch (error) {
    // SQLite rolls a transaction back itself on some errors (a full disk, I/O): then there is
    // nothing left to undo. A COMMIT that failed leaves it open: it is undone here.
    if (db.isTransaction) {
      db.exec(nested ? "ROLLBACK TO hms_nested; RELEASE hms_nested" : "ROLLBACK");
    }
    throw error;
  }
}

/**
 * How a connection reads TEXT that may hold NUL (U+0000), as a memory's text may. Node 22's
 * node:sqlite writes such a text whole but reads it cut at its first NUL (so do the arguments
 * of a function it defines); Node 24's and better-sqlite3 read it whole. On such a connection
 * the text is read as its UTF-8 bytes (a BLOB) and decoded here; elsewhere it is read as it is.
 * Found out once per connection, by reading such a text back.
 */
export interface TextReads {
  /** SQL that reads the text expression `sql` (e.g. `m.text`) whole. */
  column(sql: string): string;
  /** A value read through {@link column}, as the text it holds. */
  text(value: unknown): string;
}

// ignoreBOM: a text that starts with U+FEFF keeps it (the default decoder drops it).
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const WHOLE: TextReads = { column: (sql) => sql, text: (value) => value as string };
const AS_BYTES: TextReads = {
  column: (sql) => `CAST(${sql} AS BLOB)`,
  text: (value) => (typeof value === "string" ? value : decoder.decode(value as Uint8Array)),
};
const textReadsOf = new WeakMap<SqliteDatabase, TextReads>();

/** How `db` reads a text that may hold NUL (see {@link TextReads}). */
export function textReads(db: SqliteDatabase): TextReads {
  let reads = textReadsOf.get(db);
  if (reads === undefined) {
    const { t } = db.prepare("SELECT 'a' || char(0) || 'b' AS t").get() as { t: string };
    reads = t.length === 3 ? WHOLE : AS_BYTES;
    textReadsOf.set(db, reads);
  }
  return reads;
}

/**
 * Rows as plain objects, for rows the store hands out as they are: `node:sqlite`'s have no
 * prototype, and a caller comparing them with another engine's records would see a difference.
 */
export function plainRows<T>(rows: unknown[]): T[] {
  return rows.map((row) => ({ ...(row as object) })) as T[];
}

/** SQLite's primary result code of an error `node:sqlite` threw, else undefined. */
export function sqliteCodeOf(error: unknown): number | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  // errcode is the extended code (SQLITE_BUSY_RECOVERY is 261): its low byte is the primary.
  return code === "ERR_SQLITE_ERROR" && typeof errcode === "number" ? errcode & 0xff : undefined;
}

/** SQLITE_BUSY: another connection held the lock past the busy timeout; nothing changed. */
const SQLITE_BUSY = 5;
/** SQLITE_FULL: the disk (or the file's size limit) is full; SQLite rolled the write back. */
const SQLITE_FULL = 13;

/** Whether `error` is SQLite giving up on another connection's lock (SQLITE_BUSY). */
export function isBusy(error: unknown): boolean {
  return sqliteCodeOf(error) === SQLITE_BUSY;
}

/** Whether `error` is SQLite (SQLITE_FULL) or the filesystem (ENOSPC) saying the disk is full. */
export function isDiskFull(error: unknown): boolean {
  return (
    sqliteCodeOf(error) === SQLITE_FULL ||
    (error as { code?: unknown } | null | undefined)?.code === "ENOSPC"
  );
}

/**
 * `engines.node` (`^22.23.5 || ^24.22.3`, the versions tested: scripts/check-packages.mjs
 * holds it to scripts/setup.sh's pins) in words: `Node.js 24.22.3 or a later 24, or 22.23.5
 * or a later 22`, the newest line first. The one statement of which Node to use, so the
 * message cannot drift from what is tested.
 */
export function supportedNode(engines: string): string {
  const floors = engines
    .split("||")
    .map((part) => part.trim().replace(/^\^/, ""))
    .sort((a, b) => Number.parseInt(b, 10) - Number.parseInt(a, 10));
  return `Node.js ${floors.map((floor) => `${floor} or a later ${floor.split(".")[0]}`).join(", or ")}`;
}
