import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "../sqlite/driver.js";
import { MemoryStore } from "../store.js";
import {
  bm25Ceiling,
  CANDIDATE_BUDGET,
  candidateExpression,
  informativeTerms,
  LexicalRanker,
  MIN_LEXICAL_SCORE,
  widenedPick,
} from "./lexical.js";

let dir: string;
let file: string;
const open: MemoryStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-lexical-"));
  file = join(dir, "store.sqlite");
});
afterEach(() => {
  for (const store of open.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A store whose lexical ranker lets BM25 score at most `budget` memories per query. */
function storeWithBudget(budget: number): MemoryStore {
  const store = MemoryStore.open(file, { ranker: (db) => new LexicalRanker(db, budget) });
  open.push(store);
  return store;
}

/**
 * Every match of `query`'s OR expression scored by FTS5 itself, best first, each BM25 divided
 * by the best one's: the reference ranking, and each hit's score relative to the top hit's.
 */
function fullBm25(expr: string, k: number): { key: string; score: number }[] {
  const db = openSqlite(file, { readOnly: true });
  try {
    const rows = db
      .prepare(
        `SELECT m.key AS key, -bm25(memories_fts) AS bm25 FROM memories_fts
         JOIN memories m ON m.id = memories_fts.rowid
         WHERE memories_fts MATCH ? ORDER BY bm25(memories_fts), memories_fts.rowid LIMIT ?`,
      )
      .all(expr, k) as { key: string; bm25: number }[];
    const best = rows[0]?.bm25 ?? 1;
    return rows.map((row) => ({ key: row.key, score: row.bm25 / best }));
  } finally {
    db.close();
  }
}

/**
 * 300 memories: all hold "meeting", every third "notes", every tenth "budget", and a few
 * "zeppelin" (rare), with lengths and repeats that make BM25 tell them apart.
 */
function fill(store: MemoryStore): void {
  const batch = [];
  for (let i = 0; i < 300; i++) {
    const words = ["meeting", `filler${i % 17}`, "agenda"];
    if (i % 3 === 0) words.push("notes", "notes".repeat(1));
    if (i % 10 === 0) words.push("budget");
    if (i % 97 === 5) words.push("zeppelin", "zeppelin");
    for (let r = 0; r < i % 5; r++) words.push(`pad${r}`);
    batch.push({ key: `/memories/n/${i}.md`, text: words.join(" "), tags: i < 20 ? ["few"] : [] });
  }
  store.rememberMany(batch);
}

describe("candidateExpression", () => {
  const terms = [
    { term: "meeting", df: 90_000 },
    { term: "zeppelin", df: 12 },
    { term: "budget", df: 600 },
    { term: "notes", df: 30_000 },
  ];

  it("scores every match when all of them fit in the budget", () => {
    expect(candidateExpression([{ term: "zeppelin", df: 12 }], 100_000, 1000)).toBeUndefined();
    expect(candidateExpression(terms.slice(1, 3), 100_000, 1000)).toBeUndefined();
  });

  it("otherwise picks the rarest terms, OR-ed, as many as fit in the budget", () => {
    expect(candidateExpression(terms, 100_000, 1000)).toEqual({
      expr: '"zeppelin" OR "budget"',
      newest: false,
      count: 612,
    });
    expect(candidateExpression(terms, 100_000, 500)).toEqual({
      expr: '"zeppelin"',
      newest: false,
      count: 12,
    });
  });

  it("for common words only, the newest memories holding the rarest ones together", () => {
    const common = [
      { term: "meeting", df: 90_000 },
      { term: "notes", df: 30_000 },
      { term: "agenda", df: 20_000 },
    ];
    // 100,000 × 0.2 × 0.3 = 6,000 > 1,000: all three.
    expect(candidateExpression(common, 100_000, 1000)).toEqual({
      expr: '"agenda" AND "notes" AND "meeting"',
      newest: true,
      count: 1000,
    });
    // 6,000 ≤ 10,000: the two rarest suffice.
    expect(candidateExpression(common, 100_000, 10_000)).toEqual({
      expr: '"agenda" AND "notes"',
      newest: true,
      count: 10_000,
    });
  });
});

describe("informativeTerms", () => {
  const terms = [
    { term: "meeting", df: 90_000 },
    { term: "notes", df: 55_000 },
    { term: "zeppelin", df: 12 },
  ];

  it("drops terms held by more than 60% of the memories, whose IDF is at the floor", () => {
    expect(informativeTerms(terms, 100_000, 1000, 10).map(({ term }) => term)).toEqual([
      "notes",
      "zeppelin",
    ]);
  });

  it("keeps every term when all fit in the budget or the others would find too few", () => {
    expect(informativeTerms(terms, 100_000, 1_000_000, 10)).toEqual(terms);
    const rareAndCommon = [terms[0], terms[2]] as { term: string; df: number }[];
    expect(informativeTerms(rareAndCommon, 100_000, 1000, 20)).toEqual(rareAndCommon);
  });
});

describe("LexicalRanker with a candidate step", () => {
  it("keeps the default budget in a range where BM25 scoring stays cheap", () => {
    expect(CANDIDATE_BUDGET).toBeGreaterThanOrEqual(100);
    expect(CANDIDATE_BUDGET).toBeLessThanOrEqual(10_000);
  });

  it("gives candidates their exact BM25 over every term, as scoring all matches would", () => {
    const store = storeWithBudget(50);
    fill(store);
    // The candidates: the 30 memories holding "budget" (the budget of 50 leaves out "notes").
    for (const query of ["budget notes agenda", "budget meeting", "budget filler3 notes"]) {
      const expr = query
        .split(" ")
        .map((term) => `"${term}"`)
        .join(" OR ");
      const hits = store.recall(query, { k: 10 }).hits;
      const reference = fullBm25(expr, 10);
      expect(hits.map((hit) => hit.key)).toEqual(reference.map((row) => row.key));
      const top = hits[0]?.score ?? Number.NaN;
      for (const [i, hit] of hits.entries()) {
        expect(hit.score / top).toBeCloseTo(reference[i]?.score ?? -1, 9);
      }
    }
  });

  it("ranks the same with and without a term held by nearly every memory", () => {
    const store = storeWithBudget(50);
    fill(store);
    // "meeting" is in all 300 memories: its IDF is FTS5's floor, 1e-6.
    const hits = store.recall("budget notes meeting", { k: 10 }).hits;
    const reference = fullBm25('"budget" OR "notes" OR "meeting"', 10);
    expect(hits.map((hit) => hit.key)).toEqual(reference.map((row) => row.key));
    const top = hits[0]?.score ?? Number.NaN;
    for (const [i, hit] of hits.entries()) {
      expect(hit.score / top).toBeCloseTo(reference[i]?.score ?? -1, 4);
    }
  });

  it("ranks a query of common words only among the newest memories that hold them all", () => {
    const store = storeWithBudget(50);
    fill(store);
    const hits = store.recall("meeting notes agenda", { k: 10 }).hits;
    expect(hits).toHaveLength(10);
    for (const hit of hits) {
      const n = Number(/(\d+)\.md$/.exec(hit.key)?.[1]);
      expect(n % 3).toBe(0); // holds "notes", so all three words
      expect(n).toBeGreaterThanOrEqual(300 - 3 * 50); // among the newest 50 holding them all
    }
  });

  it("scores every match when a filter leaves fewer candidates than asked for", () => {
    const store = storeWithBudget(50);
    fill(store);
    // The candidates are the 34 memories holding "zeppelin" or "budget"; of the 20 tagged
    // "few" (the oldest), only 3 are among them, fewer than the 10 asked for.
    const hits = store.recall("zeppelin budget meeting", { k: 10, tag: "few" }).hits;
    expect(hits).toHaveLength(10);
    expect(hits.every((hit) => Number(/(\d+)\.md$/.exec(hit.key)?.[1]) < 20)).toBe(true);
  });
});

describe("the BM25 ceiling (hybrid fusion's lexical scale)", () => {
  /** 40 memories of four words each; `extra` are stored too. */
  function store(extra: { key: string; text: string }[]): LexicalRanker {
    const s = MemoryStore.open(file);
    open.push(s);
    s.rememberMany(
      Array.from({ length: 40 }, (_, i) => ({
        key: `f/${i}`,
        text: `filler${i} padding${i % 7} words here`,
      })),
    );
    s.rememberMany(extra);
    const db = openSqlite(file);
    const ranker = new LexicalRanker(db);
    closers.push(() => db.close());
    return ranker;
  }
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });

  it("is what a memory of average length holding each term once scores, times k1 + 1", () => {
    const ranker = store([{ key: "hit", text: "zebra quagga words here" }]);
    const { hits, ceiling } = ranker.scored("zebra quagga", {}, 5);
    expect(hits).toHaveLength(1);
    // Every memory has four words, so this one is of average length: BM25 = the sum of IDFs.
    expect((hits[0]?.bm25 ?? 0) / ceiling).toBeCloseTo(1 / 2.2, 9);
  });

  it("bounds every score: a term repeated without end approaches it", () => {
    const ranker = store([
      { key: "many", text: Array(400).fill("zebra").join(" ") },
      { key: "once", text: "zebra words here now" },
    ]);
    const { hits, ceiling } = ranker.scored("zebra", {}, 5);
    const shares = hits.map((hit) => hit.bm25 / ceiling);
    expect(shares[0]).toBeGreaterThan(0.9);
    for (const share of shares) expect(share).toBeLessThan(1);
  });

  it("counts a query term no memory holds, so a memory matching part of the query scores part", () => {
    const ranker = store([{ key: "hit", text: "zebra quagga words here" }]);
    const whole = ranker.scored("zebra", {}, 5);
    const part = ranker.scored("zebra okapi", {}, 5);
    const share = (r: typeof whole) => (r.hits[0]?.bm25 ?? 0) / r.ceiling;
    expect(share(whole)).toBeCloseTo(1 / 2.2, 2);
    expect(share(part)).toBeLessThan(share(whole) * 0.6);
    expect(bm25Ceiling([0], 41)).toBeCloseTo(2.2 * Math.log(41.5 / 0.5), 9);
  });
});

describe("lexical scores (a hit's share of the query's BM25 ceiling)", () => {
  /** 50 memories that all hold "meeting", and `extra`. */
  function storeOf(extra: { key: string; text: string }[], path = file): MemoryStore {
    const s = MemoryStore.open(path);
    open.push(s);
    s.rememberMany(
      Array.from({ length: 50 }, (_, i) => ({
        key: `/memories/m/${i}.md`,
        text: `meeting ${i} about filler${i} and padding${i % 7}`,
      })),
    );
    s.rememberMany(extra);
    return s;
  }

  it("are low when the query matches only a word most memories hold, high for a rare-term match", () => {
    const store = storeOf([
      { key: "/memories/zeppelin.md", text: "zeppelin hangar meeting notes" },
    ]);
    // Only "meeting" matches: held by every memory, its IDF is FTS5's floor.
    const weak = store.recall("meeting quokka", { k: 5 }).hits;
    expect(weak.length).toBe(5);
    expect(weak[0]?.score).toBeLessThan(0.2);
    for (const hit of weak) expect(hit.score).toBe(MIN_LEXICAL_SCORE);
    // Every rare query term held once by a memory of about average length: about 1 / (k1 + 1).
    const strong = store.recall("zeppelin hangar", { k: 5 }).hits;
    expect(strong[0]?.key).toBe("/memories/zeppelin.md");
    expect(strong[0]?.score).toBeGreaterThan(0.4);
    expect(strong[0]?.score).toBeLessThan(1);
  });

  it("give a hit the same score whichever hit is best, the corpus statistics being equal", () => {
    // In both stores "acme" and "zeppelin" are held by two memories each, of four words each.
    const target = { key: "/memories/t.md", text: "acme words here now" };
    const scoreOfTarget = (name: string, others: { key: string; text: string }[]) => {
      const store = storeOf([target, ...others], join(dir, name));
      const hits = store.recall("acme zeppelin", {}).hits;
      expect(hits[0]?.key).not.toBe(target.key);
      return hits.find((hit) => hit.key === target.key)?.score;
    };
    const besideBoth = scoreOfTarget("both.sqlite", [
      { key: "/memories/a.md", text: "acme zeppelin words here" },
      { key: "/memories/z.md", text: "zeppelin words here now" },
      { key: "/memories/x.md", text: "plain words here now" },
    ]);
    const besideRepeat = scoreOfTarget("repeat.sqlite", [
      { key: "/memories/a.md", text: "acme other words here" },
      { key: "/memories/z.md", text: "zeppelin zeppelin words here" },
      { key: "/memories/x.md", text: "zeppelin plain words here" },
    ]);
    expect(besideBoth).toBeGreaterThan(0);
    expect(besideRepeat).toBe(besideBoth);
  });
});

describe("widenedPick", () => {
  const terms = [
    { term: "meeting", df: 90_000 },
    { term: "zeppelin", df: 12 },
    { term: "budget", df: 1_500 },
    { term: "notes", df: 30_000 },
  ];

  it("takes the rarest terms until they hold the budget, the crossing term included", () => {
    // The first pick was "zeppelin" alone (12); with "budget" they hold 1,512.
    expect(widenedPick(terms, 1000)).toEqual({
      expr: '"zeppelin" OR "budget"',
      newest: false,
      count: 1512,
    });
  });

  it("gives up when that is every term, or more than 4 × the budget", () => {
    expect(widenedPick(terms.slice(1, 3), 1000)).toBeUndefined();
    expect(widenedPick(terms, 300)).toBeUndefined();
  });
});
