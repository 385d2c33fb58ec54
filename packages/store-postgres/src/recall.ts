/**
 * Lexical recall on PostgreSQL with BM25, as SQLite's FTS5 computes it (k1 = 1.2, b = 0.75,
 * IDF `ln((N − df + 0.5) / (df + 0.5))` floored at 1e-6, every query term an OR). PostgreSQL's
 * own ts_rank is not BM25 (it ignores how rare a term is), so here:
 *
 * - the candidates are the namespace's memories whose full-text vector (`english`
 *   configuration, a GIN index that leads with the namespace) matches any query term;
 * - the statistics are kept by a trigger as memories change: N and the total length in the
 *   namespace's row, each term's document frequency in `hms_terms`;
 * - each candidate's BM25 is computed in SQL (scoring.ts) from its vector (`unnest(tsvector)` gives each
 *   term's positions, so its frequency) and its stored length.
 *
 * Query terms, filters, `k`, the hit shape, the score (each hit's BM25 as a share of the
 * query's ceiling) and the excerpts are @hms/store's. Excerpts find the terms with
 * ts_headline (the same parser and stemmer as the index), as SQLite's find them with FTS5's
 * highlight().
 */
import {
  checkTimeRange,
  DEFAULT_RECALL_K,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
  queryTerms,
  type RecallHit,
  type RecallOptions,
  type RecallResult,
  StoreError,
} from "@hms/store";
import {
  bm25Ceiling,
  CANDIDATE_BUDGET,
  type CandidatePick,
  candidateExpression,
  checkInteger,
  excerptOf,
  excerptTerms,
  informativeTerms,
  MATCH_CLOSE,
  MATCH_OPEN,
  RANGE_TOP,
  type RankedId,
  selectionOf,
  shareOfCeiling,
  widenedPick,
} from "@hms/store/internal";
import { type Client, type PgContext, type Selected, timeConditions } from "./context.js";
import { type Candidates, scoreStatement } from "./scoring.js";
import { indexedWord, readText } from "./text.js";
import { hybridRank } from "./vectors-recall.js";

/** FTS5's floor for the IDF of a term held by half the memories or more. */
const IDF_FLOOR = 1e-6;

/** A word's lexeme in the index (undefined: a stopword, not indexed) and how many hold it. */
interface Lexeme {
  readonly lexeme: string | undefined;
  readonly df: number;
}

/** `recall`: the memories most relevant to `query`, best first, with excerpts. */
export async function recall(
  ctx: PgContext,
  query: string,
  options: RecallOptions,
): Promise<RecallResult> {
  if (typeof query !== "string") throw new StoreError("INVALID_ARGUMENT", "query must be a string");
  if (Buffer.byteLength(query, "utf8") > MAX_QUERY_BYTES) {
    throw new StoreError("INVALID_ARGUMENT", `query is over ${MAX_QUERY_BYTES} bytes`);
  }
  const k = checkInteger(options.k ?? DEFAULT_RECALL_K, "k", 1, MAX_RECALL_K);
  const range = checkTimeRange(options);
  const filter: Selected = {
    ...selectionOf(ctx as never, options),
    modifiedAfter: range.after,
    modifiedBefore: range.before,
  };
  const { vector } = options;
  if (vector !== undefined && !(vector instanceof Float32Array)) {
    throw new StoreError("INVALID_ARGUMENT", "a query vector must be a Float32Array");
  }
  // Hybrid when the engine has an embedding model and the caller embedded the query
  // (vectors-recall.ts); else BM25 alone.
  const dense = vector === undefined ? undefined : ctx.embeddings?.dense;
  const build = dense === undefined ? ("lexical" as const) : ("hybrid" as const);
  const terms = queryTerms(query);
  if (terms.length === 0 && dense === undefined) return { hits: [], build };
  return await ctx.read({ hits: [], build }, async (client, ns) => {
    const excerptWords = excerptTerms(query);
    const words = [...new Set([...terms, ...excerptWords])];
    const { n, avgdl, lexemes } = await statistics(client, ns, words);
    const stats = { n, avgdl, terms: terms.map((term) => lexemes.get(term) as Lexeme) };
    const ceiling = queryCeiling(stats);
    const ranked: RankedId[] =
      dense === undefined || vector === undefined
        ? (await rank(client, ns, filter, k, stats)).map(({ id, bm25 }) => ({
            id,
            score: shareOfCeiling(bm25, ceiling),
          }))
        : await hybridRank(client, ns, filter, k, vector, dense, async (depth) =>
            (await rank(client, ns, filter, depth, stats)).map(({ id, bm25 }) => ({
              id,
              share: bm25 / ceiling,
            })),
          );
    if (ranked.length === 0) return { hits: [], build };
    const found = excerptWords.map((word) => lexemes.get(word) as Lexeme);
    const weights = found.map(({ df }) => {
      const total = Math.max(n, df);
      return Math.log(1 + (total - df + 0.5) / (df + 0.5));
    });
    const texts = await highlights(
      client,
      ranked.map(({ id }) => id),
      found.map(({ lexeme }) => lexeme),
    );
    const hits: RecallHit[] = [];
    for (const { id, score, passage } of ranked) {
      const row = texts.get(id);
      if (row === undefined) continue;
      const matches = found.map((_, i) => ({
        highlighted: row.highlighted[i],
        weight: weights[i] ?? 0,
      }));
      hits.push({
        key: row.key,
        score,
        ...excerptOf(row.text, matches, passage),
        updated_at: row.updated_at,
      });
    }
    return { hits, build };
  });
}

