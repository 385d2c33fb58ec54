import { compareCodePoints, utf8ByteLength } from "@hms/memory-paths";
import {
  type FileEntry,
  type MemoryBackend,
  MemoryBackendError,
  type MemoryVersion,
  type StoredFile,
} from "./backend.js";

/** The backend operations, as named by {@link InMemoryBackendOptions.beforeOperation}. */
export type BackendOperation =
  | "read"
  | "list"
  | "create"
  | "update"
  | "delete"
  | "deletePrefix"
  | "move"
  | "movePrefix";

/** Options of an {@link InMemoryBackend}. */
export interface InMemoryBackendOptions {
  /** Files to start with, path to text. */
  files?: Record<string, string>;
  /** Largest text stored, in UTF-8 bytes (none by default). */
  maxFileBytes?: number;
  /**
   * Whether to offer the optional atomic operations (`deletePrefix`, `move`, `movePrefix`).
   * Default true. With false the engine's copy-then-delete fallbacks run instead.
   */
  atomicOperations?: boolean;
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
 */
export class InMemoryBackend implements MemoryBackend {
  readonly maxFileBytes: number | undefined;
  private readonly records = new Map<string, StoredRecord>();
  private lastVersion = 0;
  private readonly hook: InMemoryBackendOptions["beforeOperation"];

  declare deletePrefix?: (prefix: string) => Promise<number>;
  declare move?: (from: string, to: string, expectedVersion?: MemoryVersion) => Promise<void>;
  declare movePrefix?: (fromPrefix: string, toPrefix: string) => Promise<number>;

  constructor(options: InMemoryBackendOptions = {}) {
    this.maxFileBytes = options.maxFileBytes;
    this.hook = options.beforeOperation;
    for (const [path, content] of Object.entries(options.files ?? {})) {
      this.records.set(path, { content, version: ++this.lastVersion });
    }
    if (options.atomicOperations !== false) {
      this.deletePrefix = (prefix) => this.deleteAllUnder(prefix);
      this.move = (from, to, expectedVersion) => this.moveOne(from, to, expectedVersion);
      this.movePrefix = (fromPrefix, toPrefix) => this.moveAllUnder(fromPrefix, toPrefix);
    }
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

  /** Every file, path to text, in code point order of path. */
  snapshot(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const path of this.keysUnder(""))
      out[path] = (this.records.get(path) as StoredRecord).content;
    return out;
  }

  private async deleteAllUnder(prefix: string): Promise<number> {
    await this.hook?.("deletePrefix", prefix);
    const keys = this.keysUnder(prefix);
    for (const key of keys) this.records.delete(key);
    return keys.length;
  }

  private async moveOne(from: string, to: string, expectedVersion?: MemoryVersion) {
    await this.hook?.("move", from);
    const record = this.records.get(from);
    if (!record) throw new MemoryBackendError("NOT_FOUND", from);
    if (expectedVersion !== undefined && record.version !== expectedVersion) {
      throw new MemoryBackendError("VERSION_CONFLICT", from);
    }
    if (this.records.has(to)) throw new MemoryBackendError("EXISTS", to);
    this.records.delete(from);
    this.records.set(to, { content: record.content, version: ++this.lastVersion });
  }

  private async moveAllUnder(fromPrefix: string, toPrefix: string): Promise<number> {
    await this.hook?.("movePrefix", fromPrefix);
    if (toPrefix.startsWith(fromPrefix)) {
      throw new RangeError(`cannot move ${fromPrefix} into ${toPrefix}, which lies inside it`);
    }
    const keys = this.keysUnder(fromPrefix);
    if (keys.length === 0) throw new MemoryBackendError("NOT_FOUND", fromPrefix);
    const moves = keys.map((key) => [key, toPrefix + key.slice(fromPrefix.length)] as const);
    const taken = moves.find(([, to]) => this.records.has(to));
    if (taken) throw new MemoryBackendError("EXISTS", taken[1]);
    for (const [from, to] of moves) {
      const record = this.records.get(from) as StoredRecord;
      this.records.delete(from);
      this.records.set(to, { content: record.content, version: ++this.lastVersion });
    }
    return moves.length;
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
