import type BetterSqlite3 from "better-sqlite3";

type Database = BetterSqlite3.Database;

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
  readonly up: (db: Database) => void;
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
    up(db) {
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
        INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
      `);
    },
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** The schema version recorded in the database file. */
export function schemaVersion(db: Database): number {
  return db.pragma("user_version", { simple: true }) as number;
}

/**
 * Brings the database up to `target` (default: the latest), one transaction per migration.
 * Refuses a database written by a newer version of this code rather than guess at it.
 */
export function migrate(db: Database, target = SCHEMA_VERSION): void {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new Error(
      `the database has schema version ${current}, newer than the ${SCHEMA_VERSION} this version of @hms/store knows; upgrade hms-mcp`,
    );
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= current || migration.version > target) continue;
    db.transaction(() => {
      // Another process may have migrated while this one waited for the write lock.
      if (schemaVersion(db) >= migration.version) return;
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}
