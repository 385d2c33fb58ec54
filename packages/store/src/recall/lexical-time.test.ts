/**
 * Recall by time on the SQLite ranker, around each point where the plan changes: a filtered
 * recall finds what filtering the unfiltered candidates finds, computed here by brute force
 * from FTS5's own BM25 of every match, on both sides of each switch.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "../sqlite/driver.js";
import { MemoryStore } from "../store.js";
import type { MemoryRecord, RecallOptions } from "../types.js";
import { bm25Ceiling, LexicalRanker, shareOfCeiling } from "./lexical.js";

let dir: string;
let file: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-lexical-time-"));
  file = join(dir, "store.sqlite");
});
afterEach(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const K = 5;
/** The ranker's budget: candidates are the memories holding "rook" (31 of them). */
const BUDGET = 40;
const MEMORIES = 400;

/** One memory of the corpus: its words and its last change. */
interface Memory {
  readonly key: string;
  readonly words: readonly string[];
  readonly updated_at: string;
}

function minute(minutes: number): string {
  return new Date(Date.UTC(2026, 0, 1) + minutes * 60_000).toISOString();
}

/**
 * 400 memories written a minute apart; one in nine edited again after the last was written
 * (so a range of recent changes holds old ids too). "rook" (31 memories) is the rare term,
 * "moth" (57) the next, "clay" (150) a common one whose IDF is not at the floor. Memories
 * holding "rook" are long, and every 50th memory is a short one repeating "moth" and "clay"
 * without "rook": it outscores most "rook" memories, so scoring every match in a range would
 * find it where the candidate step (the "rook" memories) does not.
 */
function corpus(): Memory[] {
  const memories: Memory[] = [];
  for (let i = 0; i < MEMORIES; i++) {
    const words: string[] = [`w${i % 5}`, `v${i % 11}`];
    if (i % 50 === 25) {
      words.push("moth", "moth", "moth", "clay", "clay");
    } else {
      if (i % 13 === 0) words.push("rook", ...Array.from({ length: 14 }, (_, p) => `pad${p}`));
      if (i % 7 === 1) words.push("moth");
      if (i % 8 < 3) words.push("clay");
    }
    const edited = i % 9 === 4;
    memories.push({
      key: `m/${String(i).padStart(3, "0")}`,
      words,
      updated_at: minute(edited ? MEMORIES + i : i),
    });
  }
  return memories;
}

function load(memories: readonly Memory[]): void {
  store = MemoryStore.open(file, { ranker: (db) => new LexicalRanker(db, BUDGET) });
  store.load(
    memories.map(
      (memory): MemoryRecord => ({
        key: memory.key,
        text: memory.words.join(" "),
        tags: [],
        metadata: {},
        version: 1,
        hash: "",
        bytes: 0,
        created_at: memory.updated_at,
        updated_at: memory.updated_at,
      }),
    ),
  );
}

/** FTS5's BM25 (higher is better) of every memory matching any of `terms`, by key. */
function everyMatch(terms: readonly string[]): Map<string, number> {
  const db = openSqlite(file, { readOnly: true });
  try {
    const rows = db
      .prepare(
        `SELECT m.key AS key, -bm25(memories_fts) AS bm25 FROM memories_fts
         JOIN memories m ON m.id = memories_fts.rowid WHERE memories_fts MATCH ?`,
      )
      .all(terms.map((term) => `"${term}"`).join(" OR ")) as { key: string; bm25: number }[];
    return new Map(rows.map((row) => [row.key, row.bm25]));
  } finally {
    db.close();
  }
}

/**
 * What a filtered recall finds, by brute force: each set of candidates in turn (the rare
 * term's memories, the widened pick's, every match), filtered by the range, until one holds
 * `k`; the best `k` of it by BM25 (ties by key, which follows the row order here), with the
 * score a hit gets.
 */
function bruteForce(
  memories: readonly Memory[],
  terms: readonly string[],
  steps: readonly (readonly string[])[],
  range: { after?: string; before?: string },
): { key: string; score: number }[] {
  const scores = everyMatch(terms);
  const dfs = terms.map((term) => memories.filter((m) => m.words.includes(term)).length);
  const ceiling = bm25Ceiling(dfs, memories.length);
  const inRange = (m: Memory) =>
    (range.after === undefined || m.updated_at >= range.after) &&
    (range.before === undefined || m.updated_at < range.before);
  let found: Memory[] = [];
  for (const step of [...steps, terms]) {
    found = memories.filter((m) => inRange(m) && step.some((term) => m.words.includes(term)));
    if (found.length >= K) break;
  }
  return found
    .map((m) => ({ key: m.key, bm25: scores.get(m.key) ?? Number.NaN }))
    .sort((a, b) => b.bm25 - a.bm25 || (a.key < b.key ? -1 : 1))
    .slice(0, K)
    .map(({ key, bm25 }) => ({ key, score: shareOfCeiling(bm25, ceiling) }));
}

function recalled(query: string, range: RecallOptions): { key: string; score: number }[] {
  return store.recall(query, { k: K, ...range }).hits.map(({ key, score }) => ({ key, score }));
}

