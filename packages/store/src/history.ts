/**
 * The history of memory files: every create, edit, move and delete of a key under /memories/
 * keeps a row (schema migration 6) with the file as the change left it, when, and who or
 * what made it. Rows are written by triggers in the write's own transaction, so a change and
 * its history commit together, whichever operation made the change. A row keeps its text as
 * history-delta.ts says (schema migration 8): none while it is the memory's text now, then a
 * splice of the next version's text, or the whole text. Read, restore and prune are here; the
 * byte budget is history-budget.ts's; retention is the caller's choice (`prune`).
 */
import type { StoreContext } from "./context.js";
import { type HistoryBudget, WRITE_DROP_BYTES } from "./history-budget.js";
import {
  MAX_RUN,
  MAX_SPLICE_SHARE,
  type StoredText,
  spliceOf,
  type TextReads,
  textSteps,
} from "./history-delta.js";
import type {
  Attribution,
  DropReason,
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
  textReads,
} from "./sqlite/driver.js";

export type {
  Attribution,
  DropReason,
  HistoryDrop,
  HistoryDropEvent,
  HistoryEntry,
  HistoryOp,
  HistoryPage,
  HistoryVersion,
  TreeRestoreResult,
} from "./history-types.js";

const ENTRY_COLUMNS = "seq, key, op, from_key, version, hash, bytes, at, actor, command";
/** A row's stored text, with `text` read as `text` does it on this connection (driver.ts). */
const storedColumns = (text: string) => `stored, ${text} AS text, base, head, tail`;
const MEMORY_FILES = "substr(%.key, 1, 10) = '/memories/'";

interface VersionRow extends Omit<HistoryVersion, "tags" | "metadata" | "text">, StoredText {
  tags: string;
  metadata: string;
}

/** A row as far as its text goes, for following splices. */
type TextRow = StoredText & { seq: number };

/** The splice of the last pair of texts asked for: the triggers ask three times per pair. */
let lastSplice: { older: string; newer: string; splice: ReturnType<typeof spliceOf> } | undefined;

function spliceFor(older: string, newer: string): ReturnType<typeof spliceOf> {
  if (lastSplice?.older !== older || lastSplice.newer !== newer) {
    lastSplice = { older, newer, splice: spliceOf(older, newer) };
  }
  return lastSplice.splice;
}

/**
 * The triggers that record history on one connection. They are TEMP objects (this
 * connection's own) and take each change's actor and command from `attribution`, through
 * functions of this connection: the attribution is this process's, never another's, and a
 * store opened by an older version of this code, which has no such triggers, simply records
 * nothing. The splice functions they call are this connection's too.
 *
 * A create, or a move or edit that leaves a memory file, records the change with no text
 * ('live': it is the memory's text). The row of the version it replaced (the key's newest
 * row, if it is that version's live row) then keeps a splice of the new text, or its whole
 * text when the splice would be more than half of it or the run of splices too long. A delete
 * keeps the whole text, and the deleted version's row becomes a splice of it (an empty one).
 */
