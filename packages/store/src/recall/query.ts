/**
 * Free-text recall queries, made safe for FTS5. User text never reaches MATCH: the query is cut
 * into word tokens here, and the MATCH expression is built from those tokens only, each one
 * quoted, joined with OR (recall wants any-term matches ranked by BM25, not FTS5's default AND).
 * Quotes, operators (AND, OR, NOT, NEAR), `*`, `^`, `:`, parentheses and punctuation are
 * separators here, so no query can be a syntax error.
 */

import { wordTerms } from "./cjk.js";

/** Most distinct terms taken from one query; more adds cost and almost no ranking signal. */
export const MAX_QUERY_TERMS = 64;

/**
 * English stopwords dropped from queries (not from the index): the classic Lucene/Anserini
 * list. Chosen on the SciFact train split, where dropping them and repeated terms raised
 * nDCG@10 from 0.6987 to 0.7015. A query made only of stopwords keeps them.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be but by for if in into is it no not of on or such that the their " +
    "then there these they this to was will with"
  ).split(" "),
);

// Letters, digits and combining marks make words, as in SQLite's unicode61 tokenizer.
const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/**
 * The distinct lower-cased index terms of a query (its words; the bigrams of Chinese and
 * Japanese runs), stopwords removed (unless that empties it).
 */
export function queryTerms(query: string): string[] {
  const words = (query.normalize("NFC").toLowerCase().match(WORD) ?? []).flatMap(wordTerms);
  const unique = [...new Set(words)];
  const content = unique.filter((word) => !STOPWORDS.has(word));
  return (content.length > 0 ? content : unique).slice(0, MAX_QUERY_TERMS);
}

/**
 * Words that say nothing about where in a memory the answer is, dropped from the terms an
 * excerpt looks for (never from ranking, which keeps {@link STOPWORDS}): the ranking list plus
 * question words, auxiliaries, pronouns and determiners, and the pieces English contractions
 * split into ("don't" is "don" and "t"; "I'll" is "i" and "ll"). A question such as "What did
 * Caroline's dog eat?" would otherwise place its excerpt at the first "what" or "s".
 */
export const EXCERPT_STOPWORDS: ReadonlySet<string> = new Set([
  ...STOPWORDS,
  ...(
    "about above after again against all also am any because been before being below between " +
    "both can cannot could did do does doing don down during each else ever few from further " +
    "get got had has have having he her here hers herself him himself his how i its itself " +
    "just ll me might more most must my myself nor now off once only other ought our ours " +
    "ourselves out over own re same shall she should so some than them themselves those " +
    "through too under until up ve very we were what when where which while who whom whose " +
    "why would you your yours yourself yourselves"
  ).split(" "),
]);

// One letter of an alphabet: in these scripts a word of one letter is a pronoun, an article
// or a piece of a contraction. (A Chinese character or a Hangul syllable is a word.)
const LONE_LETTER = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]$/u;

/**
 * The terms an excerpt looks for: the query's terms ({@link queryTerms}) without
 * {@link EXCERPT_STOPWORDS} and without one-letter words of a script that spells words with
 * several letters (the "s" of "Caroline's"); a digit, a Chinese character or a Hangul
 * syllable stays. A query made only of such words keeps its ranking terms.
 */
export function excerptTerms(query: string): string[] {
  const ranked = queryTerms(query);
  const content = ranked.filter((term) => !EXCERPT_STOPWORDS.has(term) && !LONE_LETTER.test(term));
  return content.length > 0 ? content : ranked;
}

/**
 * The FTS5 MATCH expression for a query: quoted terms joined by OR, or `undefined` when the
 * query has no word at all (then nothing matches and recall returns no hits).
 */
export function matchExpression(query: string): string | undefined {
  const terms = queryTerms(query);
  if (terms.length === 0) return undefined;
  // A term holds only word characters, so it cannot contain a double quote.
  return terms.map((term) => `"${term}"`).join(" OR ");
}
