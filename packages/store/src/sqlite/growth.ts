/**
 * Keeps a store's files from growing without bound while a server runs: deleted space goes
 * back to the filesystem (incremental auto-vacuum, run at the end of each write transaction),
 * the full-text index merges its segments sooner, so deleted entries leave it,
 * the WAL is checkpointed every {@link WAL_CHECKPOINT_PAGES} pages and cut back to
 * {@link WAL_SIZE_LIMIT} bytes when it restarts, and a store left idle for
 * {@link WAL_IDLE_MS} has its index's small segments merged, then its WAL checkpointed and
 * truncated to nothing.
 */
import { type SqliteDatabase as Database, isDiskFull, pragma } from "./driver.js";

/** The WAL is cut back to this size whenever it restarts from the beginning. */
export const WAL_SIZE_LIMIT = 1024 * 1024;

/** Pages written to the WAL before a commit checkpoints it (SQLite's default is 1000). */
export const WAL_CHECKPOINT_PAGES = 256;

/** After this long without a write, the WAL is checkpointed and truncated. */
export const WAL_IDLE_MS = 1000;

/**
 * Sets the bounds on a newly opened file, before its schema is created. `auto_vacuum` only
 * takes effect on an empty file or through VACUUM: a store created before it had none is
 * converted by {@link compact}, which the open runs when {@link needsCompaction} says so.
 */
