/**
 * Literal search, the store's operation: the lines of memories that contain a text, case-folded.
 * SQL picks the memories that contain it (sqlite/statements.ts); lines.ts finds the lines.
 */
import { type StoreContext, selectionOf } from "../context.js";
import { StoreError } from "../errors.js";
import { checkInteger } from "../limits.js";
import { bindSelection } from "../sqlite/statements.js";
import {
  DEFAULT_PAGE,
  MAX_PAGE,
  MAX_SEARCH_CHARS,
  type SearchHit,
  type SearchOptions,
} from "../types.js";
import { foldCase, matchingLines } from "./lines.js";

/**
 * Checks a search's arguments, as both engines do: a non-empty text of at most
 * {@link MAX_SEARCH_CHARS} characters within one line, and a limit of 1 to {@link MAX_PAGE}.
 * Returns the limit.
 */
export function checkSearch(text: unknown, options: SearchOptions): number {
  if (typeof text !== "string" || text.length === 0) {
    throw new StoreError("INVALID_ARGUMENT", "text to search for must be a non-empty string");
  }
  if (text.length > MAX_SEARCH_CHARS) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `text to search for is over ${MAX_SEARCH_CHARS} characters`,
    );
  }
  if (text.includes("\n")) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      "search matches within one line: text must not contain a line break",
    );
  }
  return checkInteger(options.limit ?? DEFAULT_PAGE, "limit", 1, MAX_PAGE);
}

/** `MemoryStore.search`: lines containing `text`, in key order then line order. */
export function search(
  ctx: StoreContext,
  text: string,
  options: SearchOptions,
): { hits: SearchHit[] } {
  const limit = checkSearch(text, options);
  const { prefix, tag } = selectionOf(ctx, options);
  const needle = foldCase(text);
  const { params, shape } = bindSelection(prefix, tag);
  const hits: SearchHit[] = [];
  const rows = ctx.sql.searchRows.for(shape).iterate({ ...params, needle }) as IterableIterator<{
    key: string;
    text: unknown;
  }>;
  for (const row of rows) {
    for (const hit of matchingLines(ctx.sql.readText(row.text), needle, limit - hits.length)) {
      hits.push({ key: row.key, ...hit });
    }
    if (hits.length >= limit) {
      rows.return?.();
      break;
    }
  }
  return { hits };
}
