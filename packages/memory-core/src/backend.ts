/**
 * The storage contract of the memory engine. Any store that can keep versioned text under
 * string keys can serve Claude's memory tool by implementing {@link MemoryBackend}; the
 * engine does everything else (paths, directories, strings, retries).
 *
 * The contract maps 1:1 onto hms-mcp's tools (see `@hms/protocol`) and onto the Python
 * port's `MemoryBackend` protocol (same method names in snake_case, same error codes).
 */
import { errorBrand, HmsError, hasBrand } from "@hms/memory-paths";

/**
 * A version token. The engine never does arithmetic on it or orders it; it only hands back
 * what the backend gave it, to make a compare-and-set. hms-mcp uses integers; a backend over
 * an object store could use ETag strings.
 */
export type MemoryVersion = number | string;

/** A file as read: its whole text and the version that text has. */
export interface StoredFile {
  readonly content: string;
  readonly version: MemoryVersion;
}

/** One file found by {@link MemoryBackend.list}. */
export interface FileEntry {
  /** The full key, e.g. `/memories/projects/acme.md`. */
  readonly path: string;
  /** The UTF-8 byte length of the file's text. */
  readonly bytes: number;
  readonly version: MemoryVersion;
}

/**
 * Versioned storage of memory files. Keys are full memory paths (`/memories/...`), already
 * validated by the engine; directories are implicit (a directory exists while some key lies
 * under it), so the backend stores files only.
 *
 * Every method is asynchronous and each call is atomic on its own. The five methods are the
 * minimum. One capability may be declared, {@link tree}: it makes a delete or a rename a single
 * all-or-nothing step instead of a sequence of per-file steps. {@link recall} serves the
 * `memory_recall` tool.
 */
export interface MemoryBackend {
  /** The file at `path`, or `null` if there is none. */
  read(path: string): Promise<StoredFile | null>;

  /**
   * Every file whose key starts with `prefix` (a plain string prefix, not path-aware: the
   * files under directory `/memories/a` are listed with prefix `/memories/a/`), at any depth,
   * ordered by key in Unicode code point order. With `limit`, at most that many (the first
   * ones in that order); the engine passes `limit: 1` to ask whether a directory exists.
   */
  list(prefix: string, limit?: number): Promise<FileEntry[]>;

  /**
   * Stores a new file only if `path` does not exist; returns its version, which must differ
   * from every version `path` had before (a path deleted and created again must not get an
   * old version back, or a writer holding that version could overwrite the new file).
   * Throws `EXISTS` if it does, `TOO_LARGE` if `content` is over the limit; with
   * {@link tree}, also `IS_DIRECTORY` or `UNDER_FILE`.
   */
  create(path: string, content: string): Promise<MemoryVersion>;

  /**
   * Compare-and-set: replaces the text of `path` only if its version is `expectedVersion`;
   * returns the new version, which must differ from every version the file had before.
   * Throws `VERSION_CONFLICT` if the version differs, `NOT_FOUND` if the file does not exist,
   * `TOO_LARGE` if `content` is over the limit. The three are distinguishable on purpose:
   * the engine retries a conflict and reports a missing file.
   */
  update(path: string, content: string, expectedVersion: MemoryVersion): Promise<MemoryVersion>;

  /**
   * Deletes one file, if given only when it is at `expectedVersion`.
   * Throws `NOT_FOUND` if it does not exist, `VERSION_CONFLICT` if the version differs.
   */
  delete(path: string, expectedVersion?: MemoryVersion): Promise<void>;

  /**
   * The one capability a backend may declare: tree operations. A backend that offers them
   * also keeps the tree of files well formed by itself, in the same atomic step as the write:
   * `create` refuses a path that has files under it (`IS_DIRECTORY`) or that lies under a
   * file (`UNDER_FILE`, with `file`: the shortest such ancestor below `/memories`), after
   * `EXISTS`. Two writers racing to create `/memories/a` and `/memories/a/b.md` then cannot
   * both succeed, the engine skips its own checks before a create, and `delete` and `rename`
   * are one call each. Without it the engine checks first, then deletes and renames file by
   * file (copy, then delete the original, undoing the copies on failure).
   */
  readonly tree?: TreeOperations;

