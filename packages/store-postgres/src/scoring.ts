/**
 * The statement that scores recall's candidates with BM25 (FTS5's k1 and b). Kept apart from
 * recall.ts so that its plan can be checked on a real database (scoring.test.ts): what recall
 * costs at scale is how many memories this statement reads.
 *
 * The candidates are found first, from the GIN index alone, in a MATERIALIZED CTE: only they
 * are then read from the table and scored. Matching every query term in the same scan as the
 * candidate step let the planner read every memory holding any term (tens of thousands at
 * 100,000 memories) and only then keep the candidates. The tsquery is a parameter, not built
 * by a subquery, so the planner sees it and estimates its matches from the column's
 * statistics.
 */
import { type Selected, timeConditions, whereOf } from "./context.js";

/** FTS5's bm25() parameters. */
const K1 = 1.2;
const B = 0.75;

/**
 * Which memories to score: those holding any (or all) of `lexemes`, the newest few if set
 * (with an id at or below `below`, if set).
 */
export interface Candidates {
  readonly lexemes: readonly string[];
  readonly all: boolean;
  readonly newest: number | undefined;
  readonly below?: number | undefined;
}

/** One scoring statement and its parameters. */
export interface Statement {
  readonly text: string;
  readonly values: unknown[];
}

/**
 * A tsquery matching any (`|`) or all (`&`) of `lexemes`, each quoted as a lexeme (a quote or
 * backslash in it escaped), so no word is parsed or stemmed again.
 */
export function lexemeQuery(lexemes: readonly string[], operator: "|" | "&"): string {
  if (lexemes.length === 0) throw new Error("a lexeme query needs at least one lexeme");
  return lexemes
    .map((lexeme) => `'${lexeme.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`)
    .join(` ${operator} `);
}

/**
 * The best `k` memories of namespace `ns` passing `filter`, with their BM25 over `terms`
 * (each with its IDF), among `candidates` (every memory holding any term when undefined).
 * Rows: `{ id, bm25 }`, best first, ties by id.
 */
export function scoreStatement(input: {
  readonly ns: number;
  readonly filter: Selected;
  readonly k: number;
  readonly avgdl: number;
  readonly terms: readonly { readonly lexeme: string; readonly idf: number }[];
  readonly candidates?: Candidates | undefined;
}): Statement {
  const { ns, filter, k, avgdl, terms, candidates } = input;
  const values: unknown[] = [ns];
  const where = whereOf(values, filter);
  const at = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const lexemes = at(terms.map(({ lexeme }) => lexeme));
  const weights = at(terms.map(({ idf }) => idf));
  const length = at(avgdl > 0 ? avgdl : 1);
  const matching =
    candidates === undefined
      ? at(
          lexemeQuery(
            terms.map(({ lexeme }) => lexeme),
            "|",
          ),
        )
      : at(lexemeQuery(candidates.lexemes, candidates.all ? "&" : "|"));
  // The newest few are taken before the filter, as the SQLite engine takes its rowid bound,
  // at and below the time range's newest memory when it has one.
  const below =
    candidates?.below === undefined ? "" : `AND c.id <= ${at(candidates.below)}::bigint`;
  const newest =
    candidates?.newest === undefined ? "" : `ORDER BY c.id DESC LIMIT ${at(candidates.newest)}`;
  // Otherwise a time range is also stated here, where the planner can read the memories in it
  // from the index on (ns, updated_at) when that is the narrower side (the probe below checks
  // it again, for the newest few).
  const inRange =
    candidates?.newest === undefined
      ? timeConditions("c", at, filter)
          .map((condition) => `AND ${condition}`)
          .join(" ")
      : "";
  const text = `
    WITH q AS (SELECT * FROM unnest(${lexemes}::text[], ${weights}::float8[]) AS q (lexeme, idf)),
    picked AS MATERIALIZED (
      SELECT c.id FROM hms_memories c
      WHERE c.ns = $1 AND c.tsv @@ ${matching}::tsquery ${inRange} ${below}
      ${newest}
    )
    SELECT m.id, sum(q.idf * (u.tf * ${K1 + 1}) /
                     (u.tf + ${K1} * (${1 - B} + ${B} * m.doc_len / ${length}::float8))) AS bm25
    FROM picked
    -- One primary-key probe per candidate: LIMIT 1 (the id is unique) keeps the planner from
    -- turning this into a join that scans the table for them.
    CROSS JOIN LATERAL (
      SELECT m.id, m.tsv, m.doc_len FROM hms_memories m
      WHERE m.id = picked.id AND ${where}
      LIMIT 1
    ) AS m
    CROSS JOIN LATERAL (
      -- Only the query's lexemes (setweight marks them, ts_filter keeps them; both in C) are
      -- unnested: a memory's whole vector would cost a row per distinct word.
      SELECT lexeme, coalesce(array_length(positions, 1), 1) AS tf
      FROM unnest(ts_filter(setweight(m.tsv, 'A', ${lexemes}::text[]), '{a}'))
    ) AS u
    JOIN q ON q.lexeme = u.lexeme
    GROUP BY m.id
    ORDER BY bm25 DESC, m.id
    LIMIT ${at(k)}`;
  return { text, values };
}
