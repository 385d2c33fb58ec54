/**
 * The words of a recall query marked in a hit's excerpt. The server ranks with its own
 * tokenizer and stemmer and sends plain excerpts; here the query is cut into words as the
 * store cuts it (letters, digits and marks), without the words that say nothing of where the
 * answer is (the store's EXCERPT_STOPWORDS, copied: the page's bundle does not take in the
 * store), and an excerpt's word is marked when it is a query word or shares its stem
 * ("painted" for "paint"), as near to the store's Porter stemmer as a few suffixes get.
 */

const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** The store's EXCERPT_STOPWORDS (packages/store/src/recall/query.ts); a test keeps them equal. */
export const EXCERPT_STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be but by for if in into is it no not of on or such that the their " +
    "then there these they this to was will with " +
    "about above after again against all also am any because been before being below between " +
    "both can cannot could did do does doing don down during each else ever few from further " +
    "get got had has have having he her here hers herself him himself his how i its itself " +
    "just ll me might more most must my myself nor now off once only other ought our ours " +
    "ourselves out over own re same shall she should so some than them themselves those " +
    "through too under until up ve very we were what when where which while who whom whose " +
    "why would you your yours yourself yourselves"
  ).split(" "),
);

/** A word without the commonest English endings, so that forms of one word meet. */
function stem(word: string): string {
  let stemmed = word;
  for (const ending of ["ings", "ing", "ied", "ies", "ed", "es", "s", "ly"]) {
    if (word.length - ending.length >= 3 && word.endsWith(ending)) {
      stemmed = word.slice(0, -ending.length) + (ending === "ied" || ending === "ies" ? "y" : "");
      break;
    }
  }
  // "quote" and "quotes" (quot-es) meet.
  return stemmed.length > 3 && stemmed.endsWith("e") ? stemmed.slice(0, -1) : stemmed;
}

/** The stems of a query's words worth marking (all of them if every one is a stopword). */
export function queryStems(query: string): Set<string> {
  const words = (query.normalize("NFC").toLowerCase().match(WORD) ?? []).filter(
    (word) => !/^[a-z]$/.test(word),
  );
  const content = words.filter((word) => !EXCERPT_STOPWORDS.has(word));
  return new Set((content.length > 0 ? content : words).map(stem));
}

/** A piece of an excerpt: plain, or a word of the query. */
export interface Piece {
  readonly text: string;
  readonly marked: boolean;
}

/** `excerpt` cut into plain pieces and the words of `query` it holds. */
export function markTerms(excerpt: string, query: string): Piece[] {
  const stems = queryStems(query);
  const pieces: Piece[] = [];
  let at = 0;
  for (const match of excerpt.matchAll(WORD)) {
    if (!stems.has(stem(match[0].normalize("NFC").toLowerCase()))) continue;
    if (match.index > at) pieces.push({ text: excerpt.slice(at, match.index), marked: false });
    pieces.push({ text: match[0], marked: true });
    at = match.index + match[0].length;
  }
  if (at < excerpt.length) pieces.push({ text: excerpt.slice(at), marked: false });
  return pieces;
}