  /**
   * Optional: the memory files most relevant to `query`, best first, at most `k` (1 to 50).
   * Without it the engine serves every command but `memory_recall`.
   *
   * With `range`, only files last changed within it, chosen before the best `k` are taken (a
   * filter applied to the best `k` afterwards would return too few), each hit with its
   * `updatedAt`. The engine checks the hits against the range, and refuses a backend whose
   * hits lie outside it or lack `updatedAt` (one written before ranges, which ignores them).
   */
  recall?(query: string, k: number, range?: RecallTimeRange): Promise<RecallHit[]>;

  /**
   * Optional: the history of memory files (hms-mcp keeps every change as a version). Not used
   * by the memory tool's commands; for people and programs that audit and correct them.
   */
  readonly history?: HistoryOperations;

  /**
   * Optional: the largest text the backend stores, in UTF-8 bytes (hms-mcp's
   * `max_text_bytes`). The engine checks every write against the smaller of this and its own
   * `maxFileBytes` before anything is stored.
   */
  readonly maxFileBytes?: number;
}

/** Whole directories deleted and moved in one atomic step. See {@link MemoryBackend.tree}. */
export interface TreeOperations {
  /**
   * Deletes the file `path` (if any) and every file under `path/` in one step, and returns
   * how many there were. Throws `NOT_FOUND` if there were none.
   */
  deleteTree(path: string): Promise<number>;

  /**
   * Renames the file `from` (if any) to `to`, and every file under `from/` to the same place
   * under `to/`, in one step; returns how many were moved. The first failing check, in this
   * order, decides the refusal, and nothing changes:
   *
   * 1. `NOT_FOUND`: neither `from` nor any file under `from/` exists;
   * 2. `EXISTS`: `to` is `from`;
   * 3. `INTO_ITSELF`: some file lies under `from/` and `to` starts with `from/`;
   * 4. `EXISTS`: `to` exists, or some file lies under `to/`;
   * 5. `UNDER_FILE` (with `file`): a proper ancestor of `to` below `/memories` is a file
   *    (the shortest one is named);
   * 6. `INVALID_KEY` (with `key`): a new path is not a valid memory path (the first, in code
   *    point order, is named).
   *
   * Moved files get new versions.
   */
  moveTree(from: string, to: string): Promise<number>;
}

/** One change of a memory file, as {@link HistoryOperations.changes} lists it. */
export interface FileChange {
  /** What the change did. A move lists under both paths; a delete keeps the version it deleted. */
  readonly op: "create" | "update" | "move" | "delete";
  /** The file the change left behind (a move's destination). */
  readonly path: string;
  /** A move's source, else null. */
  readonly fromPath: string | null;
  /** The version the change made (a delete: the version it deleted). */
  readonly version: number;
  readonly bytes: number;
  /** ISO 8601 UTC. */
  readonly at: string;
  /** What made it (the server's tool, a client's command name, or `restore`), if known. */
  readonly command: string | null;
  /** Who made it (the caller's token name), if known. */
  readonly actor: string | null;
}

/** The history of memory files. See {@link MemoryBackend.history}. */
export interface HistoryOperations {
  /** The changes of the file at `path`, newest first, at most `limit` (default 100). */
  changes(path: string, limit?: number): Promise<FileChange[]>;
  /**
   * Brings the file back to `version` (a deleted file comes back) as a new version, and
   * returns that version. `NOT_FOUND` if the history holds no such version.
   */
  restore(path: string, version: number): Promise<number>;
}

/**
 * The time range of a recall: files last changed at or after `modifiedAfter` and before
 * `modifiedBefore`, either optional. The engine gives both as UTC with milliseconds
 * (`2026-07-01T00:00:00.000Z`, `checkIsoTime` of @hms/memory-paths), so a backend that keeps
 * times in that form compares them as text.
 */
export interface RecallTimeRange {
  readonly modifiedAfter?: string | undefined;
  readonly modifiedBefore?: string | undefined;
}

