/**
 * Passage vectors kept by their exact text, least recently used dropped first. Editing a memory
 * queues the whole memory again, but an edit changes only some of its passages (appending a
 * line changes the last one): the worker looks each passage up here and runs the model only on
 * the texts it has not embedded recently. The model is deterministic, so a kept vector is the
 * one the model would give again.
 */
export class VectorCache {
  readonly #entries = new Map<string, Float32Array>();
  #chars = 0;

  /**
   * @param maxEntries most vectors kept
   * @param maxChars most characters of text kept as keys, all entries together
   */
  constructor(
    readonly maxEntries: number,
    readonly maxChars: number,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 0) {
      throw new RangeError(`maxEntries must be a non-negative integer, got ${maxEntries}`);
    }
    if (!Number.isInteger(maxChars) || maxChars < 0) {
      throw new RangeError(`maxChars must be a non-negative integer, got ${maxChars}`);
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The vector kept for `text`, now the most recently used; undefined when none is. */
  get(text: string): Float32Array | undefined {
    const vector = this.#entries.get(text);
    if (vector !== undefined) {
      // A Map iterates in insertion order: re-inserting makes it the newest.
      this.#entries.delete(text);
      this.#entries.set(text, vector);
    }
    return vector;
  }

  /** Keeps `vector` for `text`, dropping the least recently used entries beyond the bounds. */
  set(text: string, vector: Float32Array): void {
    if (this.#entries.has(text)) {
      this.#entries.delete(text);
      this.#chars -= text.length;
    }
    if (text.length > this.maxChars || this.maxEntries === 0) return;
    this.#entries.set(text, vector);
    this.#chars += text.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.maxEntries && this.#chars <= this.maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= oldest.length;
    }
  }
}
