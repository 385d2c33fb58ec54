import { prefixSuccessor } from "../keys.js";
import type { SqliteDatabase, SqliteStatement } from "../sqlite/driver.js";
import { queryTerms } from "./query.js";
import type { RankedId, Ranker, RecallFilter } from "./ranker.js";
import { TermRarity } from "./rarity.js";

/**
 * How many memories the candidate step lets BM25 score, at least (`4 × k` when more are
 * asked for). Scoring a match is what recall costs at scale: at 100,000 memories a query of
 * common words matches most of them. See {@link candidateExpression}.
 */
export const CANDIDATE_BUDGET = 1000;

/**
 * Lexical recall: Okapi BM25 as computed by SQLite FTS5 (k1 = 1.2, b = 0.75) over a Porter-
 * stemmed unicode61 index of each memory's text, with queries as OR of their terms.
 *
 * Only candidates are scored: when the query's terms are held by more memories than the
 * budget, terms whose IDF is at FTS5's floor are dropped ({@link informativeTerms}) and the
 * candidates are the memories holding the rarest terms ({@link candidateExpression}); each
 * candidate still gets its exact BM25 over every remaining term.
 *
 * A hit's score is its BM25 as a share of the query's ceiling ({@link bm25Ceiling}): the most
 * BM25 any memory could score for that query in this store. It lies in (0, 1], depends only on
 * the hit and the store's term statistics (never on the other hits), and is the same quantity
 * hybrid fusion takes as its lexical part, so a lexical hit scores what a hybrid hit without
 * vectors scores (but for the floor below). A memory of average length holding every query
 * term once scores 1 / (k1 + 1) (0.45); one holding only words most memories hold, next to
 * nothing (FTS5 floors such a term's IDF at 1e-6), so it gets the floor
 * {@link MIN_LEXICAL_SCORE}. Dividing by one positive number per query keeps BM25's ranking.
 */
export class LexicalRanker implements Ranker {
  readonly build = "lexical" as const;
  readonly model = null;
  readonly #rarity: TermRarity;
  readonly #rank: SqliteStatement;
  readonly #rankListing: SqliteStatement;
  readonly #inTimeRange: SqliteStatement;
  readonly #inTime: SqliteStatement;
  readonly #candidates: SqliteStatement;
  readonly #part: SqliteStatement;
  readonly #newest: SqliteStatement;
  readonly #budget: number;

