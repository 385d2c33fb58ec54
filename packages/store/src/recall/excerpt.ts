/**
 * Excerpts for recall hits: a verbatim passage of the memory's text around its best-matching
 * lines, with the 1-based inclusive line range it comes from, so a client can `view` exactly
 * those lines.
 */

/** Longest excerpt, in characters (UTF-16 code units). */
export const EXCERPT_CHARS = 320;
/** Most lines in one excerpt. */
export const EXCERPT_LINES = 6;

/** Marks put around matched terms by FTS5's highlight(); private-use code points. */
export const MATCH_OPEN = "\uE000";
export const MATCH_CLOSE = "\uE001";

export interface Excerpt {
  /** A substring of the text. */
  readonly excerpt: string;
  /** First line of the excerpt, 1-based. */
  readonly line_start: number;
  /** Last line of the excerpt, 1-based, inclusive. */
  readonly line_end: number;
}

const MARKS = new RegExp(`[${MATCH_OPEN}${MATCH_CLOSE}]`, "g");

interface LineMatches {
  /** Distinct matched terms on the line. */
  readonly terms: number;
  /** Offset in the original line of the first match, or -1. */
  readonly first: number;
}

/**
 * What matched on each line, read from FTS5's highlight() of the indexed form of the text (the
 * text itself, or with Chinese and Japanese runs spelled out as n-grams; see cjk.ts). Neither
 * highlight() nor that spelling adds or removes line breaks, so line i of one is line i of the
 * other. On a line whose indexed form differs, the first match is found in the line itself.
 * A text that itself contains the mark characters is handled by not trusting marks on that
 * line.
 */
function lineMatches(lines: readonly string[], highlighted: string | undefined): LineMatches[] {
  const marked = highlighted?.split("\n");
  return lines.map((line, i) => {
    const withMarks = marked?.[i];
    if (withMarks === undefined || line.includes(MATCH_OPEN) || line.includes(MATCH_CLOSE)) {
      return { terms: 0, first: -1 };
    }
    const terms = new Set<string>();
    let first = -1;
    let removed = 0;
    for (let open = withMarks.indexOf(MATCH_OPEN); open !== -1; ) {
      const close = withMarks.indexOf(MATCH_CLOSE, open);
      if (close === -1) break;
      if (first === -1) first = open - removed;
      removed += 2;
      terms.add(withMarks.slice(open + 1, close).toLowerCase());
      open = withMarks.indexOf(MATCH_OPEN, close);
    }
    if (first !== -1 && withMarks.replace(MARKS, "") !== line) {
      const [term = ""] = terms;
      first = Math.max(0, line.toLowerCase().indexOf(term));
    }
    return { terms: terms.size, first };
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
 * Picks the excerpt of `text`: the line with the most distinct matched terms (the first such
 * line on a tie). When nothing matched: the first non-blank line from `fallbackLine` (1-based;
 * hybrid recall passes the start of the passage most similar to the query), else from the
 * top. That line is extended by the lines after it and then (for a matched line only) before
 * it while the excerpt stays within {@link EXCERPT_CHARS} and {@link EXCERPT_LINES}, without
 * blank lines at either edge.
 * A single line longer than the budget is cut around its first match (or from its start).
 */
export function excerptOf(
  text: string,
  highlighted: string | undefined,
  fallbackLine = 1,
): Excerpt {
  const lines = text.split("\n");
  const matches = lineMatches(lines, highlighted);
  let best = -1;
  for (let i = 0; i < lines.length; i++) {
    const terms = matches[i]?.terms ?? 0;
    if (terms > 0 && (best === -1 || terms > (matches[best]?.terms ?? 0))) best = i;
  }
  const matched = best !== -1;
  if (best === -1) {
    const from = Math.min(Math.max(0, Math.floor(fallbackLine) - 1), lines.length - 1);
    const nonBlank = (line: string) => line.trim() !== "";
    const after = lines.findIndex((line, i) => i >= from && nonBlank(line));
    best = Math.max(0, after !== -1 ? after : lines.findIndex(nonBlank));
  }
  const bestLine = lines[best] ?? "";
  if (bestLine.length >= EXCERPT_CHARS) {
    const at = Math.max(0, matches[best]?.first ?? 0);
    return {
      excerpt: cutAround(bestLine, at, EXCERPT_CHARS),
      line_start: best + 1,
      line_end: best + 1,
    };
  }
  let first = best;
  let last = best;
  let size = bestLine.length;
  const fits = (i: number) =>
    i >= 0 &&
    i < lines.length &&
    last - first + 1 < EXCERPT_LINES &&
    size + 1 + (lines[i]?.length ?? 0) <= EXCERPT_CHARS;
  while (fits(last + 1)) size += 1 + (lines[++last]?.length ?? 0);
  // A matched line is shown in its context; a passage (or the top) is read from its start.
  while (matched && fits(first - 1)) size += 1 + (lines[--first]?.length ?? 0);
  // Blank lines at either edge add nothing to read.
  const blank = (i: number) => (lines[i] ?? "").trim() === "";
  while (first < best && blank(first)) first++;
  while (last > best && blank(last)) last--;
  return {
    excerpt: lines.slice(first, last + 1).join("\n"),
    line_start: first + 1,
    line_end: last + 1,
  };
}
