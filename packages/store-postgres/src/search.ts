/**
 * Literal search on PostgreSQL: the lines of memories that contain a text, case-folded as
 * @hms/store folds it (JavaScript's toLowerCase; PostgreSQL's lower() depends on the
 * database's locale, so the folding is not left to it). Memories are read in key order, a
 * batch at a time, until the limit is reached.
 */
import type { SearchHit, SearchOptions } from "@hms/store";
import { checkSearch, foldCase, matchingLines, selectionOf } from "@hms/store/internal";
import type { PgContext } from "./context.js";
import { whereOf } from "./context.js";
import { readText } from "./text.js";

/** Memories read per round trip. */
const BATCH = 200;

/** `search`: lines containing `text`, in key order then line order. */
export async function search(
  ctx: PgContext,
  text: string,
  options: SearchOptions,
): Promise<{ hits: SearchHit[] }> {
  const limit = checkSearch(text, options);
  const { prefix, tag } = selectionOf(ctx as never, options);
  const needle = foldCase(text);
  return await ctx.read({ hits: [] }, async (client, ns) => {
    const hits: SearchHit[] = [];
    let after: string | null = null;
    for (;;) {
      const params: unknown[] = [ns];
      const where = whereOf(params, { prefix, tag, after });
      const { rows } = await client.query<{ key: string; text: string; text_json: boolean }>(
        `SELECT m.key, m.text, m.text_json FROM hms_memories m WHERE ${where} ORDER BY m.key LIMIT ${BATCH}`,
        params,
      );
      for (const row of rows) {
        const text = readText(row.text, row.text_json);
        if (!foldCase(text).includes(needle)) continue;
        for (const hit of matchingLines(text, needle, limit - hits.length)) {
          hits.push({ key: row.key, ...hit });
        }
        if (hits.length >= limit) return { hits };
      }
      if (rows.length < BATCH) return { hits };
      after = (rows[rows.length - 1] as { key: string }).key;
    }
  });
}
