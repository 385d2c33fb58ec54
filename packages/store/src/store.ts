import { createHash } from "node:crypto";
import { Embeddings } from "./embeddings.js";
import { StoreError } from "./errors.js";
import { decodeCursor, encodeCursor } from "./keys.js";
import {
  checkInteger,
  checkKey,
  checkMetadata,
  checkPrefix,
  checkTag,
  checkTags,
  checkText,
  DEFAULT_LIMITS,
  type Limits,
  MAX_TEXT_BYTES_CEILING,
} from "./limits.js";
import { isMemoryFile, memoryAncestors, memoryFileKeyProblem } from "./memory-file.js";
import { indexText } from "./recall/cjk.js";
import { excerptOf } from "./recall/excerpt.js";
import { Highlighter } from "./recall/highlight.js";
import { DEFAULT_FUSION, HybridRanker } from "./recall/hybrid.js";
import { LexicalRanker } from "./recall/lexical.js";
import { foldCase, matchingLines } from "./recall/lines.js";
import type { Ranker, RecallBuild } from "./recall/ranker.js";
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
  type Statements,
} from "./sqlite/statements.js";

import {
  DEFAULT_PAGE,
  DEFAULT_RECALL_K,
  EXPORT_PAGE_BYTES,
  type ExportPage,
  type ListPage,
  MAX_PAGE,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
  MAX_SEARCH_CHARS,
  type MemoryRecord,
  type PageOptions,
  type RecallOptions,
  type RecallResult,
  type RememberInput,
  type RememberResult,
  type SearchHit,
  type SearchOptions,
  type Selection,
  type StoreOptions,
  type StoreStats,
  type SynchronousMode,
} from "./types.js";

// The public types and bounds live in types.ts; imports of them from here keep working.
export * from "./types.js";

