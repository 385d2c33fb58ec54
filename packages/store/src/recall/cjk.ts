/**
 * Chinese and Japanese text for the lexical index. SQLite's unicode61 tokenizer splits words at
 * spaces and punctuation, and these scripts put none between words: a whole sentence would be
 * one token, found only by a query that repeats it exactly. So runs of Han, Hiragana and
 * Katakana are indexed as their characters and their adjacent pairs (bigrams, as Lucene's CJK
 * analyzer does), and queries ask for the pairs: "电子邮件" finds "客户喜欢通过电子邮件跟进".
 * Other scripts are left to unicode61 (Hangul, like Latin, separates words with spaces).
 */

// A word character (as unicode61 sees one) of one of the scripts, Script_Extensions included
// so that marks shared by both kana (ー, U+30FC) count.
const CJK_CHAR = String.raw`(?=[\p{L}\p{N}\p{M}])[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]`;
const CJK_ANY = new RegExp(CJK_CHAR, "u");
const CJK_RUN = new RegExp(`(?:${CJK_CHAR})+`, "gu");

/** Each adjacent pair of characters of a run, or the run itself when it is one character. */
function bigrams(chars: readonly string[]): string[] {
  if (chars.length === 1) return [...chars];
  return chars.slice(1).map((char, i) => `${chars[i]}${char}`);
}

/**
 * The text the full-text index holds for `text`: each CJK run replaced by its characters and
 * its bigrams, spaced apart; line breaks stay where they are, so line i of one is line i of
 * the other. `null` when the text has no CJK run (the index then holds the text itself).
 */
export function indexText(text: string): string | null {
  if (!CJK_ANY.test(text)) return null;
  return text.replace(CJK_RUN, (run) => {
    const chars = [...run];
    const grams = chars.length === 1 ? chars : [...chars, ...bigrams(chars)];
    return ` ${grams.join(" ")} `;
  });
}

/**
 * The index terms of one query word: the word itself, or, when it holds CJK runs, the bigrams
 * of each run (a lone character stays itself) and the other pieces as they are.
 */
export function wordTerms(word: string): string[] {
  if (!CJK_ANY.test(word)) return [word];
  const terms: string[] = [];
  let last = 0;
  for (const run of word.matchAll(CJK_RUN)) {
    if (run.index > last) terms.push(word.slice(last, run.index));
    terms.push(...bigrams([...run[0]]));
    last = run.index + run[0].length;
  }
  if (last < word.length) terms.push(word.slice(last));
  return terms;
}
