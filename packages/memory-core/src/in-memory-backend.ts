import { checkMemoryPath, compareCodePoints, MEMORY_ROOT, utf8ByteLength } from "@hms/memory-paths";
import {
  type FileEntry,
  type MemoryBackend,
  MemoryBackendError,
  type MemoryVersion,
  type StoredFile,
  type TreeOperations,
} from "./backend.js";

/** The backend operations, as named by {@link InMemoryBackendOptions.beforeOperation}. */
export type BackendOperation =
  | "read"
  | "list"
  | "create"
  | "update"
  | "delete"
  | "deleteTree"
  | "moveTree";

/** Options of an {@link InMemoryBackend}. */
export interface InMemoryBackendOptions {
  /** Files to start with, path to text. */
  files?: Record<string, string>;
  /** Largest text stored, in UTF-8 bytes (none by default). */
  maxFileBytes?: number;
  /**
   * Whether to declare the tree capability (`deleteTree`, `moveTree`, and `create` keeping
   * the tree well formed). Default true. With false the engine checks the tree itself and
   * deletes and renames file by file, as over any backend without it.
   */
  tree?: boolean;
  /**
   * Awaited at the start of every operation, before it looks at the data. Each operation
   * then runs to completion without yielding, so it is atomic; awaiting here (a random
   * delay, say) lets concurrent callers interleave between operations as they would over a
   * network. Throwing here makes the operation fail without changing anything.
   */
  beforeOperation?: (operation: BackendOperation, path: string) => void | Promise<void>;
}

interface StoredRecord {
  content: string;
  version: number;
}

/**
 * A {@link MemoryBackend} kept in a `Map`: the reference implementation of the contract, and
 * a useful backend for tests and for agents that need no persistence. Versions come from one
 * counter for the whole store, so a version is never reused, even by a file deleted and
 * created again.
 *
 * The starting `files` are stored as given, without the tree checks (so a test can start
 * from a file and a directory of one name, as data written by another program can be).
 */
export class InMemoryBackend implements MemoryBackend {
  readonly maxFileBytes: number | undefined;
  private readonly records = new Map<string, StoredRecord>();
  private lastVersion = 0;
  private readonly hook: InMemoryBackendOptions["beforeOperation"];

  /** The tree capability, unless the options turned it off. */
  readonly tree: TreeOperations | undefined;

  constructor(options: InMemoryBackendOptions = {}) {
    this.maxFileBytes = options.maxFileBytes;
    this.hook = options.beforeOperation;
    this.load(options.files ?? {});
    this.tree =
      options.tree === false
        ? undefined
        : {
            deleteTree: (path) => this.deleteWithAllUnder(path),
            moveTree: (from, to) => this.moveWithAllUnder(from, to),
          };
  }

  async read(path: string): Promise<StoredFile | null> {
    await this.hook?.("read", path);
    const record = this.records.get(path);
    return record ? { content: record.content, version: record.version } : null;
  }

  async list(prefix: string, limit?: number): Promise<FileEntry[]> {
    await this.hook?.("list", prefix);
    const entries = this.keysUnder(prefix).map((path) => {
      const record = this.records.get(path) as StoredRecord;
      return { path, bytes: utf8ByteLength(record.content), version: record.version };
    });
    return limit === undefined ? entries : entries.slice(0, limit);
  }

  async create(path: string, content: string): Promise<MemoryVersion> {
    await this.hook?.("create", path);
    if (this.records.has(path)) throw new MemoryBackendError("EXISTS", path);
    if (this.tree) {
      if (this.keysUnder(`${path}/`).length > 0) {
        throw new MemoryBackendError("IS_DIRECTORY", path, `IS_DIRECTORY: ${path} is a directory`);
      }
      this.refuseUnderFile(path, path);
    }
    this.checkSize(path, content);
    const version = ++this.lastVersion;
    this.records.set(path, { content, version });
    return version;
  }

  async update(path: string, content: string, expectedVersion: MemoryVersion) {
    await this.hook?.("update", path);
    const record = this.records.get(path);
    if (!record) throw new MemoryBackendError("NOT_FOUND", path);
    if (record.version !== expectedVersion) {
      throw new MemoryBackendError(
        "VERSION_CONFLICT",
        path,
        `VERSION_CONFLICT: ${path} is at version ${record.version}, not the expected version ${expectedVersion}`,
      );
    }
    this.checkSize(path, content);
    const version = ++this.lastVersion;
    this.records.set(path, { content, version });
    return version;
  }

