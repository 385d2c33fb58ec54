/**
 * The store: records and compare-and-set here (open, remember, get, list, export, forget,
 * stats); the tree operations in tree.ts, recall and search in recall/, each over the store's
 * `StoreContext` (context.ts). SQLite is reached through sqlite/ only; sqlite/database.ts says
 * where a second engine would plug in.
 */
import { createHash } from "node:crypto";
import {
  checkExpected,
  nextVersions,
  notFound,
  now,
  type StoreContext,
  selectionOf,
  versionConflict,
} from "./context.js";
import { Embeddings } from "./embeddings.js";
import { StoreError } from "./errors.js";
import { decodeCursor, encodeCursor } from "./keys.js";
import {
  checkInteger,
  checkKey,
  checkMetadata,
  checkTags,
  checkText,
  DEFAULT_LIMITS,
  type Limits,
  MAX_TEXT_BYTES_CEILING,
} from "./limits.js";
import { isMemoryFile } from "./memory-file.js";
import { indexText } from "./recall/cjk.js";
import { Highlighter } from "./recall/highlight.js";
import { DEFAULT_FUSION, HybridRanker } from "./recall/hybrid.js";
import { LexicalRanker } from "./recall/lexical.js";
import type { Ranker } from "./recall/ranker.js";
import { recall } from "./recall/recall.js";
import { search } from "./recall/search.js";
import { VectorIndex } from "./recall/vector-index.js";
import {
  openDatabase,
  type SqliteDatabase,
  synchronousOf,
  writeTransaction,
} from "./sqlite/database.js";
import { schemaVersion } from "./sqlite/schema.js";
import {
  bindSelection,
  type Head,
  type ListRow,
  prepare,
  type Row,
  type ShapedStatements,
} from "./sqlite/statements.js";
import {
  checkMemoryFile,
  forgetPrefix,
  forgetTree,
  move,
  movePrefix,
  moveTree,
  pathConflict,
  treeConflict,
} from "./tree.js";
import {
  DEFAULT_PAGE,
  EXPORT_PAGE_BYTES,
  type ExportPage,
  type ListPage,
  MAX_PAGE,
  type MemoryRecord,
  type PageOptions,
  type RecallOptions,
  type RecallResult,
  type RememberInput,
  type RememberResult,
  type SearchHit,
  type SearchOptions,
  type StoreOptions,
  type StoreStats,
  type SynchronousMode,
} from "./types.js";

// The public types and bounds live in types.ts; imports of them from here keep working.
export * from "./types.js";

