/**
 * Texts as PostgreSQL keeps them. Its text type cannot hold U+0000, which a memory's text may
 * (SQLite's can): such a text is stored as its JSON string, flagged `text_json`. Every other
 * text is stored as it is.
 *
 * What the full-text index reads is `index_text`, never the text itself: the text with every
 * run of characters that are not part of a word (punctuation, symbols, spaces, U+0000) made one
 * space, line breaks kept, and Chinese and Japanese runs spelt out as @hms/store's index does
 * (`indexText`). SQLite's unicode61 tokenizer splits words at every such character; PostgreSQL's
 * parser does not (it keeps "IL-6", "1.5", "e.g", "a_b", URLs, paths and e-mail addresses as
 * tokens of their own, beside their parts), so without this the two engines would count other
 * words and other lengths, and rank differently. Lines stay where they are, so line i of the
 * index text is line i of the text (the excerpts rely on it).
 */
import { indexText } from "@hms/store/internal";

const NUL = "\u0000";

/**
 * Characters between words: anything but letters, digits, combining marks and private-use
 * characters (the characters @hms/store's queries make words of, as unicode61 does) and line
 * breaks.
 */
const BETWEEN_WORDS = /[^\p{L}\p{N}\p{M}\p{Co}\n]+/gu;

/** The columns that store `text`: text, text_json, index_text. */
export function storedText(text: string): [string, boolean, string] {
  const json = text.includes(NUL);
  return [json ? JSON.stringify(text) : text, json, wordsOf(text)];
}

/** What the full-text index reads of `text` (see above). */
export function wordsOf(text: string): string {
  return (indexText(text) ?? text).replace(BETWEEN_WORDS, " ").replace(SHORT_WORD, indexedWord);
}

/** A word of one or two characters ending in s or y: Porter's stemmer would change it. */
const SHORT_WORD =
  /(?<![\p{L}\p{N}\p{M}\p{Co}])[\p{L}\p{N}\p{M}\p{Co}]?[sSyY](?![\p{L}\p{N}\p{M}\p{Co}])/gu;

/**
 * A word as the index holds it. FTS5 stems only words of three characters or more; Porter's
 * stemmer in PostgreSQL stems every word, and takes the s off "is", "as" and "us" (so the query
 * word "I" found "is"). Such a word is indexed, and asked for, with a digit after it: a word
 * with a digit is a `numword` to PostgreSQL's parser, which the configuration does not stem.
 */
export function indexedWord(word: string): string {
  return word.length <= 2 && /[sy]$/i.test(word) ? `${word}0` : word;
}

/** A text back from its stored form. */
export function readText(stored: string, json: boolean): string {
  return json ? (JSON.parse(stored) as string) : stored;
}