  /** `budget` is for benchmarks that weigh it; recall uses {@link CANDIDATE_BUDGET}. */
  constructor(db: SqliteDatabase, budget = CANDIDATE_BUDGET) {
    this.#budget = budget;
    this.#rarity = new TermRarity(db);
    // bm25() is lower-is-better; the score is its negation. Filters are correlated EXISTS
    // lookups per match (primary-key probes), which measured faster than joining the memories
    // table; `rowid IN (...)` would even drive FTS5 one row at a time, recounting each term's
    // matches for bm25() at every row. The time filter also has a second form, `+rowid IN`
    // (the `+` keeps FTS5 driving): SQLite reads the memories in the time range once, from the
    // index on updated_at, into a list it checks each match against (with a Bloom filter),
    // which is cheaper than a probe per match when the range holds fewer memories than match.
    // An absent bound is bound as the text below or above every time (EARLIEST, LATEST), and
    // @after is NULL when there is no time filter at all.
    // The time filter comes first: SQLite checks a match against the filters in this order,
    // and a narrow range's list turns most matches away before the other probes.
    const filters = (time: "probe" | "list") => `
        AND (@after IS NULL OR ${
          time === "probe"
            ? `EXISTS (SELECT 1 FROM memories WHERE id = memories_fts.rowid
                 AND updated_at >= @after AND updated_at < @before)`
            : `+rowid IN (SELECT id FROM memories
                 WHERE updated_at >= @after AND updated_at < @before)`
        })
        AND (@tag IS NULL OR EXISTS (
          SELECT 1 FROM memory_tags WHERE tag = @tag AND memory_id = memories_fts.rowid))
        AND (@lo IS NULL OR EXISTS (
          SELECT 1 FROM memories WHERE id = memories_fts.rowid
            AND key >= @lo AND (@hi IS NULL OR key < @hi)))`;
    // Each reads [id, bm25] pairs, as arrays: thousands of rows per recall at scale.
    const rank = (time: "probe" | "list") =>
      db.prepare(`
      SELECT rowid AS id, -bm25(memories_fts) AS bm25 FROM memories_fts
      WHERE memories_fts MATCH @expr ${filters(time)}
      ORDER BY bm25(memories_fts), rowid
      LIMIT @k`);
    this.#rank = rank("probe");
    this.#rankListing = rank("list");
    this.#inTimeRange = db.prepare(`
      SELECT count(*) AS n FROM (SELECT 1 FROM memories
        WHERE updated_at >= @after AND updated_at < @before LIMIT @cap)`);
    this.#inTime = db.prepare(`
      SELECT id FROM memories WHERE id IN (SELECT value FROM json_each(@ids))
        AND updated_at >= @after AND updated_at < @before`);
    // FTS5 takes a rowid range as a seek in its lists, so `rowid >= @from` is cheap.
    this.#candidates = db.prepare(`
      SELECT rowid AS id, -bm25(memories_fts) AS bm25 FROM memories_fts
      WHERE memories_fts MATCH @expr AND rowid >= @from ${filters("probe")}`);
    this.#part = db.prepare(`
      SELECT rowid AS id, -bm25(memories_fts) AS bm25 FROM memories_fts
      WHERE memories_fts MATCH @expr AND rowid >= @from`);
    for (const statement of [this.#rank, this.#rankListing, this.#candidates, this.#part]) {
      statement.setReturnArrays(true);
    }
    // Walking a list newest first without scoring costs little.
    this.#newest = db.prepare(`
      SELECT rowid AS id FROM memories_fts WHERE memories_fts MATCH @expr
      ORDER BY rowid DESC LIMIT 1 OFFSET @offset`);
  }

  rank(query: string, filter: RecallFilter, k: number): RankedId[] {
    const { hits, ceiling } = this.scored(query, filter, k);
    return hits.map(({ id, bm25 }) => ({ id, score: shareOfCeiling(bm25, ceiling) }));
  }

  /**
   * The best `k` matches with their raw BM25, and the query's ceiling: the most BM25 any memory
   * could score for it ({@link bm25Ceiling}), so `bm25 / ceiling` is in (0, 1) and means the
   * same whatever the other hits are (hybrid fusion uses it).
   */
  scored(query: string, filter: RecallFilter, k: number): ScoredMatches {
    const terms = queryTerms(query);
    if (terms.length === 0) return { hits: [], ceiling: 0 };
    const n = this.#rarity.documents();
    const frequencies = this.#rarity.frequencies(terms);
    const prefix = filter.prefix || undefined;
    const timed = filter.after !== undefined || filter.before !== undefined;
    const bind = {
      lo: prefix ?? null,
      hi: prefix === undefined ? null : (prefixSuccessor(prefix) ?? null),
      tag: filter.tag ?? null,
      after: timed ? (filter.after ?? EARLIEST) : null,
      before: filter.before ?? LATEST,
    };
    const budget = Math.max(this.#budget, 4 * k);
    const weighed = informativeTerms(
      terms.map((term, i) => ({ term, df: frequencies[i]?.df ?? 0 })),
      n,
      budget,
      k,
    );
    const all = anyOf(weighed.map(({ term }) => term));
    let picked = candidateExpression(weighed, n, budget);
    // A time range is counted (up to the cap) once there is a candidate step to judge: any
    // step scores BM25 over every term's matches to start with (FTS5 counts them for bm25()),
    // so one that would leave fewer than k is worth skipping.
    const cap = rangeCountCap(n, k, budget);
    let counted: number | undefined;
    const tooNarrow = (candidates: number): boolean => {
      counted ??= this.#countInRange(bind, cap);
      return counted < cap && tooNarrowFor(counted, candidates, n, k);
    };
    if (picked !== undefined && timed && tooNarrow(picked.count)) picked = undefined;
    let ranked: { id: number; bm25: number }[] = [];
    if (picked !== undefined) {
      // The rowid from which the pick's newest `budget` matches start (0: all of them).
      const newest = picked.newest
        ? (this.#newest.get({ expr: picked.expr, offset: budget - 1 }) as
            | { id: number }
            | undefined)
        : undefined;
      const from = newest?.id ?? 0;
      // A BigInt binds as an INTEGER; FTS5 ignores a rowid constraint given as a REAL.
      ranked = this.#scoreCandidates(all, picked.expr, { ...bind, from: BigInt(from) }, k);
      // A time range let too few of the rarest terms' memories through: more of them first,
      // unless the range is too narrow for those too.
      if (timed && !picked.newest && ranked.length < k) {
        const widened = widenedPick(weighed, budget);
        if (widened !== undefined && !tooNarrow(widened.count)) {
          ranked = this.#scoreCandidates(all, widened.expr, { ...bind, from: 0n }, k);
        }
      }
    }
    // How many memories the range holds, when counted to the end (under the cap).
    const inRange = counted !== undefined && counted < cap ? counted : undefined;
    // No candidate step, or a filter left fewer candidates than asked for while other
    // matches may pass it: every match is scored.
    if (picked === undefined || ranked.length < k) {
      ranked = this.#scoreAll(all, sumOf(weighed), bind, k, inRange);
    }
    // Still too few (a filter again): the dropped terms' matches count too.
    if (ranked.length < k && weighed.length < terms.length) {
      ranked = this.#scoreAll(anyOf(terms), sumOf(frequencies), bind, k, inRange);
    }
    return {
      hits: ranked,
      ceiling: bm25Ceiling(
        frequencies.map((f) => f.df),
        n,
      ),
    };
  }

  /**
   * The best `k` of every memory matching `expr` (about `matches` of them) that passes the
   * filter in `bind`. A time filter is checked by a probe per match, or, when the time range
   * holds fewer memories than match (`inRange`, if already counted), against the list of
   * those memories (see the constructor).
   */
  #scoreAll(
    expr: string,
    matches: number,
    bind: Bind,
    k: number,
    inRange: number | undefined,
  ): { id: number; bm25: number }[] {
    let statement = this.#rank;
    if (bind.after !== null) {
      // An estimated count of matches is not a whole number (rarity.ts).
      const cap = Math.ceil(matches);
      const count = inRange ?? this.#countInRange(bind, cap);
      if (count < cap) statement = this.#rankListing;
    }
    return scoresOf(statement.all({ expr, ...bind, k }));
  }

  /** How many memories the time range in `bind` holds, counted up to `cap`. */
  #countInRange(bind: Bind, cap: number): number {
    const { n } = this.#inTimeRange.get({ after: bind.after, before: bind.before, cap }) as {
      n: number;
    };
    return n;
  }

  /**
   * The best `k` memories matching `candidates`, each with its BM25 over every term of `all`.
   * FTS5 scores one MATCH expression, so the candidates are matched as `(all) AND
   * (candidates)`, whose BM25 counts the candidate terms twice, and the candidate terms' own
   * BM25 (the same per-term IDFs and lengths) is taken off again.
   *
   * A time range is checked last, on the candidates in score order until `k` pass (a slice at
   * a time, a primary-key probe each), so a range wide enough for this step (see
   * {@link tooNarrowFor}) costs about `k / its share` probes, where checking every
   * candidate cost one per candidate (about 15% of an unfiltered recall at 100,000 memories).
   */
  #scoreCandidates(
    all: string,
    candidates: string,
    bind: Bind & { from: bigint },
    k: number,
  ): { id: number; bm25: number }[] {
    const both = this.#candidates.all({
      expr: `(${all}) AND (${candidates})`,
      ...bind,
      after: null,
    }) as [id: number, bm25: number][];
    if (both.length === 0) return [];
    const part = this.#part.all({ expr: candidates, from: bind.from }) as [number, number][];
    const twice = new Map<number, number>(part);
    const ranked = both
      .map(([id, bm25]) => ({ id, bm25: bm25 - (twice.get(id) ?? 0) }))
      .sort((a, b) => b.bm25 - a.bm25 || a.id - b.id);
    const { after, before } = bind;
    if (after === null) return ranked.slice(0, k);
    // In growing slices (8k, 16k, ... candidates), one statement each.
    const kept: { id: number; bm25: number }[] = [];
    for (let start = 0, size = 8 * k; start < ranked.length; start += size, size *= 2) {
      const slice = ranked.slice(start, start + size);
      const ids = JSON.stringify(slice.map((hit) => hit.id));
      const inside = new Set(idsOf(this.#inTime.all({ ids, after, before })));
      for (const hit of slice) {
        if (!inside.has(hit.id)) continue;
        kept.push(hit);
        if (kept.length === k) return kept;
      }
    }
    return kept;
  }
}

/**
 * What a time filter binds for an absent bound: text below, and above, every `updated_at` (ISO
 * 8601 from toISOString: a digit first, or a sign for a year beyond 0000-9999).
 */
const EARLIEST = "";
const LATEST = "~";

/** A filter's parameters in the ranking statements (`after` null: no time filter). */
interface Bind {
  readonly lo: string | null;
  readonly hi: string | null;
  readonly tag: string | null;
  readonly after: string | null;
  readonly before: string;
}

function sumOf(terms: readonly { df: number }[]): number {
  return terms.reduce((sum, { df }) => sum + df, 0);
}

/** [id, bm25] rows as matches. */
function scoresOf(rows: unknown[]): { id: number; bm25: number }[] {
  return (rows as [number, number][]).map(([id, bm25]) => ({ id, bm25 }));
}

/** `{ id }` rows as their ids. */
function idsOf(rows: unknown[]): number[] {
  return (rows as { id: number }[]).map((row) => row.id);
}

/** Matches with their raw BM25 (higher is better), and the query's {@link bm25Ceiling}. */
export interface ScoredMatches {
  readonly hits: readonly { readonly id: number; readonly bm25: number }[];
  readonly ceiling: number;
}

/** FTS5's bm25() parameters. */
const K1 = 1.2;

/**
 * The most BM25 any memory can score for a query whose terms are held by `dfs` of `n`
 * memories: each term's IDF (as FTS5 computes it, floored at 1e-6) times `k1 + 1`, the limit
 * of its term-frequency factor. A memory of average length holding every term once scores
 * `1 / (k1 + 1)` (0.45) of it; one holding only the query's commonest word, next to nothing.
 */
export function bm25Ceiling(dfs: readonly number[], n: number): number {
  let sum = 0;
  for (const df of dfs) sum += Math.max(1e-6, Math.log((n - df + 0.5) / (df + 0.5)));
  return (K1 + 1) * sum;
}

/**
 * The least score a lexical hit gets: the smallest that recall's texts show (hms-mcp's three
 * decimals, the memory tool's four), so no hit returned reads as 0. A hit holding nothing but
 * words (nearly) every memory holds scores a few millionths of the ceiling; one holding only a
 * word about half the memories hold, beside rare words it lacks, a few ten-thousandths.
 */
export const MIN_LEXICAL_SCORE = 0.001;

/**
 * A match's score: its BM25 as a share of the query's {@link bm25Ceiling}, at least
 * {@link MIN_LEXICAL_SCORE} and at most 1 (a share of 1 needs a term repeated without end, so
 * the cap only absorbs rounding and SQLite's estimated count of a very common term). Raising
 * the weakest hits to one floor never reorders hits: they come in BM25 order. Both engines
 * score with it.
 */
export function shareOfCeiling(bm25: number, ceiling: number): number {
  const share = bm25 / ceiling;
  return share > MIN_LEXICAL_SCORE ? Math.min(1, share) : MIN_LEXICAL_SCORE;
}

/**
 * How far a time range's memories are counted before a candidate step: past this many, no
 * step of at most `budget` candidates is too narrow for it ({@link tooNarrowFor}). Counting
 * reads the index on updated_at, about 45 ns a memory (90 µs for 2,000: a few percent of a
 * recall at 100,000 memories). Both engines count so.
 */
export function rangeCountCap(n: number, k: number, budget: number): number {
  return Math.max(1, Math.ceil((4 * k * n) / budget));
}

/**
 * Whether a time range holding `inRange` of the `n` memories is too narrow for a candidate
 * step of `candidates` memories: about `candidates × inRange / n` of them fall in the range,
 * and under `4 × k` would likely leave fewer than `k` hits, after which every match is scored
 * anyway. Then every match is scored at once, checked against the range's list, which also
 * gives the exact best `k`. Both engines decide so.
 */
export function tooNarrowFor(inRange: number, candidates: number, n: number, k: number): boolean {
  return inRange * candidates < 4 * k * n;
}

/** Share of the memories above which a term's BM25 IDF is at FTS5's floor, with a margin. */
export const FLOORED_SHARE = 0.6;

/**
 * The terms worth scoring. FTS5's IDF, `ln((n − df + 0.5) / (df + 0.5))`, is negative for a
 * term held by more than half the memories and bm25() floors it at 1e-6: such a term adds
 * nothing to a score, yet bm25() walks its whole list to count it. So when the query's terms
 * are over the budget, terms held by more than {@link FLOORED_SHARE} of the memories (the
 * margin absorbs the estimate of a common term's count) are dropped, unless the others are
 * held by fewer than `k` memories.
 */
export function informativeTerms<T extends { term: string; df: number }>(
  terms: readonly T[],
  n: number,
  budget: number,
  k: number,
): readonly T[] {
  const total = terms.reduce((sum, { df }) => sum + df, 0);
  if (total <= budget) return terms;
  const kept = terms.filter(({ df }) => df <= FLOORED_SHARE * n);
  const keptTotal = kept.reduce((sum, { df }) => sum + df, 0);
  return keptTotal >= k ? kept : terms;
}

/** Which memories to score: those matching `expr`, only its newest `budget` when `newest`. */
export interface CandidatePick {
  readonly expr: string;
  readonly newest: boolean;
  /** How many memories that is, about: the picked terms' counts, or `budget` when `newest`. */
  readonly count: number;
}

/**
 * The memories to score, or `undefined` to score every match (when all of them fit in
 * `budget`). Otherwise the rarest terms, OR-ed, as many as fit in the budget (at least one): a
 * memory holding none of them holds only common terms, whose IDF is low, and would rank below
 * the memories holding a rare one. When even the rarest term is over the budget (a query of
 * common words only, each IDF at most about ln(n / budget)), the memories holding the rarest
 * terms all together, as few terms as bring the expected count under the budget, and of
 * those only the newest `budget`: no choice among such weak terms is worth scoring them all.
 */
export function candidateExpression(
  terms: readonly { term: string; df: number }[],
  n: number,
  budget: number,
): CandidatePick | undefined {
  const total = terms.reduce((sum, { df }) => sum + df, 0);
  if (total <= budget) return undefined;
  const rarest = [...terms].sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1));
  const first = rarest[0] as { term: string; df: number };
  if (first.df <= budget) {
    const picked = [first.term];
    let sum = first.df;
    for (const { term, df } of rarest.slice(1)) {
      if (sum + df > budget) break;
      picked.push(term);
      sum += df;
    }
    return { expr: anyOf(picked), newest: false, count: sum };
  }
  // Expected count of memories holding all picked terms, as if terms fell independently.
  const picked: string[] = [];
  let expected = n;
  for (const { term, df } of rarest) {
    picked.push(term);
    expected *= n > 0 ? Math.min(1, df / n) : 1;
    if (expected <= budget) break;
  }
  return { expr: picked.map(quote).join(" AND "), newest: true, count: budget };
}
/**
 * The candidates to try when a time range let fewer than `k` of a rare-term pick's memories
 * through: the rarest terms until they hold at least `budget` memories (the term that crosses
 * it included). Undefined when that takes every term, or more than `4 × budget` memories:
 * then every match is scored instead, which costs about as much. Scoring these costs a few
 * times the first pick; scoring every match of a query that also holds common words costs
 * tens of times (`pnpm bench recall-by-time`). Both engines widen alike.
 */
export function widenedPick(
  terms: readonly { term: string; df: number }[],
  budget: number,
): CandidatePick | undefined {
  const rarest = [...terms].sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1));
  const picked: string[] = [];
  let sum = 0;
  for (const { term, df } of rarest) {
    picked.push(term);
    sum += df;
    if (sum >= budget) break;
  }
  if (picked.length === terms.length || sum > 4 * budget) return undefined;
  return { expr: anyOf(picked), newest: false, count: sum };
}

function quote(term: string): string {
  // A term holds only word characters, so it cannot contain a double quote.
  return `"${term}"`;
}

function anyOf(terms: readonly string[]): string {
  return terms.map(quote).join(" OR ");
}
