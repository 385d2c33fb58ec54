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
  readonly #candidates: { probe: SqliteStatement; list: SqliteStatement };
  readonly #part: SqliteStatement;
  readonly #partOf: SqliteStatement;
  readonly #newest: SqliteStatement;
  readonly #rangeTop: SqliteStatement;
  readonly #enough: { probe: SqliteStatement; list: SqliteStatement };
  readonly #budget: number;

  /** `budget` is for benchmarks and tests that weigh it; recall uses {@link CANDIDATE_BUDGET}. */
  constructor(db: SqliteDatabase, budget = CANDIDATE_BUDGET) {
    this.#budget = budget;
    this.#rarity = new TermRarity(db);
    // bm25() is lower-is-better; the score is its negation. Filters are correlated EXISTS
    // lookups per match, which measured faster than joining the memories table; `rowid IN
    // (...)` would even drive FTS5 one row at a time, recounting each term's matches for
    // bm25() at every row. The time filter is such a lookup ({@link PROBE}), in an index of
    // ids and times small enough to stay cached, or a list ({@link LISTED}, `+rowid IN`: the
    // `+` keeps FTS5 driving): SQLite reads the memories in the range once, from the index on
    // updated_at, into a list it checks each match against (with a Bloom filter), which is
    // cheaper than a lookup per match when the range holds few memories per match
    // ({@link LIST_PER_MATCH}). An absent bound is bound as the text below or above every
    // time (EARLIEST, LATEST), and @after is NULL when there is no time filter.
    // The time filter comes first: SQLite checks a match against the filters in this order
    // and stops at the first that fails, and bm25() is computed only for the matches that
    // pass all of them.
    const filters = (time: "probe" | "list") => `
        AND (@after IS NULL OR ${time === "probe" ? PROBE : LISTED})
        AND (@tag IS NULL OR EXISTS (
          SELECT 1 FROM memory_tags WHERE tag = @tag AND memory_id = memories_fts.rowid))
        AND (@lo IS NULL OR EXISTS (
          SELECT 1 FROM memories WHERE id = memories_fts.rowid
            AND key >= @lo AND (@hi IS NULL OR key < @hi)))`;
    // Each reads [id, bm25] pairs, as arrays: thousands of rows per recall at scale. FTS5
    // takes a rowid range as a seek in its lists, so `rowid >= @from AND rowid <= @to` is
    // cheap, and skips what lies outside.
    const rank = (time: "probe" | "list") =>
      db.prepare(`
      SELECT rowid AS id, -bm25(memories_fts) AS bm25 FROM memories_fts
      WHERE memories_fts MATCH @expr AND rowid >= @from AND rowid <= @to ${filters(time)}
      ORDER BY bm25(memories_fts), rowid
      LIMIT @k`);
    this.#rank = rank("probe");
    this.#rankListing = rank("list");
    // How many memories a time range holds (up to @cap), and their lowest and highest id: all
    // read from the index on updated_at.
    this.#inTimeRange = db.prepare(`
      SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM (SELECT id FROM memories
        WHERE updated_at >= @after AND updated_at < @before LIMIT @cap)`);
    const candidates = (time: "probe" | "list") =>
      db.prepare(`
      SELECT rowid AS id, -bm25(memories_fts) AS bm25 FROM memories_fts
      WHERE memories_fts MATCH @expr AND rowid >= @from AND rowid <= @to ${filters(time)}`);
    this.#candidates = { probe: candidates("probe"), list: candidates("list") };
    this.#part = db.prepare(`
      SELECT rowid AS id, -bm25(memories_fts) AS bm25 FROM memories_fts
      WHERE memories_fts MATCH @expr AND rowid >= @from AND rowid <= @to`);
    // The same for the candidates that passed a filter only (a JSON array of their ids).
    this.#partOf = db.prepare(`
      SELECT rowid AS id, -bm25(memories_fts) AS bm25 FROM memories_fts
      WHERE memories_fts MATCH @expr AND rowid >= @from AND rowid <= @to
        AND +rowid IN (SELECT value FROM json_each(@ids))`);
    for (const statement of [
      this.#rank,
      this.#rankListing,
      this.#candidates.probe,
      this.#candidates.list,
      this.#part,
      this.#partOf,
    ]) {
      statement.setReturnArrays(true);
    }
    // Walking a list newest first without scoring costs little.
    this.#newest = db.prepare(`
      SELECT rowid AS id FROM memories_fts WHERE memories_fts MATCH @expr AND rowid <= @to
      ORDER BY rowid DESC LIMIT 1 OFFSET @offset`);
    // Whether at least @k candidates pass the filters, found without scoring: with no bm25(),
    // FTS5 walks only the candidates' own lists, and stops at the k-th that passes.
    const enough = (time: "probe" | "list") =>
      db.prepare(`
      SELECT count(*) AS n FROM (SELECT 1 FROM memories_fts
        WHERE memories_fts MATCH @expr AND rowid >= @from AND rowid <= @to ${filters(time)}
        LIMIT @k)`);
    this.#enough = { probe: enough("probe"), list: enough("list") };
    // The newest memory of a time range: the highest id among the RANGE_TOP it changed last,
    // read from the end of the index on updated_at (which holds the ids).
    this.#rangeTop = db.prepare(`
      SELECT max(id) AS id FROM (SELECT id FROM memories
        WHERE updated_at >= @after AND updated_at < @before
        ORDER BY updated_at DESC, id DESC LIMIT ${RANGE_TOP})`);
  }

  rank(query: string, filter: RecallFilter, k: number): RankedId[] {
    const { hits, ceiling } = this.scored(query, filter, k);
    return hits.map(({ id, bm25 }) => ({ id, score: shareOfCeiling(bm25, ceiling) }));
  }

  /**
   * The best `k` matches with their raw BM25, and the query's ceiling: the most BM25 any memory
   * could score for it ({@link bm25Ceiling}), so `bm25 / ceiling` is in (0, 1) and means the
   * same whatever the other hits are (hybrid fusion uses it).
   *
   * Filters apply in the candidate step's own scan, and recall goes on to a wider set only
   * when fewer than `k` candidates pass them: with a time range, a rare-term pick's memories
   * in range, else the widened pick's ({@link widenedPick}), else every match. A common-word
   * pick takes the newest `budget` matches at or below the range's newest memory
   * ({@link RANGE_TOP}). How a range is checked (a list or lookups) never changes the hits.
   */
  scored(query: string, filter: RecallFilter, k: number): ScoredMatches {
    const terms = queryTerms(query);
    if (terms.length === 0) return { hits: [], ceiling: 0 };
    const n = this.#rarity.documents();
    const frequencies = this.#rarity.frequencies(terms);
    const ceiling = bm25Ceiling(
      frequencies.map((f) => f.df),
      n,
    );
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
    const picked = candidateExpression(weighed, n, budget);
    // Once a step has found too few in a time range, the range is counted (up to what the
    // next step needs to know), to choose how the next ones check it.
    let counted: RangeCount | undefined;
    const range = (cap: number): RangeCount => {
      if (counted === undefined || (counted.n >= counted.cap && cap > counted.cap)) {
        counted = this.#countInRange(bind, cap);
      }
      return counted;
    };
    let ranked: { id: number; bm25: number }[] = [];
    if (picked !== undefined) {
      ranked = this.#step(all, picked, bind, k, budget, undefined);
      // A time range let too few of the rarest terms' memories through: more of them first.
      if (timed && !picked.newest && ranked.length < k) {
        const widened = widenedPick(weighed, budget);
        if (widened !== undefined) {
          const cap = Math.ceil(LIST_PER_MATCH * widened.count);
          const listed = range(cap);
          if (listed.n === 0) return { hits: [], ceiling };
          ranked = this.#step(all, widened, bind, k, budget, listed.n < cap ? listed : undefined);
        }
      }
    }
    // No candidate step, or a filter left fewer candidates than asked for while other
    // matches may pass it: every match is scored.
    if (picked === undefined || ranked.length < k) {
      ranked = this.#scoreAll(all, sumOf(weighed), bind, k, range);
    }
    // Still too few (a filter again): the dropped terms' matches count too.
    if (ranked.length < k && weighed.length < terms.length) {
      ranked = this.#scoreAll(anyOf(terms), sumOf(frequencies), bind, k, range);
    }
    return { hits: ranked, ceiling };
  }

  /**
   * A candidate step: the best `k` of `pick`'s memories that pass the filter in `bind`, each
   * scored over every term of `all`. With a time range, a common-word pick's newest `budget`
   * are taken at and below the range's newest memory ({@link RANGE_TOP}) rather than the
   * store's, and fewer than `k` passing returns nothing (the caller then scores a wider set).
   * The range is checked against its list, within its ids, when `listed` (counted whole, and
   * small for the step), else by a lookup per candidate.
   */
  #step(
    all: string,
    pick: CandidatePick,
    bind: Bind,
    k: number,
    budget: number,
    listed: RangeCount | undefined,
  ): { id: number; bm25: number }[] {
    let to = LAST_ROWID;
    if (bind.after !== null && pick.newest) {
      const top = (this.#rangeTop.get(times(bind)) as { id: number | null }).id;
      if (top === null) return [];
      to = top;
    }
    let from = pick.newest ? (this.#newestId(pick.expr, budget - 1, to) ?? 0) : 0;
    const time = listed === undefined ? "probe" : "list";
    if (listed !== undefined) {
      from = Math.max(from, listed.lo);
      to = Math.min(to, listed.hi);
    }
    const bounds = { ...bind, from, to };
    if (bind.after !== null) {
      // A narrow range lets fewer than k through: known before bm25() counts every term's
      // matches (which it does first, for the IDFs), and skipped.
      const { n } = this.#enough[time].get({
        expr: pick.expr,
        ...bind,
        ...rowids(bounds),
        k,
      }) as { n: number };
      if (n < k) return [];
    }
    return this.#scoreCandidates(all, pick.expr, bounds, time).slice(0, k);
  }

  /** The rowid of the `offset + 1`-th newest match of `expr` at or below `to`, if any. */
  #newestId(expr: string, offset: number, to: number): number | undefined {
    const row = this.#newest.get({ expr, offset, to: BigInt(to) }) as { id: number } | undefined;
    return row?.id;
  }

  /**
   * The best `k` of every memory matching `expr` (about `matches` of them) that passes the
   * filter in `bind`. A time range is checked against its list, within its lowest and highest
   * id, when it holds fewer than {@link LIST_PER_MATCH} memories per match (`range`, counted
   * up to a cap), and otherwise by a lookup per match.
   */
  #scoreAll(
    expr: string,
    matches: number,
    bind: Bind,
    k: number,
    range: (cap: number) => RangeCount,
  ): { id: number; bm25: number }[] {
    let statement = this.#rank;
    let bounds = { from: 0, to: LAST_ROWID };
    if (bind.after !== null) {
      // An estimated count of matches is not a whole number (rarity.ts).
      const cap = Math.ceil(LIST_PER_MATCH * matches);
      const counted = range(cap);
      if (counted.n === 0) return [];
      if (counted.n < cap) {
        statement = this.#rankListing;
        bounds = { from: counted.lo, to: counted.hi };
      }
    }
    return scoresOf(statement.all({ expr, ...bind, ...rowids(bounds), k }));
  }

  /**
   * How many memories the time range in `bind` holds, counted up to `cap`, and the lowest and
   * highest id among those counted (all of them when `n` is under the cap).
   */
  #countInRange(bind: Bind, cap: number): RangeCount {
    const row = this.#inTimeRange.get({ after: bind.after, before: bind.before, cap }) as {
      n: number;
      lo: number | null;
      hi: number | null;
    };
    return { n: row.n, cap, lo: row.lo ?? 0, hi: row.hi ?? 0 };
  }

  /**
   * Every memory matching `candidates` (with a rowid in `from`..`to`) that passes the filter
   * in `bind`, best first, each with its BM25 over every term of `all`. FTS5 scores one MATCH
   * expression, so the candidates are matched as `(all) AND (candidates)`, whose BM25 counts
   * the candidate terms twice, and the candidate terms' own BM25 (the same per-term IDFs and
   * lengths) is taken off again: for every candidate, or for those that passed a filter. A
   * time range is checked as `time` says (see the constructor).
   */
  #scoreCandidates(
    all: string,
    candidates: string,
    bind: Bind & { from: number; to: number },
    time: "probe" | "list",
  ): { id: number; bm25: number }[] {
    const bounds = rowids(bind);
    const both = this.#candidates[time].all({
      expr: `(${all}) AND (${candidates})`,
      ...bind,
      ...bounds,
    }) as [id: number, bm25: number][];
    if (both.length === 0) return [];
    const filtered = bind.after !== null || bind.tag !== null || bind.lo !== null;
    const part = (
      filtered
        ? this.#partOf.all({
            expr: candidates,
            ...bounds,
            ids: JSON.stringify(both.map(([id]) => id)),
          })
        : this.#part.all({ expr: candidates, ...bounds })
    ) as [number, number][];
    const twice = new Map<number, number>(part);
    return both
      .map(([id, bm25]) => ({ id, bm25: bm25 - (twice.get(id) ?? 0) }))
      .sort((a, b) => b.bm25 - a.bm25 || a.id - b.id);
  }
}

/**
 * The memories read through the index on (id, updated_at) (schema 10): looked up by id in the
 * table itself, each lookup would read a page of texts.
 */
export const BY_ID_AND_TIME = "memories INDEXED BY memories_by_id_updated_at";

/**
 * The time test as a lookup per match in the index of ids and times: about 0.2 µs a match at
 * 100,000 memories (the memory's own row cost 1.5 µs, and recall's other reads push those
 * pages out of the cache), less than bm25() of a match it turns away.
 */
const PROBE = `EXISTS (SELECT 1 FROM ${BY_ID_AND_TIME} WHERE id = memories_fts.rowid
                 AND updated_at >= @after AND updated_at < @before)`;
/** The time test against the range's list, read once from the index on updated_at. */
const LISTED = `+rowid IN (SELECT id FROM memories
                 WHERE updated_at >= @after AND updated_at < @before)`;

/**
 * Memories of a time range per match below which every match is checked against the range's
 * list rather than looked up: SQLite reads a memory into the list in about 0.12 µs and checks
 * a match against it in 0.04 µs, where a lookup costs about 0.2 µs (100,000 memories).
 */
const LIST_PER_MATCH = 1.5;

/** Above every rowid a store hands out. */
const LAST_ROWID = Number.MAX_SAFE_INTEGER;

/**
 * How many of a time range's last changes name its newest memory: the highest id among them
 * tops the rowids a common-word pick takes its newest `budget` from. The highest id of the
 * whole range would need the whole range read; the last few changes are read from the end of
 * the index on updated_at, and hold the newest memory in range unless that many older ones
 * were edited after it.
 */
export const RANGE_TOP = 64;

/**
 * What a time filter binds for an absent bound: text below, and above, every `updated_at` (ISO
 * 8601 from toISOString: a digit first, or a sign for a year beyond 0000-9999).
 */
const EARLIEST = "";
const LATEST = "~";

/**
 * A time range's memories, counted up to `cap`: how many, and the lowest and highest id among
 * them (of the whole range when `n` is under the cap).
 */
interface RangeCount {
  readonly n: number;
  readonly cap: number;
  readonly lo: number;
  readonly hi: number;
}

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

/** The time range's bounds of `bind` (with a time filter). */
function times(bind: Bind): { after: string | null; before: string } {
  return { after: bind.after, before: bind.before };
}

/** A step's rowid bounds, as BigInts: one bound as a REAL, FTS5 would not seek with it. */
function rowids(bounds: { from: number; to: number }): { from: bigint; to: bigint } {
  return { from: BigInt(bounds.from), to: BigInt(bounds.to) };
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
