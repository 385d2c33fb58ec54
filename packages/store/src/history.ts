/**
 * The history of memory files: every create, edit, move and delete of a key under /memories/
 * keeps a row (schema migration 6) with the file as the change left it, when, and who or
 * what made it. Rows are written by triggers in the write's own transaction, so a change and
 * its history commit together, whichever operation made the change. Read, restore and prune
 * are here; retention is the caller's choice (`prune`).
 */
import type { StoreContext } from "./context.js";
import type {
  Attribution,
  HistoryEntry,
  HistoryPage,
  HistoryVersion,
  TreeRestoreResult,
} from "./history-types.js";
import { checkInteger, checkKey, checkPrefix, checkTime } from "./limits.js";
import { forget, remember } from "./records.js";
import {
  applyRestoreSteps,
  type FileRestoreResult,
  type RestoreWrites,
  restoreTargetSteps,
  restoreTreeSteps,
} from "./rules/restore.js";
import { runSync } from "./rules/steps.js";
import {
  type SqliteDatabase as Database,
  plainRows,
  type SqliteStatement,
  type TextReads,
  textReads,
} from "./sqlite/driver.js";

export type {
  Attribution,
  HistoryEntry,
  HistoryOp,
  HistoryPage,
  HistoryVersion,
  TreeRestoreResult,
} from "./history-types.js";

const ENTRY_COLUMNS = "seq, key, op, from_key, version, hash, bytes, at, actor, command";
const MEMORY_FILES = "substr(%.key, 1, 10) = '/memories/'";

interface VersionRow extends Omit<HistoryVersion, "text" | "tags" | "metadata"> {
  text: unknown;
  tags: string;
  metadata: string;
}

/**
 * The triggers that record history, and the attribution they read, on one connection. They
 * are TEMP objects (this connection's own): the attribution is this process's, never
 * another's, and a store opened by an older version of this code, which has no such
 * triggers, simply records nothing.
 */
export function installHistoryTriggers(db: Database): void {
  const files = (row: string) => MEMORY_FILES.replace("%", row);
  const insert = (op: string, row: string, fromKey: string, at: string) => `
    INSERT INTO memory_history
      (key, op, from_key, version, text, tags, metadata, hash, bytes, at, actor, command)
    SELECT ${row}.key, ${op}, ${fromKey}, ${row}.version, ${row}.text, ${row}.tags,
      ${row}.metadata, ${row}.hash, ${row}.bytes, ${at}, actor, command
    FROM history_attribution WHERE id = 1;`;
  db.exec(`
    CREATE TEMP TABLE IF NOT EXISTS history_attribution (
      id INTEGER PRIMARY KEY CHECK (id = 1), actor TEXT, command TEXT
    );
    INSERT OR IGNORE INTO history_attribution (id) VALUES (1);
    CREATE TEMP TRIGGER IF NOT EXISTS history_on_insert AFTER INSERT ON main.memories
      WHEN ${files("new")}
    BEGIN ${insert("'create'", "new", "NULL", "new.updated_at")} END;
    CREATE TEMP TRIGGER IF NOT EXISTS history_on_update AFTER UPDATE ON main.memories
      WHEN new.version IS NOT old.version AND (${files("new")} OR ${files("old")})
    BEGIN ${insert(
      "CASE WHEN new.key IS old.key THEN 'update' ELSE 'move' END",
      "new",
      "CASE WHEN new.key IS old.key THEN NULL ELSE old.key END",
      "new.updated_at",
    )} END;
    CREATE TEMP TRIGGER IF NOT EXISTS history_on_delete AFTER DELETE ON main.memories
      WHEN ${files("old")}
    BEGIN ${insert("'delete'", "old", "NULL", "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")} END;
  `);
}

