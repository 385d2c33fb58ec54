import type { StoredFile } from "./backend.js";

/** How many files the engine remembers (the most recently used ones). */
export const KNOWN_FILES = 128;

/**
 * The text and version of the files an engine last read or wrote, so that an edit can try its
 * compare-and-set at once instead of reading the file first. An entry may be stale (another
 * writer changed the file): the compare-and-set then fails and the edit reads afresh. It is
 * sound because a backend never gives a file a version it had before (see
 * `MemoryBackend.update`), so a write at a remembered version is a write to the remembered text.
 */
export class KnownFiles {
  readonly #files = new Map<string, StoredFile>();

  constructor(private readonly capacity = KNOWN_FILES) {}

  get(path: string): StoredFile | undefined {
    return this.#files.get(path);
  }

  set(path: string, file: StoredFile): void {
    // Re-inserting moves the path to the end: the Map's order is the order of use.
    this.#files.delete(path);
    this.#files.set(path, file);
    if (this.#files.size > this.capacity) {
      const oldest = this.#files.keys().next().value as string;
      this.#files.delete(oldest);
    }
  }

  /** Forgets `path` and every file under it. */
  forget(path: string): void {
    const under = `${path}/`;
    for (const known of [...this.#files.keys()]) {
      if (known === path || known.startsWith(under)) this.#files.delete(known);
    }
  }
}