/**
 * The most BM25 any memory could score for the query (`bm25Ceiling` over the query words that
 * have a lexeme, the ones scored). A lexical hit scores its BM25 as a share of it
 * (`shareOfCeiling`), as on SQLite, and hybrid fusion takes that share as the lexical part.
 */
function queryCeiling(stats: { n: number; terms: readonly Lexeme[] }): number {
  const dfs = stats.terms.filter((term) => term.lexeme !== undefined).map((term) => term.df);
  return bm25Ceiling(dfs, stats.n);
}

/** The namespace's size and average length, and each word's lexeme and document frequency. */
async function statistics(client: Client, ns: number, words: readonly string[]) {
  // One round trip: the namespace's row, joined to one row per word (none when no words).
  const { rows } = await client.query<{
    n: number;
    avgdl: number;
    i: number | null;
    lexeme: string | null;
    df: number | null;
  }>(
    `SELECT s.docs AS n,
       CASE WHEN s.docs > 0 THEN s.doc_tokens::float8 / s.docs ELSE 0 END AS avgdl,
       w.i, w.lexeme, w.df
     FROM hms_namespaces s
     LEFT JOIN LATERAL (
       SELECT w.i::integer AS i, l.lexeme,
         coalesce((SELECT df FROM hms_terms t WHERE t.ns = s.id AND t.lexeme = l.lexeme), 0) AS df
       FROM unnest($2::text[]) WITH ORDINALITY AS w (word, i)
       LEFT JOIN LATERAL (SELECT lexeme FROM unnest(hms_tsv(w.word)) LIMIT 1) AS l ON true
     ) AS w ON true
     WHERE s.id = $1`,
    [ns, words.map(indexedWord)],
  );
  const lexemes = new Map<string, Lexeme>();
  for (const row of rows) {
    if (row.i === null) continue;
    lexemes.set(words[row.i - 1] as string, { lexeme: row.lexeme ?? undefined, df: row.df ?? 0 });
  }
  const total = rows[0] ?? { n: 0, avgdl: 0 };
  return { n: total.n, avgdl: total.avgdl, lexemes };
}

/** The best `k` memories passing `filter` for the query's lexemes, with their BM25. */
async function rank(
  client: Client,
  ns: number,
  filter: Selected,
  k: number,
  stats: { n: number; avgdl: number; terms: readonly Lexeme[] },
): Promise<{ id: number; bm25: number }[]> {
  // One entry per query word, as FTS5 scores each phrase of the OR: two words with one stem
  // count twice there too.
  const indexed = stats.terms
    .filter((term): term is { lexeme: string; df: number } => term.lexeme !== undefined)
    .map(({ lexeme, df }) => ({ term: lexeme, df }));
  if (indexed.length === 0 || stats.n === 0) return [];
  // As the SQLite engine does: when the terms match more memories than the budget, terms at
  // the IDF floor (held by most memories, adding nothing to a score) are not matched, unless
  // that leaves fewer than k hits.
  const budget = Math.max(CANDIDATE_BUDGET, 4 * k);
  const weighed = informativeTerms(indexed, stats.n, budget, k);
  // Over the budget, only the memories holding the rarest terms are scored (each still over
  // every weighed term): the SQLite engine's choice, read from its FTS5 expression. With a
  // time range, as on SQLite: the range applies in the candidate step, a common-word pick's
  // newest few are taken at and below the range's newest memory (RANGE_TOP), and a rare-term
  // step that leaves fewer than k in range is tried again with more terms (widenedPick)
  // before every match is scored.
  const pick = candidateExpression(weighed, stats.n, budget);
  const timed = isTimed(filter);
  const step = async (chosen: CandidatePick): Promise<{ id: number; bm25: number }[]> => {
    let below: number | undefined;
    if (timed && chosen.newest) {
      below = await rangeTop(client, ns, filter);
      if (below === undefined) return [];
    }
    return await score(client, ns, filter, k, stats, weighed, {
      lexemes: [...chosen.expr.matchAll(/"([^"]*)"/g)].map((match) => match[1] as string),
      all: chosen.expr.includes('" AND "'),
      newest: chosen.newest ? budget : undefined,
      below,
    });
  };
  let ranked: { id: number; bm25: number }[] = [];
  if (pick !== undefined) {
    ranked = await step(pick);
    if (timed && !pick.newest && ranked.length < k) {
      const widened = widenedPick(weighed, budget);
      if (widened !== undefined) ranked = await step(widened);
    }
  }
  // No candidate step, or a filter left fewer than k: every match is scored.
  if (pick === undefined || ranked.length < k) {
    ranked = await score(client, ns, filter, k, stats, weighed);
  }
  // Still too few (a filter again): the dropped terms' matches count too.
  if (ranked.length < k && weighed.length < indexed.length) {
    ranked = await score(client, ns, filter, k, stats, indexed);
  }
  return ranked;
}