/** The history of one store's memory files: `MemoryStore.history`. */
export interface StoreHistory {
  /**
   * Runs `body` with its writes recorded as made by `who`; what `who` leaves undefined keeps
   * the value of an enclosing call.
   */
  attributed<T>(who: Attribution, body: () => T): T;
  /** A file's changes, newest first (moves into and out of it included). */
  ofFile(key: string, options?: { limit?: number; before?: number }): HistoryPage;
  /** The changes of every file under `prefix` (e.g. `/memories/notes/`) at or after `since`. */
  under(prefix: string, options?: { since?: string; limit?: number; before?: number }): HistoryPage;
  /** The file as version `version` of it left it, or undefined if the history has no such version. */
  version(key: string, version: number): HistoryVersion | undefined;
  /**
   * The file at time `at`: the version it had then, `null` if it did not exist then, or
   * `"unknown"` when the history does not reach back that far.
   */
  stateAt(key: string, at: string): HistoryVersion | null | "unknown";
  /**
   * Brings `key` back to a version of it, or to its state at a time (deleting it if it did
   * not exist then), as a new version recorded with the command `restore`. With
   * `expectedVersion`, only if the file is at that version now (VERSION_CONFLICT otherwise):
   * a change made meanwhile is never overwritten unseen.
   */
  restoreFile(
    key: string,
    target: { version: number } | { at: string },
    options?: { expectedVersion?: number; actor?: string },
  ): { key: string; version: number | null; deleted: boolean };
  /**
   * Brings every file under the directory `key` back to its state at `at`, in one
   * transaction: files are written back, files made since are deleted, and files whose state
   * then the history does not reach are left as they are (and listed).
   */
  restoreTree(key: string, at: string, options?: { actor?: string }): TreeRestoreResult;
  /**
   * Deletes history rows beyond the newest `keepVersions` of each file, and rows older than
   * `keepDays`, at most `limit` rows per call (one short transaction), so that a large
   * history is pruned in steps between other writes. Returns how many rows it deleted.
   */
  prune(options: { keepVersions?: number; keepDays?: number; limit?: number }): number;
}

/** Reads, restores and prunes the history of one store (see {@link StoreHistory}). */
export class History implements StoreHistory {
  readonly #db: Database;
  readonly #ctx: StoreContext;
  /** How this connection reads a text whole (driver.ts). */
  readonly #reads: TextReads;
  readonly #attribute: SqliteStatement;
  readonly #attribution: SqliteStatement;
  readonly #ofKey: SqliteStatement;
  readonly #under: SqliteStatement;
  readonly #version: SqliteStatement;
  readonly #lastAtOrBefore: SqliteStatement;
  readonly #firstAfter: SqliteStatement;
  readonly #keysUnder: SqliteStatement;

