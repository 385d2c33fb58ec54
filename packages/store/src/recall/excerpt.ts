/**
 * Excerpts for recall hits: a verbatim passage of the memory's text around the lines that best
 * match the query, and a 1-based inclusive line range that holds it, so a client can `view`
 * exactly those lines.
 *
 * The range is chosen first, for where the answer most likely is; the excerpt is then the best
 * passage inside it. A range is a window of {@link RANGE_LINES} lines around the line that
 * matches best (one line before it, two after: what answers a question most often follows the
 * lines that repeat its words), widened to take in nearby windows that match nearly as well,
 * up to {@link RANGE_MAX_LINES} lines and {@link RANGE_CHARS} characters. Its constants were
 * chosen on LoCoMo's dev split (`pnpm bench locomo`); see the store README.
 */

/** Longest excerpt, in characters (UTF-16 code units). */
export const EXCERPT_CHARS = 320;
/** Most lines in one excerpt. */
export const EXCERPT_LINES = 6;
/** Lines of a range's window: its anchor line, the line before and the two after. */
export const RANGE_LINES = 4;
/** Most lines in a range once nearby windows are taken in. */
export const RANGE_MAX_LINES = 8;
/** Longest range, in characters; a window's farthest lines are left out to fit. */
export const RANGE_CHARS = 2000;
/** A window scoring at least this share of the best window's score is taken into the range. */
export const NEAR_BEST = 0.7;
/**
 * How much a term counts by the place of its line in a window: the line before the anchor, the
 * anchor, the two after. The anchor's own words place the window; a reply that repeats them
 * counts for less.
 */
const PLACE_WEIGHTS = [0.7, 1, 0.5, 0.5] as const;
/** Where the anchor is in a window ({@link PLACE_WEIGHTS}' index of weight 1). */
const BEFORE_ANCHOR = 1;
/**
 * Added to each term's weight when it places a range. Rarity in a store of a few dozen
 * memories is a rough signal, and every content word of a question says something about
 * where the answer is: with the floor, a common word still counts, a rare one counts more.
 */
const TERM_FLOOR = 1;

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
 * Picks the range and the excerpt of `text` for a query whose terms occur as `terms` says.
 *
 * The range ({@link rangeOf}): the window of {@link RANGE_LINES} lines whose terms score
 * best, widened by the windows scoring at least {@link NEAR_BEST} of it while the whole
 * stays within {@link RANGE_MAX_LINES} lines and {@link RANGE_CHARS} characters. In hybrid
 * recall `passage` (the passage most similar to the query by meaning) is such a window too,
 * taken in first: its first non-blank line and the lines after it, {@link RANGE_LINES} in all.
 * When no term occurs, the range is that passage window (without a passage, the top's).
 *
 * Where lines are short, the range is then widened (after, then before) to what an excerpt
 * can show, {@link EXCERPT_LINES} lines within {@link EXCERPT_CHARS}.
 *
 * The excerpt lies within the range: its core is the window of consecutive lines, within
 * {@link EXCERPT_CHARS} and {@link EXCERPT_LINES}, whose distinct terms weigh the most together
 * (a rare term counts for more than common ones, a term counts once however often it occurs;
 * ties to the shortest, then the first), widened by the range's lines after it and then before
 * it within the budget, without blank lines at either edge. A single line longer than the
 * budget is cut around the first occurrence of its heaviest term (or from its start). When no
 * term occurs, the excerpt starts at the range's first line.
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
  const blank = (i: number) => (lines[i] ?? "").trim() === "";
  const size = (first: number, last: number) => spanChars(lines, first, last);

  // The passage's window (or the top's): from its first non-blank line, read on.
  const top = Math.min(Math.max(0, Math.floor(passage?.lineStart ?? 1) - 1), lines.length - 1);
  const after = lines.findIndex((line, i) => i >= top && line.trim() !== "");
  const start = Math.max(0, after !== -1 ? after : lines.findIndex((line) => line.trim() !== ""));
  let end = start;
  while (
    end + 1 < lines.length &&
    end - start + 1 < RANGE_LINES &&
    size(start, end + 1) <= RANGE_CHARS
  ) {
    end++;
  }
  const reading: [number, number] = [start, end];

  const matched = at.some((offsets) => offsets.some((o) => o !== -1));
  let [first, last] = matched
    ? rangeOf(lines, at, weights, passage === undefined ? undefined : reading)
    : reading;
  // Short lines: the range holds at least what an excerpt can show (a range read from the
  // passage or the top keeps its start).
  while (first < last && blank(last)) last--;
  const fits = (i: number) =>
    i >= 0 &&
    i < lines.length &&
    last - first + 1 < EXCERPT_LINES &&
    size(Math.min(first, i), Math.max(last, i)) <= EXCERPT_CHARS;
  while (fits(last + 1)) last++;
  while (matched && fits(first - 1)) first--;
  while (first < last && blank(first)) first++;
  while (first < last && blank(last)) last--;

  // The excerpt: the best window inside the range (or its first line), widened within it.
  const inside = (offsets: readonly number[]) =>
    offsets.map((o, i) => (i >= first && i <= last ? o : -1));
  const core = matched ? bestWindow(lines, at.map(inside), weights) : undefined;
  let [from, to] = core ?? [first, first];
  let excerpt: string;
  if (from === to && length(from) >= EXCERPT_CHARS) {
    excerpt = cutAround(lines[from] ?? "", heaviestAt(at, weights, from), EXCERPT_CHARS);
  } else {
    const keep = [from, to] as const;
    let chars = size(from, to);
    const room = (i: number) =>
      i >= first &&
      i <= last &&
      to - from + 1 < EXCERPT_LINES &&
      chars + 1 + length(i) <= EXCERPT_CHARS;
    while (room(to + 1)) chars += 1 + length(++to);
    while (room(from - 1)) chars += 1 + length(--from);
    while (from < keep[0] && blank(from)) from++;
    while (to > keep[1] && blank(to)) to--;
    excerpt = lines.slice(from, to + 1).join("\n");
  }
  return { excerpt, line_start: first + 1, line_end: last + 1 };
}

