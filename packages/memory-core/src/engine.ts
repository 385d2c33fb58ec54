import {
  ancestorPaths,
  baseName,
  checkMemoryPath,
  isSameOrUnder,
  isUnder,
  MEMORY_ROOT,
  MemoryPathError,
  rebasePath,
  utf8ByteLength,
} from "@hms/memory-paths";
import {
  isMemoryBackendError,
  type MemoryBackend,
  type MemoryBackendError,
  type MemoryVersion,
  type StoredFile,
} from "./backend.js";
import {
  commandName,
  integerParameter,
  type MemoryCommand,
  type MemoryCreateCommand,
  type MemoryDeleteCommand,
  type MemoryInsertCommand,
  type MemoryRenameCommand,
  type MemoryStrReplaceCommand,
  type MemoryViewCommand,
  pathParameter,
  textParameter,
  viewRangeParameter,
} from "./commands.js";
import { MemoryToolError } from "./errors.js";
import { numberedLine, splitLines } from "./format.js";
import { KnownFiles } from "./known-files.js";
import { messages } from "./messages.js";
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

  /** Runs any command, dispatching on its `command` field. */
  async execute(command: MemoryCommand | Record<string, unknown>): Promise<string> {
    switch (commandName(command)) {
      case "view":
        return this.view(command as MemoryViewCommand);
      case "create":
        return this.create(command as MemoryCreateCommand);
      case "str_replace":
        return this.str_replace(command as MemoryStrReplaceCommand);
      case "insert":
        return this.insert(command as MemoryInsertCommand);
      case "delete":
        return this.delete(command as MemoryDeleteCommand);
      case "rename":
        return this.rename(command as MemoryRenameCommand);
    }
  }

  /** `view`: a directory listing (2 levels) or a file's numbered lines. */
  async view(command: MemoryViewCommand): Promise<string> {
    const input = asInput(command);
    const path = pathParameter(input, "view", "path");
    const range = viewRangeParameter(input);

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

  /** `create`: a new file; refuses to overwrite, to replace a directory or to nest in a file. */
  async create(command: MemoryCreateCommand): Promise<string> {
    const input = asInput(command);
    const path = pathParameter(input, "create", "path");
    const text = textParameter(input, "create", "file_text") as string;

    if (path === MEMORY_ROOT) {
      throw new MemoryToolError("is_a_directory", messages.createDirectory(path));
    }
    this.checkSize(path, text);
    if (!this.backend.enforcesTree) {
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
      if (isMemoryBackendError(error, "EXISTS")) {
        throw new MemoryToolError("already_exists", messages.alreadyExists(path));
      }
      if (isMemoryBackendError(error, "IS_DIRECTORY")) {
        throw new MemoryToolError("is_a_directory", messages.createDirectory(path), {
          cause: error,
        });
      }
      if (isMemoryBackendError(error, "UNDER_FILE")) {
        const file = await this.fileNamedBy(error, path);
        throw new MemoryToolError("not_a_directory", messages.createUnderFile(path, file), {
          cause: error,
        });
      }
      throw this.translateWriteError(error, path, text);
    }
    return messages.created(path);
  }

  /** `str_replace`: replaces the one occurrence of `old_str` (anywhere, across lines). */
  async str_replace(command: MemoryStrReplaceCommand): Promise<string> {
    const input = asInput(command);
    const path = pathParameter(input, "str_replace", "path");
    const oldStr = textParameter(input, "str_replace", "old_str") as string;
    const newStr = textParameter(input, "str_replace", "new_str", true) ?? "";
    if (oldStr === "") throw new MemoryToolError("invalid_argument", messages.emptyOldStr(path));

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

  /** `insert`: inserts lines after line `insert_line` (0: at the top). */
  async insert(command: MemoryInsertCommand): Promise<string> {
    const input = asInput(command);
    const path = pathParameter(input, "insert", "path");
    const line = integerParameter(input, "insert", "insert_line");
    const text = textParameter(input, "insert", "insert_text") as string;

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

  /** `delete`: a file, or a directory with everything under it; never `/memories`. */
  async delete(command: MemoryDeleteCommand): Promise<string> {
    const input = asInput(command);
    const path = pathParameter(input, "delete", "path");
    if (path === MEMORY_ROOT) throw new MemoryToolError("forbidden", messages.deleteRoot);
    this.known.forget(path);

    if (this.backend.deleteTree) {
      // The file and everything under it in one atomic call.
      try {
        await this.backend.deleteTree(path);
      } catch (error) {
        if (isMemoryBackendError(error, "NOT_FOUND")) {
          throw new MemoryToolError("not_found", messages.deleteNotFound(path), { cause: error });
        }
        throw error;
      }
      return messages.deleted(path);
    }
    if (this.backend.deletePrefix) {
      // The file and everything under it at once (one round trip to a remote backend): the
      // path existed if either removed something.
      const [fileDeleted, count] = await Promise.all([
        this.backend.delete(path).then(
          () => true,
          (error: unknown) => {
            if (isMemoryBackendError(error, "NOT_FOUND")) return false;
            throw error;
          },
        ),
        this.backend.deletePrefix(`${path}/`),
      ]);
      if (!fileDeleted && count === 0) {
        throw new MemoryToolError("not_found", messages.deleteNotFound(path));
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

  /** `rename`: moves a file or a whole directory to a path that does not exist yet. */
  async rename(command: MemoryRenameCommand): Promise<string> {
    const input = asInput(command);
    const from = pathParameter(input, "rename", "old_path");
    const to = pathParameter(input, "rename", "new_path");
    if (from === MEMORY_ROOT) throw new MemoryToolError("forbidden", messages.renameRoot);
    if (to === MEMORY_ROOT) {
      throw new MemoryToolError("already_exists", messages.destinationExists(to));
    }
    this.known.forget(from);

    if (this.backend.moveTree) {
      // One atomic call that makes the checks below itself, in the same order.
      try {
        await this.backend.moveTree(from, to);
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
        if (!(error instanceof MemoryPathError)) throw error;
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
          if (isMemoryBackendError(error, "VERSION_CONFLICT")) return RETRY;
          if (isMemoryBackendError(error, "NOT_FOUND")) return RETRY;
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
      if (error instanceof MemoryToolError) return undefined;
      throw error;
    }
    try {
      const version = await this.backend.update(path, edited.updated, known.version);
      this.known.set(path, { content: edited.updated, version });
      return edited.result();
    } catch (error) {
      if (!isMemoryBackendError(error)) throw error;
      this.known.forget(path);
      return undefined;
    }
  }

  private async moveFile(from: string, to: string, file: StoredFile): Promise<void> {
    if (this.backend.move) {
      try {
        await this.backend.move(from, to);
      } catch (error) {
        throw this.translateMoveError(error, from, to);
      }
      return;
    }
    const copy = await this.copy(from, to, file, { from, to });
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
    if (this.backend.movePrefix) {
      try {
        await this.backend.movePrefix(`${from}/`, `${to}/`);
      } catch (error) {
        throw this.translateMoveError(error, from, to);
      }
      return;
    }
    // Copy everything first; on any failure, delete the copies made so far.
    const copies: Copy[] = [];
    try {
      for (const move of moves) {
        const file = await this.backend.read(move.from);
        if (!file) continue; // deleted meanwhile: nothing to move
        copies.push(await this.copy(move.from, move.to, file, { from, to }));
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

  /**
   * Copies one file of a rename of `rename.from` to `rename.to` (the file's own paths are
   * `from` and `to`). A backend that enforces the tree can refuse the copy when another
   * writer changed the destination's tree since the checks: that is reported as the check
   * would have.
   */
  private async copy(
    from: string,
    to: string,
    file: StoredFile,
    rename: { from: string; to: string },
  ): Promise<Copy> {
    try {
      const toVersion = await this.backend.create(to, file.content);
      return { from, to, fromVersion: file.version, toVersion };
    } catch (error) {
      if (isMemoryBackendError(error, "EXISTS")) {
        throw new MemoryToolError("already_exists", messages.destinationExists(to));
      }
      if (isMemoryBackendError(error, "IS_DIRECTORY")) {
        throw new MemoryToolError("already_exists", messages.destinationExists(rename.to), {
          cause: error,
        });
      }
      if (isMemoryBackendError(error, "UNDER_FILE")) {
        const blocking = await this.fileNamedBy(error, to);
        if (isSameOrUnder(blocking, rename.to)) {
          throw new MemoryToolError("already_exists", messages.destinationExists(rename.to), {
            cause: error,
          });
        }
        throw new MemoryToolError(
          "not_a_directory",
          messages.renameUnderFile(rename.from, rename.to, blocking),
          { cause: error },
        );
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
          if (isMemoryBackendError(error, "NOT_FOUND")) return false;
          if (!isMemoryBackendError(error, "VERSION_CONFLICT")) throw error;
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
    if (isMemoryBackendError(error, "TOO_LARGE")) {
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
    if (!isMemoryBackendError(error)) return error;
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

  private translateMoveError(error: unknown, from: string, to: string): unknown {
    if (isMemoryBackendError(error, "NOT_FOUND")) {
      return new MemoryToolError("not_found", messages.renameNotFound(from), { cause: error });
    }
    if (isMemoryBackendError(error, "EXISTS")) {
      return new MemoryToolError("already_exists", messages.destinationExists(to), {
        cause: error,
      });
    }
    return error;
  }
}

interface Copy {
  from: string;
  to: string;
  fromVersion: MemoryVersion;
  toVersion: MemoryVersion;
}

function asInput(command: unknown): object {
  if (typeof command !== "object" || command === null || Array.isArray(command)) {
    commandName(command); // throws the invalid_command error
  }
  return command as object;
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
    if (!isMemoryBackendError(error, "NOT_FOUND")) throw error;
  }
}

function positiveInteger(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}
