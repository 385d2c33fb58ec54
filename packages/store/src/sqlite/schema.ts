import { indexText } from "../recall/cjk.js";
import { type SqliteDatabase as Database, pragma, transaction } from "./driver.js";

/**
 * One step of the schema. Migrations run in order, each in its own transaction, and the
 * database's `user_version` records the last one applied. Never edit a released migration:
 * append a new one.
 */
export interface Migration {
  /** The schema version this migration produces (1, 2, ...). */
  readonly version: number;
  /** What it changes, for logs and readers. */
  readonly description: string;
  /** What makes it slow on a big store, in words, when it is (an upgrade announces it). */
  readonly slow?: string;
  readonly up: (db: Database, report: MigrationReport) => void;
}

/** How a migration tells what its long work is doing: a task starting, and rows done. */
export interface MigrationReport {
  step(task: string): void;
  progress(task: string, done: number, total: number): void;
}

/** The report of a migration nobody watches. */
export const SILENT: MigrationReport = { step() {}, progress() {} };

/**
 * Fewest rows per batch when a migration fills an index (one progress report each). A big
 * store takes 1/20 of its rows per batch: each statement costs a flush of FTS5's pending
 * terms, and 20 reports are plenty.
 */
export const MIGRATION_BATCH = 1000;

/**
 * What one row of memory_history costs the history's byte budget, as SQL over the row `%`:
 * the bytes of the text it stores, its key twice (the row and its index), a move's source
 * twice, its tags, metadata, hash, actor and command, and 64 for its numbers, time and the
 * rest. PostgreSQL's schema counts the same. Frozen with migration 8, whose triggers use it.
 */
export const HISTORY_ROW_COST =
  "(octet_length(%.text) + 2 * octet_length(%.key) + 2 * coalesce(octet_length(%.from_key), 0)" +
  " + octet_length(%.tags) + octet_length(%.metadata) + octet_length(%.hash)" +
  " + coalesce(octet_length(%.actor), 0) + coalesce(octet_length(%.command), 0) + 64)";

