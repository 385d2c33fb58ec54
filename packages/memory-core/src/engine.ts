import {
  ancestorPaths,
  baseName,
  checkMemoryPath,
  isUnder,
  MEMORY_ROOT,
  MemoryPathError,
  rebasePath,
  utf8ByteLength,
} from "@hms/memory-paths";
import {
  type MemoryBackend,
  MemoryBackendError,
  type MemoryVersion,
  type RecallHit,
  type RecallTimeRange,
  type StoredFile,
} from "./backend.js";
import {
  type CreateCommand,
  type DeleteCommand,
  type InsertCommand,
  type MemoryCommand,
  type MemoryCreateCommand,
  type MemoryDeleteCommand,
  type MemoryInsertCommand,
  type MemoryRenameCommand,
  type MemoryStrReplaceCommand,
  type MemoryViewCommand,
  type ParsedCommand,
  parseCommand,
  parseCommandAs,
  type RenameCommand,
  type StrReplaceCommand,
  type ViewCommand,
} from "./commands.js";
import { MemoryToolError } from "./errors.js";
import { numberedLine, splitLines } from "./format.js";
import { KnownFiles } from "./known-files.js";
import { messages } from "./messages.js";
import {
  DEFAULT_RECALL_K,
  formatRecall,
  hitInRange,
  parseRecallInput,
  RECALL_BY_TIME_UNSUPPORTED,
  type RecallInput,
} from "./recall.js";
import { renderDirectory, renderFile } from "./render.js";
import { DEFAULT_RETRY_POLICY, RETRY, type RetryPolicy, withRetries } from "./retry.js";

/** Size limit of a memory file when neither the backend nor the options give one (32 KiB). */
export const DEFAULT_MAX_FILE_BYTES = 32_768;
/** Longest `view` output before it is cut at a line boundary, in code points. */
export const DEFAULT_MAX_VIEW_CHARS = 16_000;
/** Compare-and-set attempts per edit before giving up. */
export const DEFAULT_CAS_ATTEMPTS = DEFAULT_RETRY_POLICY.attempts;

/** Options of a {@link MemoryEngine}. All are optional. */
export interface MemoryEngineOptions {
  /**
   * Largest memory file in UTF-8 bytes. Can only lower the backend's own `maxFileBytes`;
   * with neither, {@link DEFAULT_MAX_FILE_BYTES}.
   */
  maxFileBytes?: number;
  /** Longest `view` output, in code points (default {@link DEFAULT_MAX_VIEW_CHARS}). */
  maxViewChars?: number;
  /** How compare-and-set conflicts are retried (defaults: 25 attempts, 2-200 ms jitter). */
  retry?: Partial<RetryPolicy>;
}

/**
 * Runs the memory tool's commands against any {@link MemoryBackend}. Every method takes the
 * command as the Anthropic SDK delivers it, validates all of it before storage is touched,
 * and returns the result string or throws a {@link MemoryToolError}.
 *
 * The method names match the SDK's `MemoryToolHandlers`, so an engine can be passed straight
 * to `betaMemoryTool(engine)` of `@anthropic-ai/sdk/helpers/beta/memory`.
 */
export class MemoryEngine {
  readonly backend: MemoryBackend;
  private readonly ownMaxFileBytes: number | undefined;
  private readonly maxViewChars: number;
  private readonly retry: RetryPolicy;
  /** Files this engine last read or wrote: an edit of one skips its read (see KnownFiles). */
  private readonly known = new KnownFiles();

  constructor(backend: MemoryBackend, options: MemoryEngineOptions = {}) {
    this.backend = backend;
    this.ownMaxFileBytes = positiveInteger("maxFileBytes", options.maxFileBytes);
    this.maxViewChars =
      positiveInteger("maxViewChars", options.maxViewChars) ?? DEFAULT_MAX_VIEW_CHARS;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    positiveInteger("retry.attempts", this.retry.attempts);
  }

  /** The size limit in force: the smaller of the backend's and the options' limits. */
  get maxFileBytes(): number {
    const limits = [this.ownMaxFileBytes, this.backend.maxFileBytes].filter(
      (limit): limit is number => typeof limit === "number",
    );
    return limits.length ? Math.min(...limits) : DEFAULT_MAX_FILE_BYTES;
  }