function hashOf(text: string): string {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

function now(): string {
  return new Date().toISOString();
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

function versionConflict(key: string, current: number, expected: number): StoreError {
  return new StoreError(
    "VERSION_CONFLICT",
    `${key} is at version ${current}, not the expected version ${expected}`,
    { key, current_version: current, expected_version: expected },
  );
}

function notFound(key: string): StoreError {
  return new StoreError("NOT_FOUND", `${key} does not exist`, { key });
}

/** A tree form's NOT_FOUND: neither the key nor anything under it exists. */
function treeNotFound(key: string): StoreError {
  return new StoreError("NOT_FOUND", `neither ${key} nor any key under ${key}/ exists`, { key });
}

/**
 * Why giving a memory-file key existence would make a key both a file and a directory:
 * `directory` when keys lie under it, `file` when one of its ancestors is a key. `path` is the
 * key that is a directory, or the shortest ancestor that is a file.
 */
interface TreeConflict {
  readonly conflict: "directory" | "file";
  readonly path: string;
  /** Says what is in the way, for the error message. */
  readonly reason: string;
}

function pathConflict(action: string, found: TreeConflict): StoreError {
  return new StoreError("PATH_CONFLICT", `${action}: ${found.reason}`, {
    conflict: found.conflict,
    path: found.path,
  });
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
  readonly #sql: Statements;

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
    this.#sql = prepare(db);
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
    return this.#write(() => write());
  }

  /**
   * Applies many writes in one transaction: all of them or, if any is refused, none (the
   * error is that write's). For bulk loads and restores; one commit instead of one per write.
   */
  rememberMany(inputs: readonly RememberInput[]): RememberResult[] {
    const writes = inputs.map((input) => this.#prepareRemember(input));
    return this.#write(() => writes.map((write) => write()));
  }

  /** Validates a write and returns the function that applies it inside a transaction. */
  #prepareRemember(input: RememberInput): () => RememberResult {
    const key = checkKey(input.key, this.limits);
    const { text, bytes } = checkText(input.text, this.limits);
    const tags = input.tags === undefined ? undefined : checkTags(input.tags, this.limits);
    const metadata =
      input.metadata === undefined ? undefined : checkMetadata(input.metadata, this.limits);
    const expected = this.#expected(input.expectedVersion);
    if (expected !== undefined && input.ifAbsent) {
      throw new StoreError(
        "INVALID_ARGUMENT",
        "expected_version and if_absent are mutually exclusive: a key cannot both exist at a version and not exist",
      );
    }
    const hash = hashOf(text);
    return () => {
      const head = this.#sql.head.get(key) as Head | undefined;
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
        this.#checkMemoryFile(key, finalTags);
        if (isMemoryFile(key, finalTags)) {
          const found = this.#treeConflict(key);
          if (found !== undefined) throw pathConflict(`cannot create ${key}`, found);
        }
        const version = this.#nextVersions(1);
        const id = Number(
          this.#sql.insert.run({
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
        for (const tag of finalTags) this.#sql.addTag.run(tag, id);
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
      this.#checkMemoryFile(key, finalTags);
      const version = this.#nextVersions(1);
      this.#sql.update.run({
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
        this.#sql.clearTags.run(head.id);
        for (const tag of finalTags) this.#sql.addTag.run(tag, head.id);
      }
      return { key, version, bytes, hash, created: false, updated_at: at };
    };
  }

  /** The memory at `key`, or `undefined`. */
  get(key: string): MemoryRecord | undefined {
    const row = this.#sql.get.get(checkKey(key, this.limits)) as Row | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  /** Keys in key order, a page at a time, with sizes, versions and tags. */
  list(options: PageOptions = {}): ListPage {
    const { statement, params, limit } = this.#pageQuery(this.#sql.listPage, options);
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
    const { statement, params, limit } = this.#pageQuery(this.#sql.exportPage, options);
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
    const expected = this.#expected(options.expectedVersion);
    return this.#write(() => {
      const head = this.#sql.head.get(checked) as Head | undefined;
      if (head === undefined) throw notFound(checked);
      if (expected !== undefined && head.version !== expected) {
        throw versionConflict(checked, head.version, expected);
      }
      this.#sql.deleteId.run(head.id);
      return { deleted: 1 };
    });
  }

  /** Deletes every memory whose key starts with `prefix` (non-empty), in one transaction. */
  forgetPrefix(prefix: string): { deleted: number } {
    const checked = checkPrefix(prefix, this.limits, "prefix", false);
    const { params, shape } = bindSelection(checked, undefined);
    return this.#write(() => ({
      deleted: this.#sql.deleteRange.for(shape).run(params).changes,
    }));
  }

  /**
   * Deletes `key` and every memory whose key starts with `key/` (a file or a directory of the
   * memory tool), in one transaction. NOT_FOUND if none of them exists.
   */
  forgetTree(key: string): { deleted: number } {
    const checked = checkKey(key, this.limits);
    const under = bindSelection(`${checked}/`, undefined);
    return this.#write(() => {
      const deleted =
        this.#sql.deleteKey.run(checked).changes +
        this.#sql.deleteRange.for(under.shape).run(under.params).changes;
      if (deleted === 0) throw treeNotFound(checked);
      return { deleted };
    });
  }

  /**
   * Renames one memory. NOT_FOUND if `from` is absent, VERSION_CONFLICT if `from` is not at
   * `expectedVersion`, EXISTS if `to` is `from` or exists, PATH_CONFLICT if `to` is a memory
   * file and keys lie under it or one of its ancestors is a key, INVALID_ARGUMENT if `to` is
   * not a valid memory-file key. Text, tags, metadata and created_at are kept; the version
   * takes the clock's next value.
   */
  move(from: string, to: string, options: { expectedVersion?: number | undefined } = {}) {
    const source = checkKey(from, this.limits, "from");
    const target = checkKey(to, this.limits, "to");
    const expected = this.#expected(options.expectedVersion);
    return this.#write(() => {
      const head = this.#sql.head.get(source) as Head | undefined;
      if (head === undefined) throw notFound(source);
      if (expected !== undefined && head.version !== expected) {
        throw versionConflict(source, head.version, expected);
      }
      if (source === target) {
        throw new StoreError("EXISTS", `cannot move ${source} onto itself`, { key: target });
      }
      if (this.#sql.head.get(target) !== undefined) {
        throw new StoreError("EXISTS", `cannot move ${source} to ${target}: ${target} exists`, {
          key: target,
        });
      }
      const tags = JSON.parse(head.tags) as string[];
      if (isMemoryFile(target, tags)) {
        const found = this.#treeConflict(target);
        if (found !== undefined) throw pathConflict(`cannot move ${source} to ${target}`, found);
      }
      this.#checkMemoryFile(target, tags);
      this.#sql.rename.run({
        id: head.id,
        key: target,
        version: this.#nextVersions(1),
        updated_at: now(),
      });
      return { moved: 1 };
    });
  }

  /**
   * Renames every memory whose key starts with `fromPrefix` to `toPrefix` + the rest, in one
   * transaction: all or nothing. NOT_FOUND if none starts with `fromPrefix`, EXISTS if any
   * destination exists, INVALID_ARGUMENT if `toPrefix` starts with `fromPrefix` or a
   * destination is not a valid key.
   */
  movePrefix(fromPrefix: string, toPrefix: string): { moved: number } {
    const from = checkPrefix(fromPrefix, this.limits, "from_prefix", false);
    const to = checkPrefix(toPrefix, this.limits, "to_prefix", false);
    if (to.startsWith(from)) {
      throw new StoreError(
        "INVALID_ARGUMENT",
        `to_prefix ${JSON.stringify(to)} starts with from_prefix ${JSON.stringify(from)}: cannot move keys under themselves`,
      );
    }
    const { params, shape } = bindSelection(from, undefined);
    return this.#write(() => {
      const sources = this.#sql.headsInRange.for(shape).all(params) as (Head & { key: string })[];
      if (sources.length === 0) {
        throw new StoreError("NOT_FOUND", `no key starts with ${JSON.stringify(from)}`, {
          prefix: from,
        });
      }
      const moves = sources.map((source) => {
        const target = checkKey(to + source.key.slice(from.length), this.limits, "destination key");
        const tags = JSON.parse(source.tags) as string[];
        this.#checkMemoryFile(target, tags);
        return { id: source.id, key: target, memoryFile: isMemoryFile(target, tags) };
      });
      for (const { key } of moves) {
        if (this.#sql.head.get(key) !== undefined) {
          throw new StoreError("EXISTS", `cannot move to ${key}: it exists`, { key });
        }
      }
      for (const { key, memoryFile } of moves) {
        const found = memoryFile ? this.#treeConflict(key) : undefined;
        if (found !== undefined) throw pathConflict(`cannot move to ${key}`, found);
      }
      this.#renameAll(moves);
      return { moved: moves.length };
    });
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
    const source = checkKey(from, this.limits, "from");
    const target = checkKey(to, this.limits, "to");
    const under = bindSelection(`${source}/`, undefined);
    return this.#write(() => {
      const own = this.#sql.head.get(source) as Head | undefined;
      const children = this.#sql.headsInRange.for(under.shape).all(under.params) as (Head & {
        key: string;
      })[];
      // Key order: `from` sorts before every key that starts with `from/`.
      const sources = own === undefined ? children : [{ ...own, key: source }, ...children];
      if (sources.length === 0) throw treeNotFound(source);
      if (target === source) {
        throw new StoreError("EXISTS", `cannot move ${source} onto itself`, { key: target });
      }
      if (children.length > 0 && target.startsWith(`${source}/`)) {
        throw new StoreError(
          "INVALID_ARGUMENT",
          `cannot move the directory ${source} into itself: ${target} lies under it`,
          { reason: "into_itself" },
        );
      }
      const blocking = this.#sql.head.get(target) !== undefined ? target : this.#firstUnder(target);
      if (blocking !== undefined) {
        const why =
          blocking === target
            ? `${target} exists`
            : `${target} exists as a directory (${blocking} lies under it)`;
        throw new StoreError("EXISTS", `cannot move ${source} to ${target}: ${why}`, {
          key: target,
        });
      }
      const fileAbove = this.#fileAncestor(target);
      if (fileAbove !== undefined) {
        throw pathConflict(`cannot move ${source} to ${target}`, fileAbove);
      }
      const moves = sources.map((record) => {
        const key = target + record.key.slice(source.length);
        const problem = this.#newKeyProblem(key, JSON.parse(record.tags) as string[]);
        if (problem !== undefined) {
          throw new StoreError(
            "INVALID_ARGUMENT",
            `cannot move ${record.key} to ${key}: ${problem}`,
            {
              reason: "invalid_key",
              key,
            },
          );
        }
        return { id: record.id, key };
      });
      this.#renameAll(moves);
      return { moved: moves.length };
    });
  }

  /**
   * The memories most relevant to `query`, best first, each with an excerpt and its line range.
   * Any string is a valid query; one without words has no hits.
   */
  recall(query: string, options: RecallOptions = {}): RecallResult {
    if (typeof query !== "string")
      throw new StoreError("INVALID_ARGUMENT", "query must be a string");
    if (Buffer.byteLength(query, "utf8") > MAX_QUERY_BYTES) {
      throw new StoreError("INVALID_ARGUMENT", `query is over ${MAX_QUERY_BYTES} bytes`);
    }
    const k = checkInteger(options.k ?? DEFAULT_RECALL_K, "k", 1, MAX_RECALL_K);
    const filter = this.#selection(options);
    const { vector } = options;
    if (vector !== undefined && !(vector instanceof Float32Array)) {
      throw new StoreError("INVALID_ARGUMENT", "a query vector must be a Float32Array");
    }
    const build: RecallBuild =
      this.#ranker.build === "hybrid" && vector !== undefined ? "hybrid" : "lexical";
    const ranked = this.#ranker.rank(query, filter, k, { vector });
    const hits = ranked.flatMap(({ id, score, passage }) => {
      const row = this.#sql.keyText.get(id) as { key: string; text: string } | undefined;
      if (row === undefined) return [];
      const highlighted = this.#highlighter.highlight(id, query);
      const excerpt = excerptOf(row.text, highlighted, passage?.lineStart);
      return [{ key: row.key, score, ...excerpt }];
    });
    return { hits, build };
  }

  /**
   * Lines containing `text` literally (case-insensitive), in key order then line order, at
   * most `limit` lines in all.
   */
  search(text: string, options: SearchOptions = {}): { hits: SearchHit[] } {
    if (typeof text !== "string" || text.length === 0) {
      throw new StoreError("INVALID_ARGUMENT", "text to search for must be a non-empty string");
    }
    if (text.length > MAX_SEARCH_CHARS) {
      throw new StoreError(
        "INVALID_ARGUMENT",
        `text to search for is over ${MAX_SEARCH_CHARS} characters`,
      );
    }
    if (text.includes("\n")) {
      throw new StoreError(
        "INVALID_ARGUMENT",
        "search matches within one line: text must not contain a line break",
      );
    }
    const limit = checkInteger(options.limit ?? DEFAULT_PAGE, "limit", 1, MAX_PAGE);
    const { prefix, tag } = this.#selection(options);
    const needle = foldCase(text);
    const { params, shape } = bindSelection(prefix, tag);
    const hits: SearchHit[] = [];
    const rows = this.#sql.searchRows
      .for(shape)
      .iterate({ ...params, needle }) as IterableIterator<{
      key: string;
      text: string;
    }>;
    for (const row of rows) {
      for (const hit of matchingLines(row.text, needle, limit - hits.length)) {
        hits.push({ key: row.key, ...hit });
      }
      if (hits.length >= limit) {
        rows.return?.();
        break;
      }
    }
    return { hits };
  }

  /** Counts and sizes of this store. */
  stats(): StoreStats {
    const totals = this.#sql.totals.get() as { memories: number; bytes: number };
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

  #write<T>(body: () => T): T {
    return writeTransaction(this.#db, body);
  }

  /**
   * Takes `n` new versions from the store-wide clock (inside a write transaction) and returns
   * the first; the others follow it. Every value is above every version ever written to the
   * store, so no key ever gets a version it had before.
   */
  #nextVersions(n: number): number {
    const { value } = this.#sql.tick.get(n) as { value: number };
    return value - n + 1;
  }

  /** Renames records (in a write transaction), each to a new version of the clock. */
  #renameAll(moves: readonly { id: number; key: string }[]): void {
    const first = this.#nextVersions(moves.length);
    const at = now();
    moves.forEach(({ id, key }, i) => {
      this.#sql.rename.run({ id, key, version: first + i, updated_at: at });
    });
  }

  #expected(value: number | undefined): number | undefined {
    return value === undefined
      ? undefined
      : checkInteger(value, "expected_version", 1, Number.MAX_SAFE_INTEGER);
  }

  #selection(options: Selection): { prefix: string | undefined; tag: string | undefined } {
    const prefix =
      options.prefix === undefined ? undefined : checkPrefix(options.prefix, this.limits);
    const tag = options.tag === undefined ? undefined : checkTag(options.tag, this.limits);
    return { prefix: prefix || undefined, tag };
  }

  /**
   * One page of rows: at most `limit`, and, with `maxBytes`, no more rows than fit in that many
   * bytes of text and metadata (at least one). Rows are read one at a time, so a page never
   * reads more than it returns, plus one.
   */
  /** The statement, parameters and checked limit of one page of a listing or an export. */
  #pageQuery(statements: ShapedStatements, options: PageOptions) {
    const { prefix, tag } = this.#selection(options);
    const limit = checkInteger(options.limit ?? DEFAULT_PAGE, "limit", 1, MAX_PAGE);
    const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
    const { params, shape } = bindSelection(prefix, tag, after);
    return { statement: statements.for(shape), params, limit };
  }

  /**
   * Why creating the memory-file key `key` would break the memory-file tree: keys lie under it
   * (`directory`), or one of its ancestors below `/memories` is a key (`file`, the shortest).
   */
  #treeConflict(key: string): TreeConflict | undefined {
    const child = this.#firstUnder(key);
    if (child !== undefined) {
      return {
        conflict: "directory",
        path: key,
        reason: `${key} is a directory (${child} lies under it)`,
      };
    }
    return this.#fileAncestor(key);
  }

  /** The shortest proper ancestor of `key` below `/memories` that is a key, as a conflict. */
  #fileAncestor(key: string): TreeConflict | undefined {
    for (const ancestor of memoryAncestors(key)) {
      if (this.#sql.head.get(ancestor) !== undefined) {
        return {
          conflict: "file",
          path: ancestor,
          reason: `${ancestor} is a file, so nothing can lie under it`,
        };
      }
    }
    return undefined;
  }

  /** The first key (in key order) that starts with `key/`, if any. */
  #firstUnder(key: string): string | undefined {
    const { params, shape } = bindSelection(`${key}/`, undefined);
    return this.#sql.firstKeyInRange.for(shape).get(params) as string | undefined;
  }

  /** Why `key` cannot be a new key of a record with `tags`, or undefined when it can. */
  #newKeyProblem(key: string, tags: readonly string[]): string | undefined {
    try {
      checkKey(key, this.limits, "the new key");
    } catch (error) {
      if (error instanceof StoreError) return error.message;
      throw error;
    }
    return isMemoryFile(key, tags) ? memoryFileKeyProblem(key) : undefined;
  }

  #checkMemoryFile(key: string, tags: readonly string[]): void {
    if (!isMemoryFile(key, tags)) return;
    const problem = memoryFileKeyProblem(key);
    if (problem !== undefined) {
      throw new StoreError("INVALID_ARGUMENT", problem, { key });
    }
  }
}