/** Rows per batch for a store of `total` memories (see {@link MIGRATION_BATCH}). */
function batchOf(total: number): number {
  return Math.max(MIGRATION_BATCH, Math.ceil(total / 20));
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "memories and their tags",
    up(db) {
      db.exec(`
        CREATE TABLE memories (
          id         INTEGER PRIMARY KEY,
          key        TEXT NOT NULL UNIQUE,
          text       TEXT NOT NULL,
          tags       TEXT NOT NULL DEFAULT '[]',
          metadata   TEXT NOT NULL DEFAULT '{}',
          version    INTEGER NOT NULL CHECK (version >= 1),
          hash       TEXT NOT NULL,
          bytes      INTEGER NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE TABLE memory_tags (
          tag       TEXT NOT NULL,
          memory_id INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
          PRIMARY KEY (tag, memory_id)
        ) WITHOUT ROWID;
        CREATE INDEX memory_tags_by_memory ON memory_tags (memory_id);
        CREATE TABLE store_info (
          name  TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 2,
    description: "full-text index for lexical recall (FTS5, Porter stemming over unicode61)",
    slow: "build the full-text index",
    up(db, report) {
      db.exec(`
        CREATE VIRTUAL TABLE memories_fts USING fts5 (
          text,
          content = 'memories',
          content_rowid = 'id',
          tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
          INSERT INTO memories_fts (rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
          INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;
        CREATE TRIGGER memories_fts_update AFTER UPDATE OF text ON memories BEGIN
          INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.id, old.text);
          INSERT INTO memories_fts (rowid, text) VALUES (new.id, new.text);
        END;
      `);
      fillIndex(db, "text", report);
    },
  },
  {
    version: 3,
    description:
      "embeddings for hybrid recall: passage vectors per memory, a queue of memories whose " +
      "vectors are missing, and counters that tell a process when another one changed them",
    up(db) {
      // memory_vectors: one row per memory, for the text whose hash it records. `seq` only
      // grows (AUTOINCREMENT never reuses a value), so a reader can load what changed since
      // the last seq it saw. Vectors follow their memory through moves (same id) and go with
      // it on delete (cascade); a change of text drops them and queues the memory again.
      //
      // embedding_queue: memories waiting for vectors, newest `seq` first. Filled only once
      // the store has an embedding model (store_info 'embedding_model'), so a store that
      // never met one pays nothing for it.
      //
      // vector_state: one row; `generation` changes with every vector written or removed
      // and `vectors` counts the rows, so a reader knows in one lookup whether its copy of
      // the vectors is current, and whether rows were removed.
      db.exec(`
        CREATE TABLE memory_vectors (
          seq       INTEGER PRIMARY KEY AUTOINCREMENT,
          memory_id INTEGER NOT NULL UNIQUE REFERENCES memories (id) ON DELETE CASCADE,
          hash      TEXT NOT NULL,
          spans     BLOB NOT NULL,
          vectors   BLOB NOT NULL
        );
        CREATE TABLE embedding_queue (
          seq       INTEGER PRIMARY KEY AUTOINCREMENT,
          memory_id INTEGER NOT NULL UNIQUE REFERENCES memories (id) ON DELETE CASCADE
        );
        CREATE TABLE vector_state (
          id         INTEGER PRIMARY KEY CHECK (id = 1),
          generation INTEGER NOT NULL,
          vectors    INTEGER NOT NULL
        );
        INSERT INTO vector_state (id, generation, vectors) VALUES (1, 0, 0);
        CREATE TRIGGER memory_vectors_insert AFTER INSERT ON memory_vectors BEGIN
          UPDATE vector_state SET generation = generation + 1, vectors = vectors + 1 WHERE id = 1;
        END;
        CREATE TRIGGER memory_vectors_delete AFTER DELETE ON memory_vectors BEGIN
          UPDATE vector_state SET generation = generation + 1, vectors = vectors - 1 WHERE id = 1;
        END;
        CREATE TRIGGER memories_embed_insert AFTER INSERT ON memories
          WHEN EXISTS (SELECT 1 FROM store_info WHERE name = 'embedding_model')
        BEGIN
          INSERT OR REPLACE INTO embedding_queue (memory_id) VALUES (new.id);
        END;
        CREATE TRIGGER memories_embed_update AFTER UPDATE OF text ON memories
          WHEN new.text IS NOT old.text
        BEGIN
          DELETE FROM memory_vectors WHERE memory_id = new.id;
          INSERT OR REPLACE INTO embedding_queue (memory_id)
            SELECT new.id WHERE EXISTS (SELECT 1 FROM store_info WHERE name = 'embedding_model');
        END;
      `);
    },
  },
  {
    version: 4,
    description:
      "a store-wide version clock, so a key's version never returns to a value it had before " +
      "(a key deleted and created again, or a key moved onto, continues above every version " +
      "ever written)",
    up(db) {
      // One row. Every write takes its new version(s) from here in its own transaction, so
      // versions only grow, store-wide, across processes (writes hold SQLite's write lock).
      // A store from before this migration starts above every version it still holds; the
      // versions of keys it deleted before the migration are not recorded anywhere, so they
      // cannot be taken into account.
      db.exec(`
        CREATE TABLE version_clock (
          id    INTEGER PRIMARY KEY CHECK (id = 1),
          value INTEGER NOT NULL CHECK (value >= 0)
        );
        INSERT INTO version_clock (id, value) SELECT 1, coalesce(max(version), 0) FROM memories;
      `);
    },
  },
  {
    version: 5,
    description:
      "the full-text index reads Chinese and Japanese text as character n-grams: memories " +
      "gain index_text (the text as indexed, when it differs) and the index is rebuilt",
    slow: "rebuild the full-text index",
    up(db, report) {
      // index_text is NULL for text without a CJK run, so other stores grow by nothing. The
      // index reads fts_text, a virtual generated column (computed on read, never stored).
      db.exec(`
        DROP TRIGGER memories_fts_insert;
        DROP TRIGGER memories_fts_delete;
        DROP TRIGGER memories_fts_update;
        DROP TABLE memories_fts;
        ALTER TABLE memories ADD COLUMN index_text TEXT;
        ALTER TABLE memories ADD COLUMN fts_text TEXT
          GENERATED ALWAYS AS (coalesce(index_text, text)) VIRTUAL;
      `);
      const total = memoryCount(db);
      const task = `finding Chinese and Japanese text in ${count(total)}`;
      report.step(task);
      const rows = db.prepare("SELECT id, text FROM memories").iterate() as Iterable<{
        id: number;
        text: string;
      }>;
      const set = db.prepare("UPDATE memories SET index_text = ? WHERE id = ?");
      const updates: [string, number][] = [];
      const every = batchOf(total);
      let done = 0;
      for (const { id, text } of rows) {
        const indexed = indexText(text);
        if (indexed !== null) updates.push([indexed, id]);
        done += 1;
        if (done % every === 0 || done === total) report.progress(task, done, total);
      }
      for (const [indexed, id] of updates) set.run(indexed, id);
      db.exec(`
        CREATE VIRTUAL TABLE memories_fts USING fts5 (
          fts_text,
          content = 'memories',
          content_rowid = 'id',
          tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
          INSERT INTO memories_fts (rowid, fts_text) VALUES (new.id, new.fts_text);
        END;
        CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
          INSERT INTO memories_fts (memories_fts, rowid, fts_text)
            VALUES ('delete', old.id, old.fts_text);
        END;
        CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, index_text ON memories BEGIN
          INSERT INTO memories_fts (memories_fts, rowid, fts_text)
            VALUES ('delete', old.id, old.fts_text);
          INSERT INTO memories_fts (rowid, fts_text) VALUES (new.id, new.fts_text);
        END;
      `);
      fillIndex(db, "fts_text", report);
    },
  },
  {
    version: 6,
    description:
      "the history of memory files: every create, edit, move and delete of a key under " +
      "/memories/ keeps a row with the text it left (history.ts writes them)",
    up(db) {
      // One row per change. key is the file the change left behind (a move's destination);
      // from_key is a move's source. text, tags and metadata are the file as the change left
      // it, or, for a delete, as it was when deleted, so that it can be brought back.
      // version is the version the change made (a delete: the version it deleted). Rows are
      // written by triggers that history.ts installs on each connection, so a write and its
      // row commit together. seq is the rowid, not AUTOINCREMENT: that would add a write of
      // sqlite_sequence to every change (memory-file writes cost 1.2-1.5x instead of 1.8x of
      // other writes: `pnpm bench history-cost`); pruning removes the oldest rows, so seq
      // still only grows while any history is kept.
      db.exec(`
        CREATE TABLE memory_history (
          seq      INTEGER PRIMARY KEY,
          key      TEXT NOT NULL,
          op       TEXT NOT NULL CHECK (op IN ('create', 'update', 'move', 'delete')),
          from_key TEXT,
          version  INTEGER NOT NULL,
          text     TEXT NOT NULL,
          tags     TEXT NOT NULL,
          metadata TEXT NOT NULL,
          hash     TEXT NOT NULL,
          bytes    INTEGER NOT NULL,
          at       TEXT NOT NULL,
          actor    TEXT,
          command  TEXT
        );
        CREATE INDEX memory_history_by_key ON memory_history (key, seq);
        CREATE INDEX memory_history_by_from_key ON memory_history (from_key, seq)
          WHERE from_key IS NOT NULL;
        CREATE INDEX memory_history_by_at ON memory_history (at);
      `);
    },
  },
  {
    version: 7,
    description:
      "when each memory was last read (the day), so that files unused for long can be found " +
      "and pruned (access.ts records reads in batches)",
    up(db) {
      db.exec(`
        CREATE TABLE memory_access (
          memory_id INTEGER PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
          read_on   TEXT NOT NULL
        );
      `);
    },
  },
  {
    version: 8,
    description:
      "a bounded history: versions kept as splices of the next newer one (or not at all while " +
      "they are the memory's text now), the bytes the history and the live text take, and " +
      "what the history dropped and why",
    slow: "measure the history of memory files",
    up(db, report) {
      // stored: how the row keeps its text (history-delta.ts). 'full' (every row written
      // before this migration), 'live' (the memory's text now: none kept), or 'delta' (a
      // splice of the text of the newer row `base`: keep `head` code points from its start
      // and `tail` from its end, with `text` between them). run: splices in a row ending at
      // this one, so that every so often a version is kept whole. A row depends only on newer
      // ones: dropping the oldest rows (retention, the byte budget) leaves every other row
      // readable, and dropping a row drops the older rows that depend on it (cascade).
      //
      // history_usage: one row, kept by triggers in each write's own transaction: the bytes
      // of the memories' texts (live_bytes) and what the history's rows take
      // (history_bytes, each row costing HISTORY_ROW_COST), and how many rows it has. A write
      // that leaves the history over its budget drops the oldest rows (history-budget.ts).
      //
      // history_dropped: per reason ('bytes': the budget; 'disk_full': room made on a full
      // disk; 'versions' and 'days': retention), how many changes were dropped, the time of
      // the newest of them (through), and when they were last dropped (at).
      report.step("measuring the history of memory files");
      db.exec(`
        ALTER TABLE memory_history ADD COLUMN stored TEXT NOT NULL DEFAULT 'full'
          CHECK (stored IN ('full', 'live', 'delta'));
        ALTER TABLE memory_history ADD COLUMN base INTEGER
          REFERENCES memory_history (seq) ON DELETE CASCADE;
        ALTER TABLE memory_history ADD COLUMN head INTEGER;
        ALTER TABLE memory_history ADD COLUMN tail INTEGER;
        ALTER TABLE memory_history ADD COLUMN run INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX memory_history_by_base ON memory_history (base) WHERE base IS NOT NULL;

        CREATE TABLE history_usage (
          id            INTEGER PRIMARY KEY CHECK (id = 1),
          live_bytes    INTEGER NOT NULL,
          history_bytes INTEGER NOT NULL,
          history_rows  INTEGER NOT NULL
        );
        INSERT INTO history_usage (id, live_bytes, history_bytes, history_rows)
        SELECT 1,
          (SELECT coalesce(sum(bytes), 0) FROM memories),
          (SELECT coalesce(sum(${HISTORY_ROW_COST.replaceAll("%", "h")}), 0) FROM memory_history h),
          (SELECT count(*) FROM memory_history);
        CREATE TRIGGER history_usage_live_insert AFTER INSERT ON memories BEGIN
          UPDATE history_usage SET live_bytes = live_bytes + new.bytes WHERE id = 1;
        END;
        CREATE TRIGGER history_usage_live_delete AFTER DELETE ON memories BEGIN
          UPDATE history_usage SET live_bytes = live_bytes - old.bytes WHERE id = 1;
        END;
        CREATE TRIGGER history_usage_live_update AFTER UPDATE OF bytes ON memories
          WHEN new.bytes IS NOT old.bytes
        BEGIN
          UPDATE history_usage SET live_bytes = live_bytes + new.bytes - old.bytes WHERE id = 1;
        END;
        CREATE TRIGGER history_usage_insert AFTER INSERT ON memory_history BEGIN
          UPDATE history_usage SET
            history_bytes = history_bytes + ${HISTORY_ROW_COST.replaceAll("%", "new")},
            history_rows = history_rows + 1
          WHERE id = 1;
        END;
        CREATE TRIGGER history_usage_delete AFTER DELETE ON memory_history BEGIN
          UPDATE history_usage SET
            history_bytes = history_bytes - ${HISTORY_ROW_COST.replaceAll("%", "old")},
            history_rows = history_rows - 1
          WHERE id = 1;
        END;
        CREATE TRIGGER history_usage_update AFTER UPDATE ON memory_history BEGIN
          UPDATE history_usage SET history_bytes = history_bytes
            + ${HISTORY_ROW_COST.replaceAll("%", "new")} - ${HISTORY_ROW_COST.replaceAll("%", "old")}
          WHERE id = 1;
        END;

        CREATE TABLE history_dropped (
          reason  TEXT PRIMARY KEY CHECK (reason IN ('bytes', 'disk_full', 'versions', 'days')),
          changes INTEGER NOT NULL,
          through TEXT NOT NULL,
          at      TEXT NOT NULL
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    // Self-contained (it reads no other migration's objects), so it can take another number
    // if migrations meet at a merge.
    version: 9,
    description:
      "an index on each memory's last change (updated_at), so that recall filtered by time " +
      "reads the memories in a time range without looking at the others",
    up(db) {
      // 0.6 s for 100,000 memories on a loaded 2-core machine: not announced as slow.
      db.exec("CREATE INDEX memories_by_updated_at ON memories (updated_at)");
    },
  },
  {
    // Self-contained, as 9 is.
    version: 10,
    description:
      "an index on each memory's id with its last change, so that recall checks whether a " +
      "memory is in a time range without reading the memory's row",
    up(db) {
      // Recall filtered by a wide time range checks its best candidates one by one: from the
      // row, each check read a page of texts (about 50 µs at 100,000 memories when recall's
      // own reads had pushed it out of the page cache), from this index a few µs (its pages
      // are small enough to stay cached). 0.2 s for 100,000 memories.
      db.exec("CREATE INDEX memories_by_id_updated_at ON memories (id, updated_at)");
    },
  },
];

/** How many memories the store holds. */
export function memoryCount(db: Database): number {
  return (db.prepare("SELECT count(*) AS n FROM memories").get() as { n: number }).n;
}

/** "1 memory", "120,000 memories". */
function count(memories: number): string {
  return `${memories.toLocaleString("en-US")} ${memories === 1 ? "memory" : "memories"}`;
}

/**
 * Fills the empty full-text index `memories_fts` from `column` of every memory, in batches of
 * rows in id order ({@link batchOf}), reporting each. Indexes what FTS5's 'rebuild'
 * command would (every row of the content table), but in steps that can tell their progress.
 * Inserts cost more than 'rebuild' (a schema-4 store of 100,000 memories opens in about 1.4
 * times the time, `pnpm bench attack old-store`): the price of telling how far it is.
 */
function fillIndex(db: Database, column: "text" | "fts_text", report: MigrationReport): void {
  const total = memoryCount(db);
  const task = `rebuilding the full-text index of ${count(total)}`;
  report.step(task);
  const batchEnd = db.prepare(
    `SELECT max(id) AS end FROM (SELECT id FROM memories WHERE id > ? ORDER BY id LIMIT ${batchOf(total)})`,
  );
  const fill = db.prepare(
    `INSERT INTO memories_fts (rowid, ${column}) SELECT id, ${column} FROM memories WHERE id > ? AND id <= ?`,
  );
  // Below every rowid SQLite hands out (they can be negative only when written so).
  let after: number | bigint = -(2n ** 63n);
  let done = 0;
  for (;;) {
    const { end } = batchEnd.get(after) as { end: number | null };
    if (end === null) break;
    done += Number(fill.run(after, end).changes);
    report.progress(task, done, total);
    after = end;
  }
}

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** The schema version recorded in the database file. */
export function schemaVersion(db: Database): number {
  return pragma(db, "user_version") as number;
}

/**
 * Brings the database up to `target` (default: the latest), one transaction per migration,
 * telling `report` what the long ones do.
 * Refuses a database written by a newer version of this code rather than guess at it.
 */
export function migrate(db: Database, target = SCHEMA_VERSION, report = SILENT): void {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `the database has schema version ${current}, newer than the ${SCHEMA_VERSION} this version of @hms/store knows; upgrade hms-mcp`,
    );
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= current || migration.version > target) continue;
    transaction(db, () => {
      // Another process may have migrated while this one waited for the write lock.
      if (schemaVersion(db) >= migration.version) return;
      migration.up(db, report);
      db.exec(`PRAGMA user_version = ${migration.version}`);
    });
  }
}
