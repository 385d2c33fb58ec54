/**
 * Literal search within one memory: its lines that contain a text, case-folded. Kept apart from
 * the search operation (search.ts) because the SQL filter (sqlite/statements.ts) folds with
 * the same {@link foldCase}, and that module must not depend on the operations above it.
 */
import { cutAround } from "./excerpt.js";

/** Longest snippet of a search hit, in characters. */
export const SNIPPET_CHARS = 200;

/** One line of a memory that contains the searched text. */
export interface LineHit {
  /** 1-based line number. */
  readonly line: number;
  /** The line, cut to about {@link SNIPPET_CHARS} characters around the match. */
  readonly snippet: string;
}

/** Case-folds for literal search (Unicode lower case, as String.prototype.toLowerCase). */
export function foldCase(text: string): string {
  return text.toLowerCase();
}

/**
 * The lines of `text` containing `needle` (already case-folded), first to last, at most `max`.
 * Positions are found in the folded line; folding rarely changes length, and when it does the
 * snippet is still cut around the right place give or take a character or two.
 */
export function matchingLines(text: string, needle: string, max: number): LineHit[] {
  const hits: LineHit[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length && hits.length < max; i++) {
    const line = lines[i] as string;
    const at = foldCase(line).indexOf(needle);
    if (at !== -1) hits.push({ line: i + 1, snippet: cutAround(line, at, SNIPPET_CHARS) });
  }
  return hits;
}