  async delete(path: string, expectedVersion?: MemoryVersion): Promise<void> {
    await this.hook?.("delete", path);
    const record = this.records.get(path);
    if (!record) throw new MemoryBackendError("NOT_FOUND", path);
    if (expectedVersion !== undefined && record.version !== expectedVersion) {
      throw new MemoryBackendError("VERSION_CONFLICT", path);
    }
    this.records.delete(path);
  }

  /**
   * Stores `files` (path to text) as given, each with a new version, replacing any file at
   * the same path: no hook, no size or tree checks. For tests that start from a state the
   * engine never makes but data written by another program can hold, such as a file and a
   * directory of one name.
   */
  load(files: Record<string, string>): void {
    for (const [path, content] of Object.entries(files)) {
      this.records.set(path, { content, version: ++this.lastVersion });
    }
  }

  /** Every file, path to text, in code point order of path. */
  snapshot(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const path of this.keysUnder(""))
      out[path] = (this.records.get(path) as StoredRecord).content;
    return out;
  }

  private async deleteWithAllUnder(path: string): Promise<number> {
    await this.hook?.("deleteTree", path);
    const keys = this.treeKeys(path);
    if (keys.length === 0) throw new MemoryBackendError("NOT_FOUND", path);
    for (const key of keys) this.records.delete(key);
    return keys.length;
  }

  private async moveWithAllUnder(from: string, to: string): Promise<number> {
    await this.hook?.("moveTree", from);
    // The checks of MemoryBackend.moveTree, in its order.
    const keys = this.treeKeys(from);
    if (keys.length === 0) throw new MemoryBackendError("NOT_FOUND", from);
    if (to === from) throw new MemoryBackendError("EXISTS", from, `EXISTS: ${to} is ${from}`);
    if (keys.some((key) => key !== from) && to.startsWith(`${from}/`)) {
      throw new MemoryBackendError("INTO_ITSELF", from, `INTO_ITSELF: ${to} lies inside ${from}`);
    }
    if (this.treeKeys(to).length > 0) {
      throw new MemoryBackendError("EXISTS", from, `EXISTS: ${to} exists`);
    }
    this.refuseUnderFile(from, to);
    const moves = keys.map((key) => [key, to + key.slice(from.length)] as const);
    for (const [, key] of moves) {
      const error = checkMemoryPath(key);
      if (error) {
        throw new MemoryBackendError("INVALID_KEY", from, `INVALID_KEY: ${error.message}`, { key });
      }
    }
    for (const [oldKey, newKey] of moves) {
      const record = this.records.get(oldKey) as StoredRecord;
      this.records.delete(oldKey);
      this.records.set(newKey, { content: record.content, version: ++this.lastVersion });
    }
    return moves.length;
  }

  /** Throws `UNDER_FILE` (about `path`) if a proper ancestor of `target` is a file. */
  private refuseUnderFile(path: string, target: string): void {
    if (!target.startsWith(`${MEMORY_ROOT}/`)) return;
    for (let i = target.indexOf("/", MEMORY_ROOT.length + 1); i !== -1; ) {
      const ancestor = target.slice(0, i);
      if (this.records.has(ancestor)) {
        throw new MemoryBackendError(
          "UNDER_FILE",
          path,
          `UNDER_FILE: ${target} would lie under the file ${ancestor}`,
          { file: ancestor },
        );
      }
      i = target.indexOf("/", i + 1);
    }
  }

  /** `path` (if it is a file) and every key under `path/`, in code point order. */
  private treeKeys(path: string): string[] {
    const under = this.keysUnder(`${path}/`);
    return this.records.has(path) ? [path, ...under] : under;
  }

  private keysUnder(prefix: string): string[] {
    return [...this.records.keys()].filter((key) => key.startsWith(prefix)).sort(compareCodePoints);
  }

  private checkSize(path: string, content: string): void {
    if (this.maxFileBytes === undefined) return;
    const bytes = utf8ByteLength(content);
    if (bytes > this.maxFileBytes) {
      throw new MemoryBackendError(
        "TOO_LARGE",
        path,
        `TOO_LARGE: ${path} would be ${bytes} bytes, over the limit of ${this.maxFileBytes}`,
        { limit: this.maxFileBytes },
      );
    }
  }
}