  constructor(db: Database, ctx: StoreContext) {
    this.#db = db;
    this.#ctx = ctx;
    this.#reads = textReads(db);
    const VERSION_COLUMNS = `${ENTRY_COLUMNS}, ${this.#reads.column("text")} AS text, tags, metadata`;
    installHistoryTriggers(db);
    this.#attribute = db.prepare(
      "UPDATE temp.history_attribution SET actor = ?, command = ? WHERE id = 1",
    );
    this.#attribution = db.prepare(
      "SELECT actor, command FROM temp.history_attribution WHERE id = 1",
    );
    const touches = "(key = @key OR from_key = @key)";
    this.#ofKey = db.prepare(
      `SELECT ${ENTRY_COLUMNS} FROM memory_history
       WHERE seq IN (SELECT seq FROM memory_history WHERE key = @key
                     UNION SELECT seq FROM memory_history WHERE from_key = @key)
         AND seq < @before
       ORDER BY seq DESC LIMIT @limit`,
    );
    this.#under = db.prepare(
      `SELECT ${ENTRY_COLUMNS} FROM memory_history
       WHERE at >= @since AND seq < @before
         AND (substr(key, 1, length(@prefix)) = @prefix
              OR substr(from_key, 1, length(@prefix)) = @prefix)
       ORDER BY seq DESC LIMIT @limit`,
    );
    this.#version = db.prepare(
      `SELECT ${VERSION_COLUMNS} FROM memory_history
       WHERE key = ? AND version = ? ORDER BY op = 'delete', seq DESC LIMIT 1`,
    );
    this.#lastAtOrBefore = db.prepare(
      `SELECT ${VERSION_COLUMNS} FROM memory_history
       WHERE ${touches} AND at <= @at ORDER BY seq DESC LIMIT 1`,
    );
    this.#firstAfter = db.prepare(
      `SELECT ${VERSION_COLUMNS} FROM memory_history
       WHERE ${touches} AND at > @at ORDER BY seq LIMIT 1`,
    );
    this.#keysUnder = db.prepare(
      `SELECT key FROM memory_history WHERE substr(key, 1, length(@prefix)) = @prefix
       UNION SELECT from_key FROM memory_history
         WHERE substr(from_key, 1, length(@prefix)) = @prefix
       UNION SELECT key FROM memories WHERE substr(key, 1, length(@prefix)) = @prefix`,
    );
  }

  /** Runs `body` with its writes recorded as made by `who`. */
  attributed<T>(who: Attribution, body: () => T): T {
    // Nested calls (a restore inside a call the server attributes) keep what they do not set.
    const outer = this.#attribution.get() as { actor: string | null; command: string | null };
    this.#attribute.run(who.actor ?? outer.actor, who.command ?? outer.command);
    try {
      return body();
    } finally {
      this.#attribute.run(outer.actor, outer.command);
    }
  }

  /** A file's changes, newest first (moves into and out of it included). */
  ofFile(key: string, options: { limit?: number; before?: number } = {}): HistoryPage {
    const checked = checkKey(key, this.#ctx.limits);
    return this.#page(this.#ofKey, { key: checked }, options);
  }

  /** The changes of every file under `prefix` (e.g. `/memories/notes/`) at or after `since`. */
  under(
    prefix: string,
    options: { since?: string; limit?: number; before?: number } = {},
  ): HistoryPage {
    const checked = checkPrefix(prefix, this.#ctx.limits);
    const since = options.since === undefined ? "" : checkTime(options.since, "since");
    return this.#page(this.#under, { prefix: checked, since }, options);
  }

  /** The file as version `version` of it left it, or undefined if the history has no such version. */
  version(key: string, version: number): HistoryVersion | undefined {
    const checked = checkKey(key, this.#ctx.limits);
    const row = this.#version.get(
      checked,
      checkInteger(version, "version", 1, Number.MAX_SAFE_INTEGER),
    ) as VersionRow | undefined;
    return row === undefined ? undefined : toVersion(row, this.#reads);
  }

  /**
   * The file at time `at`: the version it had then, `null` if it did not exist then, or
   * `"unknown"` when the history does not reach back that far.
   */
  stateAt(key: string, at: string): HistoryVersion | null | "unknown" {
    const checked = checkKey(key, this.#ctx.limits);
    const time = checkTime(at, "at");
    const last = this.#lastAtOrBefore.get({ key: checked, at: time }) as VersionRow | undefined;
    if (last !== undefined) {
      return last.op === "delete" || last.key !== checked ? null : toVersion(last, this.#reads);
    }
    const next = this.#firstAfter.get({ key: checked, at: time }) as VersionRow | undefined;
    if (next === undefined) {
      return this.#ctx.sql.head.get(checked) === undefined ? null : "unknown";
    }
    // The first change after `at` made the file (a create, or a move onto it): it did not
    // exist before. Any other first change means it existed, as a version no row holds.
    const made = next.key === checked && (next.op === "create" || next.op === "move");
    return made ? null : "unknown";
  }

  /**
   * Brings `key` back to a version of it, or to its state at a time (deleting it if it did
   * not exist then), as a new version recorded with the command `restore`. With
   * `expectedVersion`, only if the file is at that version now (VERSION_CONFLICT otherwise):
   * a change made meanwhile is never overwritten unseen.
   */
  restoreFile(
    key: string,
    target: { version: number } | { at: string },
    options: { expectedVersion?: number; actor?: string } = {},
  ): FileRestoreResult {
    const checked = checkKey(key, this.#ctx.limits);
    const state = runSync(restoreTargetSteps(this, checked, target));
    return this.attributed({ actor: options.actor, command: "restore" }, () =>
      this.#ctx.write(() =>
        runSync(applyRestoreSteps(this.#writes, checked, state, options.expectedVersion)),
      ),
    );
  }

  /**
   * Brings every file under the directory `key` back to its state at `at`, in one
   * transaction: files are written back, files made since are deleted, and files whose state
   * then the history does not reach are left as they are (and listed).
   */
  restoreTree(key: string, at: string, options: { actor?: string } = {}): TreeRestoreResult {
    const checked = checkKey(key, this.#ctx.limits);
    const time = checkTime(at, "at");
    return this.attributed({ actor: options.actor, command: "restore" }, () =>
      this.#ctx.write(() => runSync(restoreTreeSteps(this.#writes, checked, time))),
    );
  }

  /**
   * Deletes history rows beyond the newest `keepVersions` of each file, and rows older than
   * `keepDays`, at most `limit` rows per call (one short transaction), so a caller can prune
   * a large history in steps between other writes. Returns how many rows it deleted.
   */
  prune(options: { keepVersions?: number; keepDays?: number; limit?: number }): number {
    const limit = checkInteger(options.limit ?? 500, "limit", 1, 100_000);
    let deleted = 0;
    return this.#ctx.write(() => {
      if (options.keepDays !== undefined) {
        const days = checkInteger(options.keepDays, "keepDays", 0, 1_000_000);
        const cutoff = new Date(Date.now() - days * 86_400_000).toISOString();
        deleted += Number(
          this.#db
            .prepare(
              "DELETE FROM memory_history WHERE seq IN (SELECT seq FROM memory_history WHERE at < ? ORDER BY at LIMIT ?)",
            )
            .run(cutoff, limit).changes,
        );
      }
      if (options.keepVersions !== undefined && deleted < limit) {
        const keep = checkInteger(options.keepVersions, "keepVersions", 1, 1_000_000);
        deleted += Number(
          this.#db
            .prepare(
              `DELETE FROM memory_history WHERE seq IN (
               SELECT seq FROM (
                 SELECT seq, row_number() OVER (PARTITION BY key ORDER BY seq DESC) AS n
                 FROM memory_history)
               WHERE n > ? LIMIT ?)`,
            )
            .run(keep, limit - deleted).changes,
        );
      }
      return deleted;
    });
  }

  /** A restore's lookups and writes, inside its write transaction. */
  readonly #writes: RestoreWrites = {
    versionNow: (key) => (this.#ctx.sql.head.get(key) as { version: number } | undefined)?.version,
    filesUnder: (prefix) =>
      (this.#keysUnder.all({ prefix }) as { key: string }[]).map((row) => row.key),
    stateAt: (key, at) => this.stateAt(key, at),
    forget: (key, expectedVersion) => forget(this.#ctx, key, { expectedVersion }),
    remember: (input) => remember(this.#ctx, input),
  };

  #page(
    statement: SqliteStatement,
    params: Record<string, string>,
    options: { limit?: number; before?: number },
  ): HistoryPage {
    const limit = checkInteger(options.limit ?? 100, "limit", 1, 1000);
    const before =
      options.before === undefined
        ? Number.MAX_SAFE_INTEGER
        : checkInteger(options.before, "before", 1, Number.MAX_SAFE_INTEGER);
    const rows = plainRows<HistoryEntry>(statement.all({ ...params, before, limit: limit + 1 }));
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const last = rows[rows.length - 1];
    return { entries: rows, next_before: more && last ? last.seq : null };
  }
}

function toVersion(row: VersionRow, reads: TextReads): HistoryVersion {
  return {
    ...row,
    text: reads.text(row.text),
    tags: JSON.parse(row.tags) as string[],
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}
