/**
 * Excerpts for recall hits: a verbatim passage of the memory's text around the lines that best
 * match the query, and a 1-based inclusive line range that holds it, so a client can `view`
 * exactly those lines. The range is the excerpt's lines, read on (then back) to at least
 * {@link RANGE_LINES} lines where the excerpt's budget stopped short of that: what answers a
 * question often follows the lines that repeat its words.
 */

/** Longest excerpt, in characters (UTF-16 code units). */
export const EXCERPT_CHARS = 320;
/** Most lines in one excerpt. */
export const EXCERPT_LINES = 6;
/**
 * Lines a range is widened to beyond its excerpt, when they fit in {@link RANGE_CHARS}. Chosen
 * on the LoCoMo dev split (`pnpm bench locomo`); see the store README.
 */
export const RANGE_LINES = 4;
/** Longest range widened beyond its excerpt, in characters. */
export const RANGE_CHARS = 1000;

/**
 * The weight (BM25's IDF, `ln(1 + (N − df + 0.5) / (df + 0.5))`) of a term held by half the
 * memories of the store: ln 2. A term held by more says nothing about where a memory answers;
 * in hybrid recall, a memory whose matched terms are all such is read from its passage most
 * similar to the query instead.
 */
export const UNINFORMATIVE = Math.LN2;

/** Marks put around matched terms by FTS5's highlight(); private-use code points. */
export const MATCH_OPEN = "\uE000";
export const MATCH_CLOSE = "\uE001";

export interface Excerpt {
  /** A substring of the text, within lines `line_start`..`line_end`. */
  readonly excerpt: string;
  /** First line of the range, 1-based. */
  readonly line_start: number;
  /** Last line of the range, 1-based, inclusive. */
  readonly line_end: number;
}

/** Where one query term occurs in a memory, and how much it weighs. */
export interface TermMatch {
  /**
   * The memory's text as FTS5's highlight() gives it for this term alone (its occurrences
   * wrapped in {@link MATCH_OPEN} and {@link MATCH_CLOSE}), or `undefined` when the memory does
   * not contain the term.
   */
  readonly highlighted: string | undefined;
  /** How informative the term is (its rarity in the store); zero or more. */
  readonly weight: number;
}

/** A span of lines, 1-based and inclusive. */
export interface LineSpan {
  readonly lineStart: number;
  readonly lineEnd: number;
}

const MARKS = new RegExp(`[${MATCH_OPEN}${MATCH_CLOSE}]`, "g");

/**
 * On each line, where one term occurs: -1 when it does not, else the offset in the line of its
 * first occurrence. Read from the highlighted form of the indexed text (the text itself, or
 * with Chinese and Japanese runs spelled out as n-grams; see cjk.ts). Neither highlight() nor
 * that spelling adds or removes line breaks, so line i of one is line i of the other. On a line
 * whose indexed form differs, the occurrence is looked for in the line itself (0 if not found).
 * A line that itself contains a mark character is never taken as matched.
 */
function termLines(lines: readonly string[], highlighted: string | undefined): number[] {
  const marked = highlighted?.split("\n");
  return lines.map((line, i) => {
    const withMarks = marked?.[i];
    if (withMarks === undefined || line.includes(MATCH_OPEN) || line.includes(MATCH_CLOSE)) {
      return -1;
    }
    const open = withMarks.indexOf(MATCH_OPEN);
    if (open === -1) return -1;
    const close = withMarks.indexOf(MATCH_CLOSE, open);
    if (close === -1) return -1;
    if (withMarks.replace(MARKS, "") === line) return open;
    const word = withMarks.slice(open + 1, close).toLowerCase();
    return Math.max(0, line.toLowerCase().indexOf(word));
  });
}

/** Cuts a long line to about `budget` characters around `at`, preferring word boundaries. */
export function cutAround(line: string, at: number, budget: number): string {
  if (line.length <= budget) return line;
  let start = Math.max(0, Math.min(at - Math.floor(budget / 4), line.length - budget));
  let end = start + budget;
  if (start > 0) {
    const space = line.indexOf(" ", start);
    if (space !== -1 && space < start + 40 && space < at) start = space + 1;
  }
  if (end < line.length) {
    const space = line.lastIndexOf(" ", end);
    if (space > start + budget / 2) end = space;
  }
  // Never split a surrogate pair.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(line[start] ?? "")) start--;
  if (end < line.length && /[\uDC00-\uDFFF]/.test(line[end] ?? "")) end++;
  return line.slice(start, end);
}

/**
 * Picks the excerpt of `text` for a query whose terms occur as `terms` says.
 *
 * Its core is the window of consecutive lines, within {@link EXCERPT_CHARS} and
 * {@link EXCERPT_LINES}, whose distinct terms weigh the most together: a rare term counts for
 * more than common ones, a term counts once however often it occurs, and a window holding
 * several of the query's terms beats a line holding one of them. Among windows that weigh the
 * same: the shortest, then the first.
 *
 * When no term occurs, or when `passage` is given (hybrid recall: the passage most similar to
 * the query by meaning) and no matched term weighs more than {@link UNINFORMATIVE}: the first
 * non-blank line from the passage's start, else from the top. The core is then
 * widened by the lines after it and then (for matched lines only; a passage or the top is read
 * from its start) before it while the excerpt stays within the budget, without blank lines at
 * either edge. A single line longer than the budget is cut around the first occurrence of its
 * heaviest term (or from its start).
 *
 * The range is the excerpt's lines widened the same way to {@link RANGE_LINES} lines while it
 * stays within {@link RANGE_CHARS}: where lines are short, the excerpt already spans that many
 * and the range is exactly its lines; where they are long (a conversation, paragraphs), the
 * range reads on past what the excerpt can show.
 */
