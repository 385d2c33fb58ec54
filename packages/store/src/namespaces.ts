import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { StoreError } from "./errors.js";
import { MemoryStore } from "./store.js";
import type { StoreOptions } from "./types.js";

/** A namespace name: lower-case letters, digits, `_` and `-`, starting with a letter or digit. */
export const NAMESPACE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The namespace a server uses when none is chosen. */
export const DEFAULT_NAMESPACE = "default";

/** Default bound on stores held open at once. */
export const DEFAULT_MAX_OPEN = 64;

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
  /** Called with each store right after it is opened (hms-mcp starts embedding its queue). */
  readonly onOpen?: ((namespace: string, store: MemoryStore) => void) | undefined;
}

/**
 * One isolated store per namespace, all in one data directory, opened on first use. At most
 * `maxOpen` stay open; the least recently used is closed to make room. Store calls are
 * synchronous, so a store is never closed in the middle of one.
 */
export class Namespaces {
  readonly dataDir: string;
  readonly #dir: string;
  readonly #options: Omit<NamespacesOptions, "dataDir" | "maxOpen" | "onOpen">;
  readonly #onOpen: NamespacesOptions["onOpen"];
  readonly #maxOpen: number;
  readonly #open = new Map<string, MemoryStore>();

  constructor(options: NamespacesOptions) {
    const { dataDir, maxOpen, onOpen, ...storeOptions } = options;
    this.#onOpen = onOpen;
    this.dataDir = resolve(dataDir);
    this.#dir = join(this.dataDir, "namespaces");
    this.#maxOpen = Math.max(1, Math.floor(maxOpen ?? DEFAULT_MAX_OPEN));
    this.#options = storeOptions;
  }

  /** The store of `namespace`, opening (and creating) it if needed. */
  get(namespace: string): MemoryStore {
    const name = checkNamespace(namespace);
    const cached = this.#open.get(name);
    if (cached !== undefined) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.#open.delete(name);
      this.#open.set(name, cached);
      return cached;
    }
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const store = MemoryStore.open(join(this.#dir, storeFileName(name)), {
      ...this.#options,
      namespace: name,
    });
    this.#open.set(name, store);
    this.#onOpen?.(name, store);
    while (this.#open.size > this.#maxOpen) {
      const [oldest, victim] = this.#open.entries().next().value as [string, MemoryStore];
      this.#open.delete(oldest);
      victim.close();
    }
    return store;
  }

  /** How many stores are open now. */
  get openCount(): number {
    return this.#open.size;
  }

  /** Closes every open store. */
  close(): void {
    for (const store of this.#open.values()) store.close();
    this.#open.clear();
  }
}
