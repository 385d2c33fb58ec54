import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { NamespaceSummary, StoreEngine } from "./engine.js";
import { StoreError } from "./errors.js";
import { makeDirectory } from "./make-directory.js";
import { openSqlite, type SqliteDatabase } from "./sqlite/driver.js";
import { MemoryStore } from "./store.js";
import type { StoreOptions } from "./types.js";

/** A namespace name: lower-case letters, digits, `_` and `-`, starting with a letter or digit. */
export const NAMESPACE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The namespace a server uses when none is chosen. */
export const DEFAULT_NAMESPACE = "default";

/** Default bound on stores held open at once. */
export const DEFAULT_MAX_OPEN = 64;

/** A namespace's store file name: `ns-` and 32 hex digits (see {@link storeFileName}). */
const STORE_FILE = /^ns-[0-9a-f]{32}\.sqlite$/;

/** Checks a namespace name; INVALID_ARGUMENT says what is allowed. */
export function checkNamespace(name: unknown): string {
  if (typeof name !== "string" || !NAMESPACE_PATTERN.test(name)) {
    const shown = typeof name === "string" ? JSON.stringify(name.slice(0, 80)) : typeof name;
    throw new StoreError(
      "INVALID_ARGUMENT",
      `namespace ${shown} is not valid: use 1 to 64 of a-z, 0-9, '_' and '-', starting with a letter or digit`,
    );
  }
  return name;
}

/**
 * The file name of a namespace's store. Derived from a hash of the validated name, so no
 * namespace ever reaches the filesystem as a path; the name itself is recorded inside the file.
 */
export function storeFileName(namespace: string): string {
  const digest = createHash("sha256").update(checkNamespace(namespace), "utf8").digest("hex");
  return `ns-${digest.slice(0, 32)}.sqlite`;
}

export interface NamespacesOptions extends Omit<StoreOptions, "namespace"> {
  /** The data directory; created (mode 0700) if missing. */
  readonly dataDir: string;
  /** Most stores held open at once (least recently used are closed first). */
  readonly maxOpen?: number | undefined;
  /**
   * Most namespaces that may exist in the data directory (store files, whoever made them);
   * creating one more is refused with LIMIT_REACHED. Undefined: no bound.
   */
  readonly maxNamespaces?: number | undefined;
  /** Called with each store right after it is opened (hms-mcp starts embedding its queue). */
  readonly onOpen?: ((namespace: string, store: MemoryStore) => void) | undefined;
}

/**
 * One isolated store per namespace, all in one data directory, opened on first use. At most
 * `maxOpen` stay open; the least recently used is closed to make room. Store calls are
 * synchronous, so a store is never closed in the middle of one.
 *
 * Only {@link get} (for writes) creates a namespace; {@link read} answers a namespace that
 * does not exist from an empty store in memory, so reads never leave files behind.
 */
export class Namespaces implements StoreEngine {
  readonly kind = "sqlite" as const;
  readonly dataDir: string;
  readonly #dir: string;
  readonly #options: Omit<NamespacesOptions, "dataDir" | "maxOpen" | "onOpen">;
  readonly #onOpen: NamespacesOptions["onOpen"];
  readonly #maxOpen: number;
  readonly #maxNamespaces: number | undefined;
  readonly #open = new Map<string, MemoryStore>();
  /** Empty in-memory stores answering reads of namespaces that do not exist (same LRU bound). */
  readonly #empty = new Map<string, MemoryStore>();

  constructor(options: NamespacesOptions) {
    const { dataDir, maxOpen, maxNamespaces, onOpen, ...storeOptions } = options;
    this.#maxNamespaces = maxNamespaces;
    this.#onOpen = onOpen;
    this.dataDir = resolve(dataDir);
    this.#dir = join(this.dataDir, "namespaces");
    this.#maxOpen = Math.max(1, Math.floor(maxOpen ?? DEFAULT_MAX_OPEN));
    this.#options = storeOptions;
  }

