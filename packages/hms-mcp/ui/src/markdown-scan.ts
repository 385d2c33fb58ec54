/**
 * Where things are in a text, found once. Reading markdown keeps asking "where is the next
 * `)`?" or "where does this code span close?"; searching the text forward each time is what
 * makes a parser quadratic (a file of 300,000 `[a](` with no `)` asked 300,000 times, each
 * answered at the end of the text). Here each question costs a binary search in positions
 * gathered by one pass over the text.
 */

/** The first of the sorted `positions` at or after `from`, or -1. */
function firstFrom(positions: readonly number[], from: number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((positions[mid] as number) < from) low = mid + 1;
    else high = mid;
  }
  return positions[low] ?? -1;
}

/** Every occurrence of a string in a text (overlapping ones too, as indexOf finds them). */
export class Occurrences {
  readonly #text: string;
  readonly #positions = new Map<string, number[]>();

  constructor(text: string) {
    this.#text = text;
  }

  /** The first position at or after `from` where `needle` starts, or -1: `indexOf`, once. */
  next(needle: string, from: number): number {
    let positions = this.#positions.get(needle);
    if (positions === undefined) {
      positions = [];
      for (
        let at = this.#text.indexOf(needle);
        at !== -1;
        at = this.#text.indexOf(needle, at + 1)
      ) {
        positions.push(at);
      }
      this.#positions.set(needle, positions);
    }
    return firstFrom(positions, from);
  }
}

/** Positions where an emphasis or link delimiter can close: after a non-space, and a single
 * `*` or `_` not half of a double. */
export class Delimiters {
  readonly #text: string;
  readonly #positions = new Map<string, number[]>();

  constructor(text: string) {
    this.#text = text;
  }

  /** The first position at or after `from` where `closer` can close, or -1. */
  next(closer: string, from: number): number {
    let positions = this.#positions.get(closer);
    if (positions === undefined) {
      positions = [];
      const text = this.#text;
      const single = closer.length === 1;
      for (
        let at = text.indexOf(closer, 1);
        at !== -1;
        at = text.indexOf(closer, at + closer.length)
      ) {
        const partOfDouble = single && (text[at + 1] === closer || text[at - 1] === closer);
        if (!/\s/.test(text[at - 1] as string) && !partOfDouble) positions.push(at);
      }
      this.#positions.set(closer, positions);
    }
    return firstFrom(positions, from);
  }
}

/** The runs of backticks in a text, by length: a code span closes at the next run as long as
 * the one that opened it. */
export class BacktickRuns {
  readonly #byLength = new Map<number, number[]>();

  constructor(text: string) {
    for (let at = text.indexOf("`"); at !== -1; ) {
      let end = at + 1;
      while (text[end] === "`") end++;
      const length = end - at;
      const positions = this.#byLength.get(length);
      if (positions === undefined) this.#byLength.set(length, [at]);
      else positions.push(at);
      at = text.indexOf("`", end);
    }
  }

  /** Where the run of `length` backticks after position `after` starts, or -1. */
  closer(length: number, after: number): number {
    const positions = this.#byLength.get(length);
    return positions === undefined ? -1 : firstFrom(positions, after + 1);
  }
}