export function boundGrowth(db: Database): void {
  db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
  db.exec(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
}

/** Whether the file is a store made before incremental auto-vacuum (it needs one VACUUM). */
export function needsCompaction(db: Database): boolean {
  if (pragma(db, "auto_vacuum") === INCREMENTAL) return false;
  return pragma(db, "page_count") !== 0;
}

/** What {@link compact} does, as an upgrade reports it. */
export const COMPACTION_TASK =
  "compacting the file to give deleted space back (once, to turn on incremental auto-vacuum)";

/**
 * Turns on incremental auto-vacuum, when it is off: on an empty file the pragma alone, else
 * one VACUUM, which rewrites the whole file. That VACUUM needs room for a copy of the file:
 * when it fails (disk full), the store opens as it was and the next open tries again.
 */
export function compact(db: Database): void {
  if (pragma(db, "auto_vacuum") === INCREMENTAL) return;
  db.exec("PRAGMA auto_vacuum = INCREMENTAL");
  if (pragma(db, "page_count") === 0) return;
  try {
    db.exec("VACUUM");
  } catch (error) {
    if (!isDiskFull(error)) throw error;
  }
}

/**
 * FTS5 merges its index segments once `automerge` of them pile up at one level (default 4).
 * A deleted memory's entries only leave the index when the segment holding its delete is
 * merged with the one holding its words, so merging at 2 keeps deleted entries from piling
 * up (10,000 create/delete cycles grew the index by 100% at 4, 43% at 2) and leaves fewer
 * segments for recall to read. `usermerge` is the same bound for the merges the store asks
 * for itself when idle ({@link mergeIndexStep}). Set after the schema exists; each written
 * only when it differs.
 */
export function mergeIndexSooner(db: Database): void {
  const read = db.prepare("SELECT v FROM memories_fts_config WHERE k = ?");
  for (const option of ["automerge", "usermerge"]) {
    const row = read.get(option) as { v: number } | undefined;
    if (row?.v === FTS_MERGE_AT) continue;
    // FTS5 takes the value as it is written in the statement: a bound parameter is refused.
    db.exec(`INSERT INTO memories_fts (memories_fts, rank) VALUES ('${option}', ${FTS_MERGE_AT})`);
  }
}

/** Segments at one level before FTS5 merges them. */
const FTS_MERGE_AT = 2;

/**
 * Index pages one idle merge step writes at most (FTS5's own unit of merge work): a few
 * milliseconds, so a call that arrives meanwhile waits little.
 */
export const MERGE_STEP_PAGES = 64;

/**
 * One step of merging the full-text index's segments, in the caller's write transaction:
 * FTS5's 'merge' on the levels holding `usermerge` (2) segments or more, at most
 * {@link MERGE_STEP_PAGES} pages. Whether it did any work (FTS5 then counts two changes or
 * more; none to do, one).
 *
 * Why: FTS5's own merging runs once per 64 index pages written, so a store written one memory
 * at a time keeps up to 16 one-page segments besides its larger ones, and recall looks each
 * query term up in every segment, several times per recall (rarity, scoring, each hit's
 * excerpt). Measured in process on SciFact (300 test claims, lexical, k = 10): 1,000 abstracts
 * written one at a time left 15 segments and took 7.6 ms of CPU a recall, 3.3 ms once merged
 * this way (1 segment); the whole corpus, 10 segments and 8.2 ms, 7.2 ms merged (4 segments).
 */
export function mergeIndexStep(db: Database): boolean {
  const changes = db.prepare("SELECT total_changes() AS n");
  const before = (changes.get() as { n: number }).n;
  db.exec(`INSERT INTO memories_fts (memories_fts, rank) VALUES ('merge', ${MERGE_STEP_PAGES})`);
  return (changes.get() as { n: number }).n - before >= 2;
}

/** About how many bytes the full-text index takes in the file (its data blocks' pages). */
export function indexBytes(db: Database): number {
  const row = db.prepare("SELECT count(*) AS blocks FROM memories_fts_data").get() as {
    blocks: number;
  };
  return row.blocks * PAGE_BYTES;
}

/**
 * Rewrites the full-text index as one segment (FTS5's 'optimize'), which drops what deleted
 * and changed memories left in it (merges reach those entries only slowly) and loses nothing.
 * Needs room for a new copy of the live index until it commits.
 */
export function optimizeIndex(db: Database): void {
  db.exec("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')");
}

/** SQLite's default page size, which the store keeps. */
export const PAGE_BYTES = 4096;

/** `auto_vacuum` as SQLite reports INCREMENTAL. */
const INCREMENTAL = 2;

/**
 * Gives the pages a write transaction freed back to the filesystem (inside the transaction,
 * so no extra commit): with incremental auto-vacuum the file shrinks at the next checkpoint.
 * Made once per store, since it runs in every write transaction.
 */
export function freePageReclaimer(db: Database): () => void {
  const freePages = db.prepare("PRAGMA freelist_count");
  return () => {
    const row = freePages.get() as { freelist_count: number };
    if (row.freelist_count > 0) db.exec("PRAGMA incremental_vacuum");
  };
}

/**
 * What a store does once it has been idle for {@link WAL_IDLE_MS}: `merge` (one step of
 * merging the index, true while there may be more), step after step with the event loop's
 * turn between them, then the WAL checkpointed and truncated, so a quiet store's WAL takes no
 * space. A write meanwhile puts the rest off to the next idle period. The timer never keeps
 * the process alive.
 */
export class IdleUpkeep {
  readonly #db: Database;
  readonly #merge: () => boolean;
  #timer: NodeJS.Timeout | undefined;
  /** Whether the timer set is the next merge step's (0 ms), not the idle period's. */
  #stepping = false;

  constructor(db: Database, merge: () => boolean = () => false) {
    this.#db = db;
    this.#merge = merge;
  }

  /** Call after each write: (re)starts the idle timer. */
  wrote(): void {
    if (this.#timer !== undefined && !this.#stepping) {
      this.#timer.refresh();
      return;
    }
    this.stop();
    this.#wait(WAL_IDLE_MS);
  }

  #wait(ms: number): void {
    this.#stepping = ms === 0;
    this.#timer = setTimeout(() => this.#idle(), ms);
    this.#timer.unref();
  }

  #idle(): void {
    this.#timer = undefined;
    if (!this.#db.isOpen) return;
    if (this.#merge()) this.#wait(0);
    else this.trim();
  }

  /**
   * Checkpoints the WAL into the file and truncates it. A reader or writer in another process
   * makes the checkpoint give up (it never waits); the next idle period tries again.
   */
  trim(): void {
    this.stop();
    if (!this.#db.isOpen) return;
    const busyTimeout = pragma(this.#db, "busy_timeout") as number;
    try {
      this.#db.exec("PRAGMA busy_timeout = 0");
      this.#db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {
      // Busy or out of space: the WAL stays as it is until the next idle period.
    } finally {
      this.#db.exec(`PRAGMA busy_timeout = ${busyTimeout}`);
    }
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#stepping = false;
  }
}