/**
 * The range (0-based, inclusive) for matched terms. Each line is tried as the anchor of a
 * window of {@link RANGE_LINES} lines (the line before it and the two after; moved inside the
 * text at its edges). A window scores, for each term it holds, the term's weight plus
 * {@link TERM_FLOOR}, times the {@link PLACE_WEIGHTS} of the best place it holds it at, times
 * `1 + ln n` for the n lines of the window holding it (a word the window keeps coming back to
 * is what it is about). The best window (the first of equals) is the range; then the
 * `passage` window, if any, and, best first, each window anchored on a matched line and
 * scoring at least {@link NEAR_BEST} of the best are taken in where the range spanning both
 * stays within {@link RANGE_MAX_LINES} lines and {@link RANGE_CHARS} characters. A window over
 * {@link RANGE_CHARS} drops its lines of least place weight first, down to its anchor.
 */
function rangeOf(
  lines: readonly string[],
  at: readonly number[][],
  weights: readonly number[],
  passage: readonly [number, number] | undefined,
): [number, number] {
  const n = lines.length;
  const size = (first: number, last: number) => spanChars(lines, first, last);
  const scores: { anchor: number; score: number }[] = [];
  for (let anchor = 0; anchor < n; anchor++) {
    let score = 0;
    for (const [t, offsets] of at.entries()) {
      let place = 0;
      let count = 0;
      for (const [k, weight] of PLACE_WEIGHTS.entries()) {
        if ((offsets[anchor + k - BEFORE_ANCHOR] ?? -1) === -1) continue;
        place = Math.max(place, weight);
        count++;
      }
      if (count > 0) score += ((weights[t] ?? 0) + TERM_FLOOR) * place * (1 + Math.log(count));
    }
    scores.push({ anchor, score });
  }
  const windowOf = (anchor: number): [number, number] => {
    let first = Math.max(0, Math.min(anchor - BEFORE_ANCHOR, n - RANGE_LINES));
    let last = Math.min(n - 1, first + RANGE_LINES - 1);
    // Too long: leave out the lines of least place weight (the farthest after, then before).
    const place = (i: number) => PLACE_WEIGHTS[i - anchor + BEFORE_ANCHOR] ?? 0;
    while (first < last && size(first, last) > RANGE_CHARS) {
      if (last === anchor || (first !== anchor && place(first) < place(last))) first++;
      else last--;
    }
    return [first, last];
  };
  const ranked = scores.sort((a, b) => b.score - a.score || a.anchor - b.anchor);
  const best = ranked[0] as { anchor: number; score: number };
  let [first, last] = windowOf(best.anchor);
  // Another matched line whose window scores nearly as well; a window anchored on an unmatched
  // line only shifts a better one.
  const holds = (anchor: number) => at.some((offsets) => (offsets[anchor] ?? -1) !== -1);
  const near = ranked
    .slice(1)
    .filter(({ anchor, score }) => score > 0 && score >= NEAR_BEST * best.score && holds(anchor));
  const windows = near.map(({ anchor }) => windowOf(anchor));
  for (const [a, b] of passage === undefined ? windows : [passage, ...windows]) {
    const lo = Math.min(first, a);
    const hi = Math.max(last, b);
    if (hi - lo + 1 <= RANGE_MAX_LINES && size(lo, hi) <= RANGE_CHARS) [first, last] = [lo, hi];
  }
  return [first, last];
}

/** Characters of lines `first..last` (0-based, inclusive) with the line breaks between them. */
function spanChars(lines: readonly string[], first: number, last: number): number {
  let chars = -1;
  for (let i = first; i <= last; i++) chars += 1 + (lines[i]?.length ?? 0);
  return chars;
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