  /**
   * The store of `namespace`, opening it, and creating it if needed (a write's store). Creating
   * one more namespace than `maxNamespaces` is refused with LIMIT_REACHED.
   */
  get(namespace: string): MemoryStore {
    const name = checkNamespace(namespace);
    const cached = this.#open.get(name);
    if (cached !== undefined) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.#open.delete(name);
      this.#open.set(name, cached);
      return cached;
    }
    const file = join(this.#dir, storeFileName(name));
    if (!existsSync(file)) this.#checkRoomFor(name);
    makeDirectory(this.#dir, 0o700);
    const store = MemoryStore.open(file, { ...this.#options, namespace: name });
    this.#empty.get(name)?.close();
    this.#empty.delete(name);
    this.#open.set(name, store);
    this.#onOpen?.(name, store);
    evictOver(this.#open, this.#maxOpen);
    return store;
  }

  /**
   * The store of `namespace` for reading: its own if it exists, else an empty store in memory
   * (answering as a namespace with no memories), so a read never creates a file.
   */
  read(namespace: string): MemoryStore {
    const name = checkNamespace(namespace);
    if (this.#open.has(name) || this.exists(name)) return this.get(name);
    let empty = this.#empty.get(name);
    if (empty === undefined) {
      empty = MemoryStore.open(":memory:", { ...this.#options, namespace: name });
    } else {
      this.#empty.delete(name);
    }
    this.#empty.set(name, empty);
    evictOver(this.#empty, this.#maxOpen);
    return empty;
  }

  /** Whether `namespace` exists (has a store file in the data directory). */
  exists(namespace: string): boolean {
    return existsSync(join(this.#dir, storeFileName(namespace)));
  }

  /**
   * The namespaces of the data directory, in name order. A store file names its namespace only
   * by hash, so this reads the name each store keeps inside it.
   */
  names(): string[] {
    return this.#readEach(() => ({})).map((found) => found.name);
  }

  /**
   * The namespaces of the data directory, in name order, with their size and last change,
   * read from each store file opened read-only (so nothing is created or upgraded; the
   * `memories` table has these columns since the first schema).
   */
  summaries(): NamespaceSummary[] {
    return byName(
      this.#storeFiles().flatMap((file) => this.#readOne(join(this.#dir, file), summarize) ?? []),
    );
  }

  /**
   * {@link summaries}, one store file per turn of the event loop, so that a server counting
   * thousands of namespaces (its metrics) goes on answering calls meanwhile. A store file
   * removed during the walk is left out.
   */
  async summariesInTurns(): Promise<NamespaceSummary[]> {
    const found: NamespaceSummary[] = [];
    for (const file of this.#storeFiles()) {
      await new Promise((resolve) => setImmediate(resolve));
      const path = join(this.#dir, file);
      if (!existsSync(path)) continue;
      const summary = this.#readOne(path, summarize);
      if (summary !== undefined) found.push(summary);
    }
    return byName(found);
  }

  /**
   * `read` of every store file of the data directory (opened read-only), with the name the
   * store keeps inside it, in name order.
   */
  #readEach<T>(read: (db: SqliteDatabase, file: string) => T): ({ name: string } & T)[] {
    return byName(
      this.#storeFiles().flatMap((file) => this.#readOne(join(this.#dir, file), read) ?? []),
    );
  }

  /** The store files of the data directory (none when it does not exist). */
  #storeFiles(): string[] {
    try {
      return readdirSync(this.#dir).filter((file) => STORE_FILE.test(file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }

  /** `read` of the store file `path` opened read-only, with its namespace's name. */
  #readOne<T>(
    path: string,
    read: (db: SqliteDatabase, file: string) => T,
  ): ({ name: string } & T) | undefined {
    const db = openSqlite(path, { readOnly: true });
    try {
      const row = db.prepare("SELECT value FROM store_info WHERE name = 'namespace'").get() as
        | { value: string }
        | undefined;
      return row === undefined ? undefined : { name: row.value, ...read(db, path) };
    } finally {
      db.close();
    }
  }

  /** How many namespaces exist in the data directory. */
  count(): number {
    try {
      return readdirSync(this.#dir).filter((file) => STORE_FILE.test(file)).length;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
      throw error;
    }
  }

  /** Refuses to create `name` when the data directory already holds `maxNamespaces`. */
  #checkRoomFor(name: string): void {
    const max = this.#maxNamespaces;
    if (max === undefined || this.count() < max) return;
    throw new StoreError(
      "LIMIT_REACHED",
      `namespace ${name} cannot be created: this server holds its most namespaces (${max}, ` +
        "--max-namespaces); use an existing namespace, or ask the operator to raise the limit",
      { limit: max },
    );
  }

  /** How many stores are open now. */
  get openCount(): number {
    return this.#open.size;
  }

  /** Closes every open store. */
  close(): void {
    for (const store of [...this.#open.values(), ...this.#empty.values()]) store.close();
    this.#open.clear();
    this.#empty.clear();
  }
}

/** A store file's bytes on disk, with its write-ahead log. */
function sizeOnDisk(file: string): number {
  let bytes = statSync(file).size;
  try {
    bytes += statSync(`${file}-wal`).size;
  } catch {
    // No write-ahead log: the last connection checkpointed it away.
  }
  return bytes;
}

/** Closes the least recently used stores of `stores` until at most `max` remain. */
function evictOver(stores: Map<string, MemoryStore>, max: number): void {
  while (stores.size > max) {
    const [oldest, victim] = stores.entries().next().value as [string, MemoryStore];
    stores.delete(oldest);
    victim.close();
  }
}

/** A store's size and last change, read from its `memories` table (there since the first schema). */
function summarize(db: SqliteDatabase, file: string): Omit<NamespaceSummary, "name"> {
  const totals = db
    .prepare(
      "SELECT count(*) AS memories, coalesce(sum(bytes), 0) AS bytes, " +
        "max(updated_at) AS updated_at FROM memories",
    )
    .get() as { memories: number; bytes: number; updated_at: string | null };
  return { ...totals, disk_bytes: sizeOnDisk(file) };
}

/** `found`, in name order. */
function byName<T extends { name: string }>(found: T[]): T[] {
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
