import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite, type SqliteDatabase } from "../sqlite/driver.js";
import { MemoryStore } from "../store.js";
import { MATCH_CLOSE as C, MATCH_OPEN as O } from "./excerpt.js";
import { Highlighter } from "./highlight.js";
import { COUNT_CAP, documentCount } from "./rarity.js";

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-highlight-"));
  file = join(dir, "store.sqlite");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `body` with a Highlighter on the store file, after `fill` wrote to it. */
function withHighlighter<T>(
  fill: (store: MemoryStore) => void,
  body: (h: Highlighter, db: SqliteDatabase) => T,
): T {
  const store = MemoryStore.open(file);
  try {
    fill(store);
  } finally {
    store.close();
  }
  const db = openSqlite(file, { readOnly: true });
  try {
    return body(new Highlighter(db), db);
  } finally {
    db.close();
  }
}

describe("Highlighter", () => {
  it("marks each term on its own, stemmed forms included", () => {
    withHighlighter(
      (store) => {
        store.remember({ key: "a", text: "I painted it\nCaroline's sunrise\nwe paint" });
        store.remember({ key: "b", text: "nothing here" });
      },
      (highlighter, db) => {
        const { id } = db.prepare("SELECT id FROM memories WHERE key = 'a'").get() as {
          id: number;
        };
        expect(highlighter.highlight(id, ["paint", "sunrise", "zebra"])).toEqual([
          `I ${O}painted${C} it\nCaroline's sunrise\nwe ${O}paint${C}`,
          `I painted it\nCaroline's ${O}sunrise${C}\nwe paint`,
          undefined,
        ]);
        expect(highlighter.highlight(id, [])).toEqual([]);
      },
    );
  });

  it("weighs a term by its rarity in the store (BM25's IDF)", () => {
    withHighlighter(
      (store) => {
        for (let i = 0; i < 9; i++) store.remember({ key: `k${i}`, text: `common words ${i}` });
        store.remember({ key: "rare", text: "common and rare" });
      },
      (highlighter) => {
        const [common, rare, absent] = highlighter.weights(["common", "rare", "zebra"]);
        const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
        expect(common).toBeCloseTo(idf(10, 10), 10);
        expect(rare).toBeCloseTo(idf(10, 1), 10);
        expect(absent).toBeCloseTo(idf(10, 0), 10);
        expect(rare).toBeGreaterThan(20 * (common as number));
      },
    );
  });

  it("estimates the count of a term held by more than COUNT_CAP memories", () => {
    const n = 3 * COUNT_CAP;
    withHighlighter(
      (store) => {
        store.rememberMany(
          Array.from({ length: n }, (_, i) => ({
            key: `k${i}`,
            text: `every ${i % 2 === 0 ? "even" : "odd"}${i % 300 === 0 ? " rare" : ""}`,
          })),
        );
      },
      (highlighter) => {
        const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const [every, even, rare] = highlighter.weights(["every", "even", "rare"]);
        // Held by all, by half (both past the cap: estimated), by ten (counted).
        expect(every).toBeCloseTo(idf(n), 2);
        expect(even).toBeCloseTo(idf(n / 2), 2);
        expect(rare).toBeCloseTo(idf(10), 10);
      },
    );
  });

  it("reads the number of indexed memories from FTS5, after writes and deletes", () => {
    withHighlighter(
      (store) => {
        for (let i = 0; i < 60; i++) store.remember({ key: `k${i}`, text: `text ${i}` });
        for (let i = 0; i < 60; i += 3) store.forget(`k${i}`);
        store.remember({ key: "k1", text: "changed" });
      },
      (_, db) => {
        const row = db.prepare("SELECT block FROM memories_fts_data WHERE id = 1").get();
        expect(documentCount((row as { block: Uint8Array }).block)).toBe(40);
      },
    );
    // Varints of one to nine bytes, as SQLite writes them.
    expect(documentCount(Buffer.from([0x05]))).toBe(5);
    expect(documentCount(Buffer.from([0x81, 0x00]))).toBe(128);
    expect(documentCount(Buffer.from([0x82, 0xac, 0x20, 0x07]))).toBe(38432);
    expect(documentCount(undefined)).toBe(0);
  });
});
