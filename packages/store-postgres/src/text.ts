/**
 * Texts as PostgreSQL keeps them. Its text type cannot hold U+0000, which a memory's text may
 * (SQLite's can): such a text is stored as its JSON string, flagged `text_json`, and indexed
 * with a space for each U+0000 (so lines, and what the index finds on them, stay in place).
 * Every other text is stored as it is.
 */
import { indexText } from "@hms/store/internal";

const NUL = "\u0000";

/** The columns that store `text`: text, text_json, index_text. */
export function storedText(text: string): [string, boolean, string | null] {
  if (!text.includes(NUL)) return [text, false, indexText(text)];
  const spaced = text.replaceAll(NUL, " ");
  return [JSON.stringify(text), true, indexText(spaced) ?? spaced];
}

/** A text back from its stored form. */
export function readText(stored: string, json: boolean): string {
  return json ? (JSON.parse(stored) as string) : stored;
}