/** One memory file found by {@link MemoryBackend.recall}. */
export interface RecallHit {
  /** The file's path, e.g. `/memories/customers/acme.md`. */
  readonly path: string;
  /**
   * Relevance in (0, 1], higher is better, on an absolute scale: it does not depend on the
   * other hits. In hms-mcp's lexical build, the hit's BM25 as a share of the most any memory
   * could score for the query (0.45 for a memory of average length holding every query word
   * once; above 0.2 a match on much of the query, below 0.1 likely noise; 0.001 for a hit
   * holding only words most memories hold). In the hybrid build, 0.6 × that share + 0.4 × the
   * calibrated embedding similarity (above 0.3 a strong match, below 0.2 likely noise). The
   * two builds' scores are on different scales.
   */
  readonly score: number;
  /** A verbatim passage of the file around the match. */
  readonly excerpt: string;
  /** The first line of the range to view, 1-based; the range holds the excerpt. */
  readonly lineStart: number;
  /** The last line of the range to view, 1-based, inclusive. */
  readonly lineEnd: number;
  /**
   * When the file last changed, ISO 8601 with a timezone (hms-mcp: UTC with milliseconds), if
   * the backend knows; `memory_recall` shows it. Required of hits answering a time range.
   */
  readonly updatedAt?: string | undefined;
}

/**
 * Why a backend refused an operation. The first four are hms-mcp's codes:
 *
 * - `NOT_FOUND`: the file (for a tree operation, the path and everything under it) does not
 *   exist.
 * - `EXISTS`: a create-if-absent (or a tree move's destination) found the path taken.
 * - `VERSION_CONFLICT`: the file exists but is not at the expected version.
 * - `TOO_LARGE`: the text is over the backend's size limit; nothing was stored.
 *
 * The other four are refusals of a backend with the {@link MemoryBackend.tree} capability;
 * hms-mcp sends them as `PATH_CONFLICT` and `INVALID_ARGUMENT` with details:
 *
 * - `IS_DIRECTORY`: a create found files under the path (it is a directory).
 * - `UNDER_FILE`: the path would lie under a file; `file` names it (the shortest such one).
 * - `INTO_ITSELF`: a tree move of a directory to a path inside it.
 * - `INVALID_KEY`: a tree move would give a file a path that is not valid (a deeper
 *   destination can break the length or depth limit); `key` names the first such new path,
 *   in code point order.
 *
 * Any other failure (network, disk, ...) is thrown as whatever error it is; the engine lets
 * it through unchanged.
 */
export type MemoryBackendErrorCode =
  | "NOT_FOUND"
  | "EXISTS"
  | "VERSION_CONFLICT"
  | "TOO_LARGE"
  | "IS_DIRECTORY"
  | "UNDER_FILE"
  | "INTO_ITSELF"
  | "INVALID_KEY";

/** The details a {@link MemoryBackendError} may carry, by code. */
export interface MemoryBackendErrorDetails {
  /** For `TOO_LARGE`: the backend's limit in UTF-8 bytes, when known. */
  limit?: number;
  /** For `UNDER_FILE`: the file the path would lie under (the shortest such ancestor). */
  file?: string;
  /** For `INVALID_KEY`: the first new path, in code point order, that is not valid. */
  key?: string;
}

const BRAND = errorBrand("MemoryBackendError");

/** A refusal the engine understands and acts on. See {@link MemoryBackendErrorCode}. */
export class MemoryBackendError extends HmsError {
  override readonly name = "MemoryBackendError";
  readonly [BRAND] = true;
  readonly code: MemoryBackendErrorCode;
  /** The path the operation was about (a move's source). */
  readonly path: string;
  /** For `TOO_LARGE`: the backend's limit in UTF-8 bytes, when known. */
  readonly limit: number | undefined;
  /** For `UNDER_FILE`: the file the path would lie under (the shortest such ancestor). */
  readonly file: string | undefined;
  /** For `INVALID_KEY`: the first new path, in code point order, that is not valid. */
  readonly key: string | undefined;

  constructor(
    code: MemoryBackendErrorCode,
    path: string,
    message?: string,
    details: MemoryBackendErrorDetails = {},
  ) {
    super(message ?? `${code}: ${path}`);
    this.code = code;
    this.path = path;
    this.limit = details.limit;
    this.file = details.file;
    this.key = details.key;
  }

  /**
   * Whether `error` is a MemoryBackendError (with `code`, if given), made by any copy of this
   * package.
   */
  static override isInstance(
    error: unknown,
    code?: MemoryBackendErrorCode,
  ): error is MemoryBackendError {
    return (
      hasBrand(error, BRAND) && (code === undefined || (error as MemoryBackendError).code === code)
    );
  }
}