export function installHistoryTriggers(db: Database, attribution: () => Attribution): void {
  // Node 22's node:sqlite cuts a function's text argument at its first NUL: the texts come
  // as their bytes where it does (textReads), and are read back whole here.
  const reads = textReads(db);
  const splice = (part: "head" | "tail" | "middle") => (older: unknown, newer: unknown) =>
    spliceFor(reads.text(older), reads.text(newer))[part];
  db.function("hms_splice_head", { deterministic: true }, splice("head"));
  db.function("hms_splice_tail", { deterministic: true }, splice("tail"));
  db.function("hms_splice_middle", { deterministic: true }, splice("middle"));
  // The attribution lives in this process (a call sets it, its writes' triggers read it):
  // keeping it in a table cost two statements a call, reads included.
  db.function("hms_actor", {}, () => attribution().actor ?? null);
  db.function("hms_command", {}, () => attribution().command ?? null);
  const arg = (text: string) => reads.column(text);
  const files = (row: string) => MEMORY_FILES.replace("%", row);
  const record = (op: string, row: string, fromKey: string, at: string, live: string) => `
    INSERT INTO memory_history (key, op, from_key, version, text, stored, tags, metadata, hash,
      bytes, at, actor, command)
    SELECT ${row}.key, ${op}, ${fromKey}, ${row}.version,
      CASE WHEN ${live} THEN '' ELSE ${row}.text END,
      CASE WHEN ${live} THEN 'live' ELSE 'full' END,
      ${row}.tags, ${row}.metadata, ${row}.hash, ${row}.bytes, ${at}, hms_actor(), hms_command();`;
  // The row just recorded is last_insert_rowid(); the one it replaces is the key's newest
  // before it, if that is the old version's live row.
  const replaced = `seq = (SELECT max(seq) FROM memory_history
      WHERE key = old.key AND seq < last_insert_rowid())`;
  const keepReplaced = (newer: string) => `
    UPDATE memory_history SET stored = 'delta', base = last_insert_rowid(),
      head = hms_splice_head(${arg("old.text")}, ${arg(newer)}),
      tail = hms_splice_tail(${arg("old.text")}, ${arg(newer)}),
      text = hms_splice_middle(${arg("old.text")}, ${arg(newer)}),
      run = 1 + coalesce((SELECT p.run FROM memory_history p
                          WHERE p.base = memory_history.seq AND p.stored = 'delta'), 0)
    WHERE ${replaced} AND stored = 'live' AND version = old.version;
    UPDATE memory_history SET stored = 'full', base = NULL, head = NULL, tail = NULL,
      text = old.text, run = 0
    WHERE ${replaced} AND stored = 'delta' AND base = last_insert_rowid()
      AND (run > ${MAX_RUN} OR length(text) > ${MAX_SPLICE_SHARE} * length(old.text));`;
  db.exec(`
    CREATE TEMP TRIGGER IF NOT EXISTS history_on_insert AFTER INSERT ON main.memories
      WHEN ${files("new")}
    BEGIN ${record("'create'", "new", "NULL", "new.updated_at", "1")} END;
    CREATE TEMP TRIGGER IF NOT EXISTS history_on_update AFTER UPDATE ON main.memories
      WHEN new.version IS NOT old.version AND (${files("new")} OR ${files("old")})
    BEGIN ${record(
      "CASE WHEN new.key IS old.key THEN 'update' ELSE 'move' END",
      "new",
      "CASE WHEN new.key IS old.key THEN NULL ELSE old.key END",
      "new.updated_at",
      files("new"),
    )} ${keepReplaced("new.text")} END;
    CREATE TEMP TRIGGER IF NOT EXISTS history_on_delete AFTER DELETE ON main.memories
      WHEN ${files("old")}
    BEGIN ${record(
      "'delete'",
      "old",
      "NULL",
      "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
      "0",
    )} ${keepReplaced("old.text")} END;
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
   * not exist then), as a new version recorded with the command an enclosing call named (else
   * `restore`). With
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
   * Deletes history rows beyond the newest `keepVersions` of each file, rows older than
   * `keepDays`, and the oldest rows while the history takes more than `maxBytes` (or the live
   * text's bytes, when that is more; see `StoreOptions.historyBytes`), at most `limit` rows
   * (and 16 MiB) per call, in one short transaction, so that a large history is pruned in
   * steps between other writes. Older rows kept as splices of a deleted one go with it.
   * Returns how many rows it deleted, and records them as dropped (`HistoryPage.dropped`).
   */
  prune(options: PruneOptions): number;
}

/** What {@link StoreHistory.prune} keeps, and how much it deletes per call. */
export interface PruneOptions {
  readonly keepVersions?: number | undefined;
  readonly keepDays?: number | undefined;
  readonly maxBytes?: number | undefined;
  readonly limit?: number | undefined;
}

/** Reads, restores and prunes the history of one store (see {@link StoreHistory}). */
export class History implements StoreHistory {
  readonly #ctx: StoreContext;
  /** Who the writes now running are made by: {@link attributed} sets it. */
  #attribution: Attribution = {};
  readonly #ofKey: SqliteStatement;
  readonly #under: SqliteStatement;
  readonly #version: SqliteStatement;
  readonly #lastAtOrBefore: SqliteStatement;
  readonly #firstAfter: SqliteStatement;
  readonly #keysUnder: SqliteStatement;
  readonly #budget: HistoryBudget;
  readonly #text: TextReads<TextRow>;
  /** A text column read as `textReads` reads it on this connection, as the text it holds. */
  readonly #decode: (value: unknown) => string;
  readonly #olderThan: SqliteStatement;
  readonly #beyondVersions: SqliteStatement;
  readonly #dropSeq: SqliteStatement;

  constructor(db: Database, ctx: StoreContext, budget: HistoryBudget) {
    this.#ctx = ctx;
    this.#budget = budget;
    installHistoryTriggers(db, () => this.#attribution);
    const reads = textReads(db);
    const text = reads.column("text");
    const VERSION_COLUMNS = `${ENTRY_COLUMNS}, tags, metadata, ${storedColumns(text)}`;
    const row = db.prepare(
      `SELECT seq, key, version, hash, ${storedColumns(text)} FROM memory_history WHERE seq = ?`,
    );
    const live = db.prepare(
      `SELECT ${text} AS text FROM memories WHERE key = ? AND version = ? AND hash = ?`,
    );
    const wholeText = <R extends { text: unknown }>(found: R | undefined) =>
      found === undefined ? undefined : { ...found, text: reads.text(found.text) };
    this.#decode = (value) => reads.text(value);
    this.#text = {
      row: (seq) => wholeText(row.get(seq) as TextRow | undefined),
      live: (key, version, hash) =>
        wholeText(live.get(key, version, hash) as { text: string } | undefined)?.text,
    };
    this.#olderThan = db.prepare(
      "SELECT seq, at FROM memory_history WHERE at < ? ORDER BY at LIMIT ?",
    );
    this.#beyondVersions = db.prepare(
      `SELECT seq, at FROM (
         SELECT seq, at, row_number() OVER (PARTITION BY key ORDER BY seq DESC) AS n
         FROM memory_history)
       WHERE n > ? LIMIT ?`,
    );
    this.#dropSeq = db.prepare("DELETE FROM memory_history WHERE seq = ?");
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

  /**
   * A restore's attribution: `actor`, and the command an enclosing call named (the inspector's
   * or hms's restore), else `restore`.
   */
  #restoring(actor: string | undefined): Attribution {
    return { actor, command: this.#attribution.command ?? "restore" };
  }

  /** Runs `body` with its writes recorded as made by `who`. */
  attributed<T>(who: Attribution, body: () => T): T {
    // Nested calls (a restore inside a call the server attributes) keep what they do not set.
    const outer = this.#attribution;
    this.#attribution = {
      actor: who.actor ?? outer.actor,
      command: who.command ?? outer.command,
    };
    try {
      return body();
    } finally {
      this.#attribution = outer;
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
    return row === undefined ? undefined : this.#toVersion(row);
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
      if (last.op === "delete" || last.key !== checked) return null;
      // A version whose text cannot be read (a row it needs is gone) is not known either.
      return this.#toVersion(last) ?? "unknown";
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
   * not exist then), as a new version recorded with the command an enclosing call named (else
   * `restore`). With
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
    return this.attributed(this.#restoring(options.actor), () =>
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
    return this.attributed(this.#restoring(options.actor), () =>
      this.#ctx.write(() => runSync(restoreTreeSteps(this.#writes, checked, time))),
    );
  }

  /**
   * Deletes history rows beyond the newest `keepVersions` of each file, rows older than
   * `keepDays`, and the oldest rows while the history takes more than `maxBytes` or the live
   * text, at most `limit` rows per call (one short transaction), so a caller can prune a
   * large history in steps between other writes. Returns how many rows it deleted.
   */
  prune(options: PruneOptions): number {
    const limit = checkInteger(options.limit ?? 500, "limit", 1, 100_000);
    const days =
      options.keepDays === undefined
        ? undefined
        : checkInteger(options.keepDays, "keepDays", 0, 1_000_000);
    const keep =
      options.keepVersions === undefined
        ? undefined
        : checkInteger(options.keepVersions, "keepVersions", 1, 1_000_000);
    const maxBytes =
      options.maxBytes === undefined
        ? undefined
        : checkInteger(options.maxBytes, "maxBytes", 1, Number.MAX_SAFE_INTEGER);
    return this.#ctx.write(() => {
      let deleted = 0;
      if (days !== undefined) {
        const cutoff = new Date(Date.now() - days * 86_400_000).toISOString();
        deleted += this.#drop("days", this.#olderThan.all(cutoff, limit) as SeqAt[]);
      }
      if (keep !== undefined && deleted < limit) {
        deleted += this.#drop(
          "versions",
          this.#beyondVersions.all(keep, limit - deleted) as SeqAt[],
        );
      }
      if (maxBytes !== undefined && deleted < limit) {
        const excess = this.#budget.excess(maxBytes);
        if (excess > 0) {
          deleted += this.#budget.dropOldest(
            Math.min(excess, WRITE_DROP_BYTES),
            "bytes",
            limit - deleted,
          );
        }
      }
      return deleted;
    });
  }

  /** Deletes `rows` (and the older rows kept as splices of them), recording them as dropped. */
  #drop(reason: DropReason, rows: SeqAt[]): number {
    if (rows.length === 0) return 0;
    const changes = this.#budget.counting(() => {
      for (const { seq } of rows) this.#dropSeq.run(seq);
    });
    let through = "";
    for (const row of rows) if (row.at > through) through = row.at;
    this.#budget.record(reason, changes.rows, through, changes.bytes);
    return changes.rows;
  }

  /** The text of `row`, following its splices; undefined when a row it needs is gone. */
  #textOf(row: TextRow | VersionRow): string | undefined {
    return runSync(textSteps(row as TextRow, this.#text));
  }

  /** A row as a version, or undefined when its text cannot be read. */
  #toVersion(read: VersionRow): HistoryVersion | undefined {
    const row = { ...read, text: this.#decode(read.text) };
    const text = this.#textOf(row);
    if (text === undefined) return undefined;
    const { stored: _stored, base: _base, head: _head, tail: _tail, ...entry } = row;
    return {
      ...entry,
      text,
      tags: JSON.parse(row.tags) as string[],
      metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    };
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
    return {
      entries: rows,
      next_before: more && last ? last.seq : null,
      dropped: this.#budget.dropped(),
    };
  }
}

/** A row's place and time, as pruning selects them. */
interface SeqAt {
  seq: number;
  at: string;
}