function hashOf(text: string): string {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

function toRecord(row: Row): MemoryRecord {
  return {
    key: row.key,
    text: row.text,
    tags: JSON.parse(row.tags) as string[],
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    version: row.version,
    hash: row.hash,
    bytes: row.bytes,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * One store: a SQLite file in WAL mode holding one namespace's memories.
 *
 * Every write is one IMMEDIATE transaction, so concurrent writers (threads of this process or
 * other processes on the same file) serialize on SQLite's write lock and preconditions are
 * checked and applied atomically. By default `synchronous = FULL` makes each commit wait for
 * the WAL to be on disk, so an acknowledged write survives a crash of the process and of the
 * machine (`options.synchronous: "normal"` trades the machine-crash guarantee for speed).
 * All methods are synchronous and cheap to call: statements are prepared once, at open.
 */
export class MemoryStore {
  /** The file this store lives in. */
  readonly file: string;
  readonly limits: Limits;
  readonly #db: SqliteDatabase;
  /** The embedding queue and vectors, when the store was opened with `embeddings`. */
  readonly embeddings: Embeddings | undefined;
  readonly #ranker: Ranker;
  readonly #highlighter: Highlighter;
  /** What the operations share; the tree, recall and search ones live in their own modules. */
  readonly #ctx: StoreContext;

  private constructor(file: string, db: SqliteDatabase, options: StoreOptions) {
    this.file = file;
    this.#db = db;
    const maxTextBytes = checkInteger(
      options.maxTextBytes ?? DEFAULT_LIMITS.maxTextBytes,
      "maxTextBytes",
      1,
      MAX_TEXT_BYTES_CEILING,
    );
    this.limits = Object.freeze({ ...DEFAULT_LIMITS, maxTextBytes });
    this.#ctx = {
      limits: this.limits,
      sql: prepare(db),
      write: <T>(body: () => T): T => writeTransaction(db, body),
    };
    const hybrid = options.embeddings;
    this.embeddings = hybrid === undefined ? undefined : new Embeddings(db, hybrid.model);
    const defaultRanker = (d: SqliteDatabase): Ranker => {
      if (hybrid === undefined) return new LexicalRanker(d);
      const index = new VectorIndex(d, hybrid.model.dimensions);
      index.sync();
      return new HybridRanker(d, hybrid.model.id, index, hybrid.fusion ?? DEFAULT_FUSION);
    };
    this.#ranker = (options.ranker ?? defaultRanker)(db);
    this.#highlighter = new Highlighter(db);
  }

  /**
   * Opens (creating if needed) the store in `file`, brings its schema up to date, and checks
   * that it belongs to `options.namespace` when one is given.
   */
  static open(file: string, options: StoreOptions = {}): MemoryStore {
    const db = openDatabase(file, options);
    try {
      return new MemoryStore(file, db, options);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** True until {@link close}. */
  get open(): boolean {
    return this.#db.open;
  }

  /** The durability setting in force (read back from SQLite). */
  get synchronous(): SynchronousMode {
    return synchronousOf(this.#db);
  }

  /** Closes the database (the WAL is checkpointed). Idempotent. */
  close(): void {
    if (this.#db.open) this.#db.close();
  }

  /**
   * Creates or replaces a memory, subject to its preconditions, in one transaction.
   * Every successful call gives the memory a new version (the clock's next value).
   */
  remember(input: RememberInput): RememberResult {
    const write = this.#prepareRemember(input);
    return this.#ctx.write(() => write());
  }

  /**
   * Applies many writes in one transaction: all of them or, if any is refused, none (the
   * error is that write's). For bulk loads and restores; one commit instead of one per write.
   */
  rememberMany(inputs: readonly RememberInput[]): RememberResult[] {
    const writes = inputs.map((input) => this.#prepareRemember(input));
    return this.#ctx.write(() => writes.map((write) => write()));
  }

  /** Validates a write and returns the function that applies it inside a transaction. */
  #prepareRemember(input: RememberInput): () => RememberResult {
    const key = checkKey(input.key, this.limits);
    const { text, bytes } = checkText(input.text, this.limits);
    const tags = input.tags === undefined ? undefined : checkTags(input.tags, this.limits);
    const metadata =
      input.metadata === undefined ? undefined : checkMetadata(input.metadata, this.limits);
    const expected = checkExpected(input.expectedVersion);
    if (expected !== undefined && input.ifAbsent) {
      throw new StoreError(
        "INVALID_ARGUMENT",
        "expected_version and if_absent are mutually exclusive: a key cannot both exist at a version and not exist",
      );
    }
    const hash = hashOf(text);
    return () => {
      const head = this.#ctx.sql.head.get(key) as Head | undefined;
      const at = now();
      if (head === undefined) {
        if (expected !== undefined) {
          throw new StoreError(
            "NOT_FOUND",
            `${key} does not exist, so it cannot be at the expected version ${expected}`,
            { key, expected_version: expected },
          );
        }
        const finalTags = tags ?? [];
        checkMemoryFile(key, finalTags);
        if (isMemoryFile(key, finalTags)) {
          const found = treeConflict(this.#ctx, key);
          if (found !== undefined) throw pathConflict(`cannot create ${key}`, found);
        }
        const version = nextVersions(this.#ctx, 1);
        const id = Number(
          this.#ctx.sql.insert.run({
            key,
            text,
            index_text: indexText(text),
            tags: JSON.stringify(finalTags),
            metadata: metadata ?? "{}",
            version,
            hash,
            bytes,
            created_at: at,
            updated_at: at,
          }).lastInsertRowid,
        );
        for (const tag of finalTags) this.#ctx.sql.addTag.run(tag, id);
        return { key, version, bytes, hash, created: true, updated_at: at };
      }
      if (input.ifAbsent) {
        throw new StoreError("EXISTS", `${key} already exists (at version ${head.version})`, {
          key,
          current_version: head.version,
        });
      }
      if (expected !== undefined && head.version !== expected) {
        throw versionConflict(key, head.version, expected);
      }
      const finalTags = tags ?? (JSON.parse(head.tags) as string[]);
      checkMemoryFile(key, finalTags);
      const version = nextVersions(this.#ctx, 1);
      this.#ctx.sql.update.run({
        id: head.id,
        text,
        index_text: indexText(text),
        tags: JSON.stringify(finalTags),
        metadata: metadata ?? head.metadata,
        version,
        hash,
        bytes,
        updated_at: at,
      });
      if (tags !== undefined) {
        this.#ctx.sql.clearTags.run(head.id);
        for (const tag of finalTags) this.#ctx.sql.addTag.run(tag, head.id);
      }
      return { key, version, bytes, hash, created: false, updated_at: at };
    };
  }

  /** The memory at `key`, or `undefined`. */
  get(key: string): MemoryRecord | undefined {
    const row = this.#ctx.sql.get.get(checkKey(key, this.limits)) as Row | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  /** Keys in key order, a page at a time, with sizes, versions and tags. */
  list(options: PageOptions = {}): ListPage {
    const { statement, params, limit } = this.#pageQuery(this.#ctx.sql.listPage, options);
    // Rows as arrays (the statement is raw) and all at once: a listing is on the path of every
    // directory view, and both cost less than objects read one by one.
    const rows = statement.all({ ...params, limit: limit + 1 }) as ListRow[];
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const items = rows.map(([key, bytes, version, tags, updated_at]) => ({
      key,
      bytes,
      version,
      tags: JSON.parse(tags) as string[],
      updated_at,
    }));
    const last = items[items.length - 1];
    return { items, next_cursor: more && last ? encodeCursor(last.key) : null };
  }

  /**
   * Whole records in key order, a page at a time: at most `limit` of them, and fewer when
   * their text and metadata reach {@link EXPORT_PAGE_BYTES}.
   */
  export(options: PageOptions = {}): ExportPage {
    const { statement, params, limit } = this.#pageQuery(this.#ctx.sql.exportPage, options);
    // Read one row at a time, so a page stops at its size bound without reading further.
    const memories: MemoryRecord[] = [];
    let bytes = 0;
    let more = false;
    const found = statement.iterate({ ...params, limit: limit + 1 }) as IterableIterator<Row>;
    for (const row of found) {
      const size = row.bytes + row.metadata.length;
      if (memories.length === limit || (memories.length > 0 && bytes + size > EXPORT_PAGE_BYTES)) {
        more = true;
        found.return?.();
        break;
      }
      memories.push(toRecord(row));
      bytes += size;
    }
    const last = memories[memories.length - 1];
    return { memories, next_cursor: more && last ? encodeCursor(last.key) : null };
  }

  /** Deletes one memory; NOT_FOUND if absent, VERSION_CONFLICT if not at `expectedVersion`. */
  forget(key: string, options: { expectedVersion?: number | undefined } = {}): { deleted: number } {
    const checked = checkKey(key, this.limits);
    const expected = checkExpected(options.expectedVersion);
    return this.#ctx.write(() => {
      const head = this.#ctx.sql.head.get(checked) as Head | undefined;
      if (head === undefined) throw notFound(checked);
      if (expected !== undefined && head.version !== expected) {
        throw versionConflict(checked, head.version, expected);
      }
      this.#ctx.sql.deleteId.run(head.id);
      return { deleted: 1 };
    });
  }

  /** Deletes every memory whose key starts with `prefix` (non-empty), in one transaction. */
  forgetPrefix(prefix: string): { deleted: number } {
    return forgetPrefix(this.#ctx, prefix);
  }

  /**
   * Deletes `key` and every memory whose key starts with `key/` (a file or a directory of the
   * memory tool), in one transaction. NOT_FOUND if none of them exists.
   */
  forgetTree(key: string): { deleted: number } {
    return forgetTree(this.#ctx, key);
  }

  /**
   * Renames one memory. NOT_FOUND if `from` is absent, VERSION_CONFLICT if `from` is not at
   * `expectedVersion`, EXISTS if `to` is `from` or exists, PATH_CONFLICT if `to` is a memory
   * file and keys lie under it or one of its ancestors is a key, INVALID_ARGUMENT if `to` is
   * not a valid memory-file key. Text, tags, metadata and created_at are kept; the version
   * takes the clock's next value.
   */
  move(
    from: string,
    to: string,
    options: { expectedVersion?: number | undefined } = {},
  ): { moved: number } {
    return move(this.#ctx, from, to, options);
  }

  /**
   * Renames every memory whose key starts with `fromPrefix` to `toPrefix` + the rest, in one
   * transaction: all or nothing. NOT_FOUND if none starts with `fromPrefix`, EXISTS if any
   * destination exists, INVALID_ARGUMENT if `toPrefix` starts with `fromPrefix` or a
   * destination is not a valid key.
   */
  movePrefix(fromPrefix: string, toPrefix: string): { moved: number } {
    return movePrefix(this.#ctx, fromPrefix, toPrefix);
  }

  /**
   * Moves `from` (if it exists) and every memory whose key starts with `from/` to `to` and
   * `to/` + the rest (a file or a directory of the memory tool), in one transaction. The first
   * failing check decides the refusal, and nothing changes:
   *
   * 1. NOT_FOUND: neither `from` nor any key under `from/` exists;
   * 2. EXISTS: `to` is `from`;
   * 3. INVALID_ARGUMENT (`reason: "into_itself"`): keys lie under `from/` and `to` starts with
   *    `from/`;
   * 4. EXISTS: `to` exists, or a key starts with `to/`;
   * 5. PATH_CONFLICT (`conflict: "file"`, `path`): a proper ancestor of `to` below `/memories`
   *    is a key (the shortest one);
   * 6. INVALID_ARGUMENT (`reason: "invalid_key"`, `key`): the first new key, in key order, that
   *    is too long or a memory file failing the memory-path rules.
   *
   * Text, tags, metadata and created_at are kept; each record takes a new version.
   */
  moveTree(from: string, to: string): { moved: number } {
    return moveTree(this.#ctx, from, to);
  }

  /**
   * The memories most relevant to `query`, best first, each with an excerpt and its line range.
   * Any string is a valid query; one without words has no hits.
   */
  recall(query: string, options: RecallOptions = {}): RecallResult {
    return recall(this.#ctx, this.#ranker, this.#highlighter, query, options);
  }

  /**
   * Lines containing `text` literally (case-insensitive), in key order then line order, at
   * most `limit` lines in all.
   */
  search(text: string, options: SearchOptions = {}): { hits: SearchHit[] } {
    return search(this.#ctx, text, options);
  }

  /** Counts and sizes of this store. */
  stats(): StoreStats {
    const totals = this.#ctx.sql.totals.get() as { memories: number; bytes: number };
    return {
      memories: totals.memories,
      bytes: totals.bytes,
      schema_version: schemaVersion(this.#db),
      recall: {
        build: this.#ranker.build,
        model: this.#ranker.model,
        pending: this.embeddings?.pendingCount() ?? 0,
      },
    };
  }

  /**
   * One page of rows: at most `limit`, and, with `maxBytes`, no more rows than fit in that many
   * bytes of text and metadata (at least one). Rows are read one at a time, so a page never
   * reads more than it returns, plus one.
   */
  /** The statement, parameters and checked limit of one page of a listing or an export. */
  #pageQuery(statements: ShapedStatements, options: PageOptions) {
    const { prefix, tag } = selectionOf(this.#ctx, options);
    const limit = checkInteger(options.limit ?? DEFAULT_PAGE, "limit", 1, MAX_PAGE);
    const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
    const { params, shape } = bindSelection(prefix, tag, after);
    return { statement: statements.for(shape), params, limit };
  }
}