function isTimed(filter: Selected): boolean {
  return filter.modifiedAfter !== undefined || filter.modifiedBefore !== undefined;
}

/**
 * The newest memory of the time range in `filter`: the highest id among the RANGE_TOP
 * memories it changed last (ties by id), as on SQLite; undefined when it holds none.
 */
async function rangeTop(client: Client, ns: number, filter: Selected): Promise<number | undefined> {
  const values: unknown[] = [ns];
  const add = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const range = timeConditions("m", add, filter).join(" AND ");
  const { rows } = await client.query<{ id: string | null }>(
    `SELECT max(id) AS id FROM (
       SELECT m.id FROM hms_memories m WHERE m.ns = $1 AND ${range}
       ORDER BY m.updated_at DESC, m.id DESC LIMIT ${RANGE_TOP}) AS r`,
    values,
  );
  const id = rows[0]?.id;
  return id === null || id === undefined ? undefined : Number(id);
}

/** BM25 of the memories matching any of `terms` (among `candidates` if given), the best `k`. */
async function score(
  client: Client,
  ns: number,
  filter: Selected,
  k: number,
  stats: { n: number; avgdl: number },
  indexed: readonly { term: string; df: number }[],
  candidates?: Candidates,
): Promise<{ id: number; bm25: number }[]> {
  const terms = indexed.map(({ term, df }) => {
    const idf = Math.log((stats.n - df + 0.5) / (df + 0.5));
    return { lexeme: term, idf: idf > 0 ? idf : IDF_FLOOR };
  });
  const { text, values } = scoreStatement({
    ns,
    filter,
    k,
    avgdl: stats.avgdl,
    terms,
    candidates,
  });
  const { rows } = await client.query<{ id: number; bm25: number }>(text, values);
  return rows;
}

/**
 * Each hit's key, text and last change and, per excerpt term, its text with that term's occurrences marked
 * (undefined where the memory does not hold the term), as the excerpt code reads FTS5's
 * highlight().
 */
async function highlights(
  client: Client,
  ids: readonly number[],
  lexemes: readonly (string | undefined)[],
): Promise<
  Map<
    number,
    { key: string; text: string; updated_at: string; highlighted: (string | undefined)[] }
  >
> {
  const { rows } = await client.query<{
    id: number;
    key: string;
    text: string;
    text_json: boolean;
    updated_at: string;
  }>("SELECT id, key, text, text_json, updated_at FROM hms_memories WHERE id = ANY($1::bigint[])", [
    ids,
  ]);
  const out = new Map(
    rows.map((row) => [
      row.id,
      {
        key: row.key,
        text: readText(row.text, row.text_json),
        updated_at: row.updated_at,
        highlighted: lexemes.map(() => undefined as string | undefined),
      },
    ]),
  );
  const wanted = lexemes.map((lexeme, i) => [lexeme, i] as const).filter(([l]) => l !== undefined);
  if (wanted.length === 0) return out;
  const marked = await client.query<{ id: number; i: number; text: string }>(
    `SELECT m.id, t.i::integer AS i,
       ts_headline('hms_english', coalesce(m.index_text, m.text), quote_literal(t.lexeme)::tsquery,
         $4) AS text
     FROM hms_memories m, unnest($2::text[], $3::integer[]) AS t (lexeme, i)
     WHERE m.id = ANY($1::bigint[]) AND m.tsv @@ quote_literal(t.lexeme)::tsquery`,
    [
      ids,
      wanted.map(([lexeme]) => lexeme),
      wanted.map(([, i]) => i),
      `HighlightAll=true, StartSel="${MATCH_OPEN}", StopSel="${MATCH_CLOSE}"`,
    ],
  );
  for (const row of marked.rows) {
    const hit = out.get(row.id);
    if (hit !== undefined) hit.highlighted[row.i] = row.text;
  }
  return out;
}