export function excerptOf(
  text: string,
  terms: readonly TermMatch[],
  passage?: LineSpan | undefined,
): Excerpt {
  const lines = text.split("\n");
  const at = terms.map((term) => termLines(lines, term.highlighted));
  const weights = terms.map((term) =>
    Number.isFinite(term.weight) ? Math.max(term.weight, 0) : 0,
  );
  const length = (i: number) => lines[i]?.length ?? 0;

  // In hybrid recall, a memory whose matched terms say nothing about where (each is held by
  // half the store or more) is read from the passage that matched the query's meaning.
  const informative = weights.some((w, t) => w > UNINFORMATIVE && at[t]?.some((o) => o !== -1));
  const core = passage !== undefined && !informative ? undefined : bestWindow(lines, at, weights);
  const matched = core !== undefined;
  let first: number;
  let last: number;
  if (core !== undefined) {
    [first, last] = core;
  } else {
    const from = Math.min(Math.max(0, Math.floor(passage?.lineStart ?? 1) - 1), lines.length - 1);
    const nonBlank = (line: string) => line.trim() !== "";
    const after = lines.findIndex((line, i) => i >= from && nonBlank(line));
    first = Math.max(0, after !== -1 ? after : lines.findIndex(nonBlank));
    last = first;
  }

  const blank = (i: number) => (lines[i] ?? "").trim() === "";
  /**
   * Widens `[first, last]` by the lines after it, then (for matched lines) before it, while
   * it keeps within `maxLines` and `maxChars`; blank lines at either edge are then dropped,
   * down to `[keepFirst, keepLast]`: they add nothing to read.
   */
  const widen = (maxLines: number, maxChars: number, keepFirst: number, keepLast: number) => {
    let size = -1;
    for (let i = first; i <= last; i++) size += 1 + length(i);
    const fits = (i: number) =>
      i >= 0 && i < lines.length && last - first + 1 < maxLines && size + 1 + length(i) <= maxChars;
    while (fits(last + 1)) size += 1 + length(++last);
    while (matched && fits(first - 1)) size += 1 + length(--first);
    while (first < keepFirst && blank(first)) first++;
    while (last > keepLast && blank(last)) last--;
  };

  let excerpt: string;
  if (first === last && length(first) >= EXCERPT_CHARS) {
    excerpt = cutAround(lines[first] ?? "", heaviestAt(at, weights, first), EXCERPT_CHARS);
  } else {
    widen(EXCERPT_LINES, EXCERPT_CHARS, first, last);
    excerpt = lines.slice(first, last + 1).join("\n");
  }
  widen(RANGE_LINES, RANGE_CHARS, first, last);
  return { excerpt, line_start: first + 1, line_end: last + 1 };
}

/** Where on line `i` its heaviest term first occurs (0 when none does). */
function heaviestAt(at: readonly number[][], weights: readonly number[], i: number): number {
  let where = 0;
  let heaviest = Number.NEGATIVE_INFINITY;
  for (const [t, offsets] of at.entries()) {
    const offset = offsets[i] ?? -1;
    const weight = weights[t] ?? 0;
    if (offset !== -1 && weight > heaviest) {
      heaviest = weight;
      where = offset;
    }
  }
  return where;
}

/**
 * The window of lines `[first, last]` (0-based, inclusive) within the excerpt's budget whose
 * distinct terms weigh the most, or `undefined` when no term occurs. Every window that starts
 * and ends on a matched line is tried (a best one does: trimming an unmatched edge line keeps
 * its weight and makes it shorter), at most {@link EXCERPT_LINES} lines from each start.
 */
function bestWindow(
  lines: readonly string[],
  at: readonly number[][],
  weights: readonly number[],
): [number, number] | undefined {
  const lineTerms: number[][] = lines.map(() => []);
  let any = false;
  for (const [t, offsets] of at.entries()) {
    for (const [i, offset] of offsets.entries()) {
      if (offset === -1) continue;
      lineTerms[i]?.push(t);
      any = true;
    }
  }
  if (!any) return undefined;
  // A matched term of weight 0 (there is none with BM25's IDF, but a caller may pass one)
  // still makes its line beat an unmatched one; `tiny` is far below any real difference.
  const total = weights.reduce((a, b) => a + b, 0);
  const tiny = (total > 0 ? total : 1) * 1e-9;
  const seen = new Array<number>(weights.length).fill(-1);
  let best: [number, number] | undefined;
  let bestWeight = Number.NEGATIVE_INFINITY;
  for (let a = 0; a < lines.length; a++) {
    if ((lineTerms[a]?.length ?? 0) === 0) continue;
    let weight = 0;
    let size = -1;
    for (let b = a; b < lines.length && b - a < EXCERPT_LINES; b++) {
      size += 1 + (lines[b]?.length ?? 0);
      if (b > a && size > EXCERPT_CHARS) break;
      const here = lineTerms[b] ?? [];
      if (here.length === 0) continue;
      for (const t of here) {
        if (seen[t] === a) continue;
        seen[t] = a;
        weight += (weights[t] ?? 0) + tiny;
      }
      const heavier = weight > bestWeight + tiny / 2;
      const asHeavy = !heavier && weight > bestWeight - tiny / 2;
      if (best === undefined || heavier || (asHeavy && b - a < best[1] - best[0])) {
        best = [a, b];
        bestWeight = weight;
      }
    }
  }
  return best;
}
