/**
 * Which parts of a long file to put in the page: the lines are cut into chunks of
 * {@link CHUNK_LINES}; only the chunks in or next to the visible part of the scroll area are
 * rendered, the others are blank space of their height (measured once seen, estimated before).
 */

/** Lines per chunk. */
export const CHUNK_LINES = 200;

/** How many chunks `lineCount` lines make. */
export function chunkCount(lineCount: number): number {
  return Math.max(1, Math.ceil(lineCount / CHUNK_LINES));
}

/** The chunk that holds 1-based `line`. */
export function chunkOf(line: number): number {
  return Math.floor((Math.max(1, line) - 1) / CHUNK_LINES);
}

/**
 * The chunks to render, [first, last] inclusive, for a view of `viewport` pixels whose top is
 * `top` pixels into the lines, given each chunk's height; `margin` pixels above and below are
 * rendered too, so scrolling shows no blank.
 */
export function visibleChunks(
  heights: readonly number[],
  top: number,
  viewport: number,
  margin: number,
): [number, number] {
  const from = top - margin;
  const to = top + viewport + margin;
  let first = -1;
  let last = -1;
  let y = 0;
  for (const [index, height] of heights.entries()) {
    const end = y + height;
    if (end > from && y < to) {
      if (first === -1) first = index;
      last = index;
    }
    y = end;
  }
  if (first === -1) {
    // Past the end (or before the start): the nearest chunk.
    const nearest = top <= 0 ? 0 : Math.max(0, heights.length - 1);
    return [nearest, nearest];
  }
  return [first, last];
}

/** The offset in pixels of chunk `index`'s top. */
export function chunkTop(heights: readonly number[], index: number): number {
  let y = 0;
  for (let i = 0; i < index && i < heights.length; i++) y += heights[i] ?? 0;
  return y;
}