  /** Runs any command as Claude sent it: checked in full, then dispatched on `command`. */
  async execute(command: MemoryCommand | Record<string, unknown>): Promise<string> {
    return this.run(parseCommand(command));
  }

  /** Runs a command that {@link parseCommand} has already checked. */
  async run(command: ParsedCommand): Promise<string> {
    switch (command.command) {
      case "view":
        return this.#view(command);
      case "create":
        return this.#create(command);
      case "str_replace":
        return this.#strReplace(command);
      case "insert":
        return this.#insert(command);
      case "delete":
        return this.#delete(command);
      case "rename":
        return this.#rename(command);
    }
  }

  // The SDK's per-command handlers (`MemoryToolHandlers`): each checks its input as that command.

  /** `view`: a directory listing (2 levels) or a file's numbered lines. */
  view(command: MemoryViewCommand): Promise<string> {
    return this.#parsed("view", command, (c) => this.#view(c));
  }

  /** `create`: a new file; refuses to overwrite, to replace a directory or to nest in a file. */
  create(command: MemoryCreateCommand): Promise<string> {
    return this.#parsed("create", command, (c) => this.#create(c));
  }

  /** `str_replace`: replaces the one occurrence of `old_str` (anywhere, across lines). */
  str_replace(command: MemoryStrReplaceCommand): Promise<string> {
    return this.#parsed("str_replace", command, (c) => this.#strReplace(c));
  }

  /** `insert`: inserts lines after line `insert_line` (0: at the top). */
  insert(command: MemoryInsertCommand): Promise<string> {
    return this.#parsed("insert", command, (c) => this.#insert(c));
  }

  /** `delete`: a file, or a directory with everything under it; never `/memories`. */
  delete(command: MemoryDeleteCommand): Promise<string> {
    return this.#parsed("delete", command, (c) => this.#delete(c));
  }

  /** `rename`: moves a file or a whole directory to a path that does not exist yet. */
  rename(command: MemoryRenameCommand): Promise<string> {
    return this.#parsed("rename", command, (c) => this.#rename(c));
  }

  /** Whether the backend can recall, so that {@link recall} can run. */
  get canRecall(): boolean {
    return typeof this.backend.recall === "function";
  }

  /**
   * The `memory_recall` tool: `input` as Claude sent it (`query`, optional `k`,
   * `modified_after`, `modified_before`), checked in full; returns the result text (see
   * `formatRecall`). Throws `unsupported` when the backend cannot recall, or cannot by time.
   */
  async recall(input: unknown): Promise<string> {
    const checked = parseRecallInput(input);
    const range = timeRangeOf(checked);
    return formatRecall(await this.#recallHits(checked.query, checked.k, range), range);
  }

  /**
   * The memory files most relevant to `query`, best first: at most `k` (1 to 50); with
   * `range`, only files last changed at or after `modifiedAfter` and before `modifiedBefore`
   * (ISO 8601 times with a timezone), checked as `memory_recall` checks them.
   */
  async recallHits(
    query: string,
    k: number = DEFAULT_RECALL_K,
    range: RecallTimeRange = {},
  ): Promise<RecallHit[]> {
    const checked = parseRecallInput({
      query,
      k,
      modified_after: range.modifiedAfter,
      modified_before: range.modifiedBefore,
    });
    return this.#recallHits(checked.query, checked.k, timeRangeOf(checked));
  }

  async #recallHits(
    query: string,
    k: number,
    range: RecallTimeRange | undefined,
  ): Promise<RecallHit[]> {
    if (!this.backend.recall) {
      throw new MemoryToolError("unsupported", messages.recallUnsupported);
    }
    if (range === undefined) return this.backend.recall(query, k);
    const hits = await this.backend.recall(query, k, range);
    if (!hits.every((hit) => hitInRange(hit, range))) {
      throw new MemoryToolError("unsupported", RECALL_BY_TIME_UNSUPPORTED);
    }
    return hits;
  }