function expectSame(
  actual: { key: string; score: number }[],
  expected: { key: string; score: number }[],
): void {
  expect(actual.map((hit) => hit.key)).toEqual(expected.map((hit) => hit.key));
  for (const [i, hit] of actual.entries()) {
    // The candidate step takes the candidate terms' own BM25 off a sum: equal but for rounding.
    expect(hit.score).toBeCloseTo(expected[i]?.score ?? Number.NaN, 12);
  }
}

/** The range holding the `count` memories changed first. */
function oldest(memories: readonly Memory[], count: number): { before: string } {
  const times = memories.map((m) => m.updated_at).sort();
  return { before: times[count] as string };
}

/** The smallest count of oldest memories whose range holds `k` memories with one of `terms`. */
function firstHolding(memories: readonly Memory[], terms: readonly string[]): number {
  const sorted = [...memories].sort((a, b) => (a.updated_at < b.updated_at ? -1 : 1));
  let seen = 0;
  for (const [i, m] of sorted.entries()) {
    if (terms.some((term) => m.words.includes(term))) seen++;
    if (seen === K) return i + 1;
  }
  throw new Error(`fewer than ${K} memories hold ${terms.join(" or ")}`);
}

describe("recall by time, on either side of each switch of plan", () => {
  const query = "rook moth clay";
  const terms = ["rook", "moth", "clay"];
  const steps = [["rook"], ["rook", "moth"]];

  it("finds the range's share of the unfiltered candidates, however narrow the range", () => {
    const memories = corpus();
    load(memories);
    // The short "moth clay" memories outscore most "rook" ones: scoring every match in a
    // range would rank them first, the candidate step does not.
    const unfiltered = recalled(query, {});
    expect(
      unfiltered.every((hit) => memories.find((m) => m.key === hit.key)?.words.includes("rook")),
    ).toBe(true);
    const every = [...everyMatch(terms)].sort((a, b) => b[1] - a[1]);
    expect(every[0]?.[0]).toBe("m/025");
    // Ranges of 199 and 200 memories were a switch: under 200, every match in range was
    // scored (4 × k × n / budget), at 200 the candidates.
    for (const count of [20, 60, 199, 200, 201, MEMORIES]) {
      const range = oldest(memories, count);
      expectSame(
        recalled(query, { modifiedBefore: range.before }),
        bruteForce(memories, terms, steps, range),
      );
    }
  });

  it("goes on to the widened pick when k - 1 candidates are in range, not when k are", () => {
    const memories = corpus();
    load(memories);
    const atK = firstHolding(memories, ["rook"]);
    for (const count of [atK - 1, atK]) {
      const range = oldest(memories, count);
      const hits = recalled(query, { modifiedBefore: range.before });
      expectSame(hits, bruteForce(memories, terms, steps, range));
      const rooks = hits.filter((hit) =>
        memories.find((m) => m.key === hit.key)?.words.includes("rook"),
      );
      // k in range: the rare term's memories alone; one fewer: the widened pick's too.
      if (count === atK) expect(rooks).toHaveLength(K);
      else expect(rooks.length).toBeLessThan(K);
    }
  });

  it("scores every match when the widened pick has k - 1 in range, not when it has k", () => {
    const memories = corpus();
    load(memories);
    // A range of the latest changes: the edited memories, old ids among new ones.
    const times = memories.map((m) => m.updated_at).sort();
    const sorted = [...memories].sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1));
    let seen = 0;
    let atK = 0;
    for (const [i, m] of sorted.entries()) {
      if (m.words.includes("rook") || m.words.includes("moth")) seen++;
      if (seen === K) {
        atK = i + 1;
        break;
      }
    }
    for (const count of [atK - 1, atK]) {
      const range = { after: times[MEMORIES - count] as string };
      expectSame(
        recalled(query, { modifiedAfter: range.after }),
        bruteForce(memories, terms, steps, range),
      );
    }
  });

  it("checks the range against its list under 1.5 memories per match, and looks it up above", () => {
    const memories = corpus();
    load(memories);
    // "rook" alone: 31 matches, no candidate step, so every match is scored; the range's list
    // is read below 47 memories (1.5 × 31), each match looked up from 47 on.
    for (const count of [5, 46, 47, 48, 300]) {
      const range = oldest(memories, count);
      expectSame(
        recalled("rook", { modifiedBefore: range.before }),
        bruteForce(memories, ["rook"], [], range),
      );
    }
    // A range with no memory at all, and one with memories but no match.
    expect(recalled(query, { modifiedAfter: minute(10_000) })).toEqual([]);
    expect(recalled("rook", { modifiedAfter: minute(1), modifiedBefore: minute(13) })).toEqual([]);
  });

  it("reads the time of a candidate from the index of ids and times, not the memory's row", () => {
    load(corpus());
    const db = openSqlite(file, { readOnly: true });
    try {
      const plan = db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT 1 FROM memories INDEXED BY memories_by_id_updated_at
           WHERE id = ? AND updated_at >= ? AND updated_at < ?`,
        )
        .all(1, "a", "b") as { detail: string }[];
      expect(plan.map((step) => step.detail).join("\n")).toMatch(
        /USING COVERING INDEX memories_by_id_updated_at \(id=\? AND updated_at>\? AND updated_at<\?\)/,
      );
    } finally {
      db.close();
    }
  });
});