  async #parsed<N extends ParsedCommand["command"]>(
    name: N,
    input: unknown,
    handler: (command: Extract<ParsedCommand, { command: N }>) => Promise<string>,
  ): Promise<string> {
    return handler(parseCommandAs(name, input));
  }

  async #view({ path, viewRange: range }: ViewCommand): Promise<string> {
    if (path === MEMORY_ROOT) {
      if (range) throw new MemoryToolError("invalid_argument", messages.viewRangeOnDirectory(path));
      return renderDirectory(path, await this.backend.list(`${path}/`), this.maxViewChars);
    }
    // A name without an extension is usually a directory: then read and list at once (one
    // round trip to a remote backend instead of two). Either way the result is the same.
    const listing = baseName(path).includes(".") ? undefined : this.backend.list(`${path}/`);
    listing?.catch(() => undefined); // awaited below unless the path is a file
    const file = await this.backend.read(path);
    if (file) {
      this.known.set(path, file);
      return renderFile(path, file.content, range, this.maxViewChars);
    }

    const entries = await (listing ?? this.backend.list(`${path}/`));
    if (entries.length === 0) throw new MemoryToolError("not_found", messages.notFound(path));
    if (range) throw new MemoryToolError("invalid_argument", messages.viewRangeOnDirectory(path));
    return renderDirectory(path, entries, this.maxViewChars);
  }

  async #create({ path, fileText: text }: CreateCommand): Promise<string> {
    if (path === MEMORY_ROOT) {
      throw new MemoryToolError("is_a_directory", messages.createDirectory(path));
    }
    this.checkSize(path, text);
    if (!this.backend.tree) {
      // Both checks at once: one round trip to a remote backend instead of two. (A backend
      // that enforces the tree makes them in the create itself, with no race.)
      const [isDirectory, file] = await Promise.all([
        this.isDirectory(path),
        this.fileAncestor(path),
      ]);
      if (isDirectory) {
        throw new MemoryToolError("is_a_directory", messages.createDirectory(path));
      }
      if (file) {
        throw new MemoryToolError("not_a_directory", messages.createUnderFile(path, file));
      }
    }
    try {
      this.known.set(path, { content: text, version: await this.backend.create(path, text) });
    } catch (error) {
      if (MemoryBackendError.isInstance(error, "EXISTS")) {
        throw new MemoryToolError("already_exists", messages.alreadyExists(path));
      }
      if (MemoryBackendError.isInstance(error, "IS_DIRECTORY")) {
        throw new MemoryToolError("is_a_directory", messages.createDirectory(path), {
          cause: error,
        });
      }
      if (MemoryBackendError.isInstance(error, "UNDER_FILE")) {
        const file = await this.fileNamedBy(error, path);
        throw new MemoryToolError("not_a_directory", messages.createUnderFile(path, file), {
          cause: error,
        });
      }
      throw this.translateWriteError(error, path, text);
    }
    return messages.created(path);
  }

  async #strReplace({ path, oldStr, newStr }: StrReplaceCommand): Promise<string> {
    return this.edit(path, (content) => {
      const starts = occurrences(content, oldStr);
      if (starts.length === 0) {
        throw new MemoryToolError("no_match", messages.noMatch(oldStr, path));
      }
      const lineOf = (index: number) => countLineFeeds(content, 0, index) + 1;
      if (starts.length > 1) {
        throw new MemoryToolError(
          "multiple_matches",
          messages.multipleMatches(oldStr, starts.map(lineOf)),
        );
      }
      const start = starts[0] as number;
      const updated = content.slice(0, start) + newStr + content.slice(start + oldStr.length);
      const result = () => {
        const lines = splitLines(updated);
        if (lines.length === 0) return `${messages.replaced}\n${messages.emptiedFile}`;
        // The snippet: the lines of the replacement, with two lines of context either side.
        const line = lineOf(start);
        const first = Math.max(1, line - 2);
        const last = Math.min(lines.length, line + countLineFeeds(newStr, 0, newStr.length) + 2);
        const snippet: string[] = [];
        for (let n = first; n <= last; n++) snippet.push(numberedLine(n, lines[n - 1] as string));
        return `${messages.replaced}\n${snippet.join("\n")}`;
      };
      return { updated, result };
    });
  }

  async #insert({ path, insertLine: line, insertText: text }: InsertCommand): Promise<string> {
    return this.edit(path, (content) => {
      const lines = splitLines(content);
      if (line < 0 || line > lines.length) {
        throw new MemoryToolError("out_of_range", messages.insertLine(line, lines.length));
      }
      // One final LF of insert_text ends its last line; it does not add an empty line.
      const inserted = (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
      lines.splice(line, 0, ...inserted);
      return { updated: `${lines.join("\n")}\n`, result: () => messages.inserted(path) };
    });
  }

  async #delete({ path }: DeleteCommand): Promise<string> {
    if (path === MEMORY_ROOT) throw new MemoryToolError("forbidden", messages.deleteRoot);
    this.known.forget(path);

    const { tree } = this.backend;
    if (tree) {
      // The file and everything under it in one atomic call.
      try {
        await tree.deleteTree(path);
      } catch (error) {
        if (MemoryBackendError.isInstance(error, "NOT_FOUND")) {
          throw new MemoryToolError("not_found", messages.deleteNotFound(path), { cause: error });
        }
        throw error;
      }
      return messages.deleted(path);
    }

    const [file, isDirectory] = await Promise.all([
      this.backend.read(path),
      this.isDirectory(path),
    ]);
    if (!file && !isDirectory) {
      throw new MemoryToolError("not_found", messages.deleteNotFound(path));
    }
    if (file) await ignoreNotFound(this.backend.delete(path));
    if (isDirectory) {
      for (const entry of await this.backend.list(`${path}/`)) {
        await ignoreNotFound(this.backend.delete(entry.path));
      }
    }
    return messages.deleted(path);
  }

  async #rename({ oldPath: from, newPath: to }: RenameCommand): Promise<string> {
    if (from === MEMORY_ROOT) throw new MemoryToolError("forbidden", messages.renameRoot);
    if (to === MEMORY_ROOT) {
      throw new MemoryToolError("already_exists", messages.destinationExists(to));
    }
    this.known.forget(from);

    const { tree } = this.backend;
    if (tree) {
      // One atomic call that makes the checks below itself, in the same order.
      try {
        await tree.moveTree(from, to);
      } catch (error) {
        throw await this.translateMoveTreeError(error, from, to);
      }
      return messages.renamed(from, to);
    }

    // Every check's reads at once (one round trip to a remote backend), judged in order below.
    const [file, entries, destinationFile, destinationIsDirectory, fileAncestor] =
      await Promise.all([
        this.backend.read(from),
        this.backend.list(`${from}/`),
        this.backend.read(to),
        this.isDirectory(to),
        this.fileAncestor(to),
      ]);
    if (!file && entries.length === 0) {
      throw new MemoryToolError("not_found", messages.renameNotFound(from));
    }
    if (from === to) throw new MemoryToolError("already_exists", messages.destinationExists(to));
    if (entries.length > 0 && isUnder(to, from)) {
      throw new MemoryToolError("forbidden", messages.renameIntoItself(from, to));
    }
    if (destinationFile || destinationIsDirectory) {
      throw new MemoryToolError("already_exists", messages.destinationExists(to));
    }
    if (fileAncestor) {
      throw new MemoryToolError(
        "not_a_directory",
        messages.renameUnderFile(from, to, fileAncestor),
      );
    }
    // Every file's new path must itself be valid (a deeper destination can break a limit).
    const moves = entries.map((entry) => {
      try {
        return { from: entry.path, to: rebasePath(entry.path, from, to) };
      } catch (error) {
        if (!MemoryPathError.isInstance(error)) throw error;
        throw new MemoryToolError(
          "invalid_path",
          messages.renameInvalidDestination(from, to, error.message),
          { pathRule: error.rule, cause: error },
        );
      }
    });

    if (file) await this.moveFile(from, to, file);
    if (moves.length > 0) await this.moveDirectory(from, to, moves);
    return messages.renamed(from, to);
  }

  // -------------------------------------------------------------------------------------

  /**
   * Read-modify-write of one file with compare-and-set. `change` computes the new content
   * from the current one (throwing to refuse); a lost race re-reads and recomputes.
   */
  private async edit(
    path: string,
    change: (content: string) => { updated: string; result: () => string },
  ): Promise<string> {
    if (path === MEMORY_ROOT) throw new MemoryToolError("not_a_file", messages.notAFile(path));
    const known = this.known.get(path);
    if (known) {
      const result = await this.editKnown(path, known, change);
      if (result !== undefined) return result;
    }
    return withRetries(
      this.retry,
      async () => {
        const file = await this.backend.read(path);
        if (!file) {
          if (await this.isDirectory(path)) {
            throw new MemoryToolError("not_a_file", messages.notAFile(path));
          }
          throw new MemoryToolError("not_found", messages.notFound(path));
        }
        const { updated, result } = change(file.content);
        this.checkSize(path, updated);
        try {
          const version = await this.backend.update(path, updated, file.version);
          this.known.set(path, { content: updated, version });
        } catch (error) {
          // A conflict is a lost race; a missing file was deleted meanwhile: both re-read.
          if (MemoryBackendError.isInstance(error, "VERSION_CONFLICT")) return RETRY;
          if (MemoryBackendError.isInstance(error, "NOT_FOUND")) return RETRY;
          throw this.translateWriteError(error, path, updated);
        }
        return result();
      },
      () => {
        throw new MemoryToolError("conflict", messages.conflict(path, this.retry.attempts));
      },
    );
  }

  /**
   * An edit computed from the remembered text and written at the remembered version: one
   * round trip instead of two. Undefined when that cannot be done (the change or the size
   * check refuses it, or the file has changed since): the edit then reads the file, so every
   * refusal is judged on the current text.
   */
  private async editKnown(
    path: string,
    known: StoredFile,
    change: (content: string) => { updated: string; result: () => string },
  ): Promise<string | undefined> {
    let edited: { updated: string; result: () => string };
    try {
      edited = change(known.content);
      this.checkSize(path, edited.updated);
    } catch (error) {
      if (MemoryToolError.isInstance(error)) return undefined;
      throw error;
    }
    try {
      const version = await this.backend.update(path, edited.updated, known.version);
      this.known.set(path, { content: edited.updated, version });
      return edited.result();
    } catch (error) {
      if (!MemoryBackendError.isInstance(error)) throw error;
      this.known.forget(path);
      return undefined;
    }
  }

  private async moveFile(from: string, to: string, file: StoredFile): Promise<void> {
    const copy = await this.copy(from, to, file);
    const left = await this.deleteOriginal(copy);
    if (left) {
      await ignoreNotFound(this.backend.delete(copy.to, copy.toVersion));
      throw new MemoryToolError("conflict", messages.conflict(from, this.retry.attempts));
    }
  }

  private async moveDirectory(
    from: string,
    to: string,
    moves: Array<{ from: string; to: string }>,
  ): Promise<void> {
    // Copy everything first; on any failure, delete the copies made so far.
    const copies: Copy[] = [];
    try {
      for (const move of moves) {
        const file = await this.backend.read(move.from);
        if (!file) continue; // deleted meanwhile: nothing to move
        copies.push(await this.copy(move.from, move.to, file));
      }
    } catch (error) {
      for (const copy of copies) {
        await ignoreNotFound(this.backend.delete(copy.to, copy.toVersion)).catch(() => undefined);
      }
      throw error;
    }
    // Then delete the originals.
    const left: string[] = [];
    for (const copy of copies) {
      if (await this.deleteOriginal(copy)) {
        await ignoreNotFound(this.backend.delete(copy.to, copy.toVersion));
        left.push(copy.from);
      }
    }
    if (left.length > 0) {
      throw new MemoryToolError("conflict", messages.renamePartial(from, to, left));
    }
  }

  /** Copies one file of a rename; a destination taken meanwhile refuses the rename. */
  private async copy(from: string, to: string, file: StoredFile): Promise<Copy> {
    try {
      const toVersion = await this.backend.create(to, file.content);
      return { from, to, fromVersion: file.version, toVersion };
    } catch (error) {
      if (MemoryBackendError.isInstance(error, "EXISTS")) {
        throw new MemoryToolError("already_exists", messages.destinationExists(to));
      }
      throw this.translateWriteError(error, to, file.content);
    }
  }

  /**
   * Deletes the original of a copy, only at the version that was copied. If a writer changed
   * it after the copy, the copy is brought up to date and the delete retried. Returns true
   * if the original could not be deleted before attempts ran out (it is left in place).
   */
  private async deleteOriginal(copy: Copy): Promise<boolean> {
    return withRetries<boolean>(
      this.retry,
      async () => {
        try {
          await this.backend.delete(copy.from, copy.fromVersion);
          return false;
        } catch (error) {
          if (MemoryBackendError.isInstance(error, "NOT_FOUND")) return false;
          if (!MemoryBackendError.isInstance(error, "VERSION_CONFLICT")) throw error;
        }
        const latest = await this.backend.read(copy.from);
        if (!latest) return false;
        copy.toVersion = await this.backend.update(copy.to, latest.content, copy.toVersion);
        copy.fromVersion = latest.version;
        return RETRY;
      },
      () => true,
    );
  }

  /** Whether some file lies under `path`. */
  private async isDirectory(path: string): Promise<boolean> {
    return (await this.backend.list(`${path}/`, 1)).length > 0;
  }

  /** The highest proper ancestor of `path` (below `/memories`) that is a file, if any. */
  private async fileAncestor(path: string): Promise<string | undefined> {
    const candidates = ancestorPaths(path).slice(1);
    const files = await Promise.all(candidates.map((p) => this.backend.read(p)));
    return candidates.find((_, i) => files[i] !== null);
  }

  /**
   * The file an `UNDER_FILE` refusal about `path` names; looked up (one more round trip) for
   * a backend that did not name it. Falls back to the refusal itself if none is found.
   */
  private async fileNamedBy(error: MemoryBackendError, path: string): Promise<string> {
    if (error.file !== undefined) return error.file;
    const file = await this.fileAncestor(path);
    if (file === undefined) throw error;
    return file;
  }

  private checkSize(path: string, content: string): void {
    const bytes = utf8ByteLength(content);
    const limit = this.maxFileBytes;
    if (bytes > limit) {
      throw new MemoryToolError("too_large", messages.tooLarge(path, bytes, limit));
    }
  }

  private translateWriteError(error: unknown, path: string, content: string): unknown {
    if (MemoryBackendError.isInstance(error, "TOO_LARGE")) {
      const limit = error.limit ?? this.maxFileBytes;
      return new MemoryToolError(
        "too_large",
        messages.tooLarge(path, utf8ByteLength(content), limit),
        { cause: error },
      );
    }
    return error;
  }

  /**
   * A refusal of `moveTree` as the message of the check it stands for; the checks are those
   * of the step-by-step rename below, in the same order, so the strings are the same.
   */
  private async translateMoveTreeError(error: unknown, from: string, to: string) {
    if (!MemoryBackendError.isInstance(error)) return error;
    const options = { cause: error };
    switch (error.code) {
      case "NOT_FOUND":
        return new MemoryToolError("not_found", messages.renameNotFound(from), options);
      case "EXISTS":
      case "IS_DIRECTORY":
        return new MemoryToolError("already_exists", messages.destinationExists(to), options);
      case "INTO_ITSELF":
        return new MemoryToolError("forbidden", messages.renameIntoItself(from, to), options);
      case "UNDER_FILE": {
        const file = await this.fileNamedBy(error, to);
        return new MemoryToolError(
          "not_a_directory",
          messages.renameUnderFile(from, to, file),
          options,
        );
      }
      case "INVALID_KEY": {
        // The path rule the new path breaks, worded as the engine words it.
        const pathError = error.key === undefined ? null : checkMemoryPath(error.key);
        if (!pathError) return error;
        return new MemoryToolError(
          "invalid_path",
          messages.renameInvalidDestination(from, to, pathError.message),
          { pathRule: pathError.rule, cause: error },
        );
      }
      default:
        return error;
    }
  }
}

interface Copy {
  from: string;
  to: string;
  fromVersion: MemoryVersion;
  toVersion: MemoryVersion;
}

/** Start indexes of every occurrence of `needle`, overlapping ones included. */
function occurrences(haystack: string, needle: string): number[] {
  const starts: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) {
    starts.push(i);
  }
  return starts;
}

function countLineFeeds(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) {
    count++;
  }
  return count;
}

async function ignoreNotFound(operation: Promise<unknown>): Promise<void> {
  try {
    await operation;
  } catch (error) {
    if (!MemoryBackendError.isInstance(error, "NOT_FOUND")) throw error;
  }
}

function positiveInteger(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/** The time range of a checked recall, or undefined when it has none. */
function timeRangeOf(input: RecallInput): RecallTimeRange | undefined {
  const { modifiedAfter, modifiedBefore } = input;
  if (modifiedAfter === undefined && modifiedBefore === undefined) return undefined;
  return {
    ...(modifiedAfter === undefined ? {} : { modifiedAfter }),
    ...(modifiedBefore === undefined ? {} : { modifiedBefore }),
  };
}
