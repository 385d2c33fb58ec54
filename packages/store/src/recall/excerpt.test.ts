import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../store.js";
import {
  MATCH_CLOSE as C,
  EXCERPT_CHARS,
  EXCERPT_LINES,
  excerptOf,
  MATCH_OPEN as O,
  RANGE_CHARS,
  RANGE_LINES,
  type TermMatch,
} from "./excerpt.js";
import { excerptTerms } from "./query.js";

/** The highlight of one term (a whole word, any case) in `text`, weighing `weight`. */
function term(text: string, word: string, weight = 1): TermMatch {
  const pattern = new RegExp(`\\b(${word})\\b`, "gi");
  return {
    highlighted: pattern.test(text) ? text.replace(pattern, `${O}$1${C}`) : undefined,
    weight,
  };
}

describe("excerptOf", () => {
  it("centres on the line with the most distinct matched terms", () => {
    const lines = Array.from({ length: 40 }, (_, i) => `filler line ${i + 1}`);
    lines[29] = "the cat and the dog";
    lines[9] = "only a cat";
    const text = lines.join("\n");
    const excerpt = excerptOf(text, [term(text, "cat"), term(text, "dog")]);
    expect(excerpt.line_start).toBeLessThanOrEqual(30);
    expect(excerpt.line_end).toBeGreaterThanOrEqual(30);
    expect(excerpt.excerpt).toBe(lines.slice(excerpt.line_start - 1, excerpt.line_end).join("\n"));
    expect(excerpt.excerpt.length).toBeLessThanOrEqual(EXCERPT_CHARS);
  });

  it("starts at the first non-blank line when nothing matched", () => {
    expect(excerptOf("\n\nhello\nworld", [])).toEqual({
      excerpt: "hello\nworld",
      line_start: 3,
      line_end: 4,
    });
  });

  it("cuts a long line around its match and keeps the line range", () => {
    const text = `intro\n${"word ".repeat(200)}target ${"word ".repeat(200)}`;
    const excerpt = excerptOf(text, [term(text, "target")]);
    expect(excerpt).toMatchObject({ line_start: 2, line_end: 2 });
    expect(excerpt.excerpt).toContain("target");
    expect(excerpt.excerpt.length).toBeLessThanOrEqual(EXCERPT_CHARS + 2);
    expect(text).toContain(excerpt.excerpt);
  });

  it("cuts a long line around its heaviest term, not its first", () => {
    const text = `common ${"word ".repeat(200)}rare ${"word ".repeat(200)}`;
    const excerpt = excerptOf(text, [term(text, "common", 0.1), term(text, "rare", 3)]);
    expect(excerpt.excerpt).toContain("rare");
    expect(excerpt.excerpt).not.toContain("common");
  });

  it("ignores marks on a line whose own text contains the mark characters", () => {
    const text = `plain\nhas ${O} in it\nmatch here`;
    const highlighted = `plain\nhas ${O} in it\n${O}match${C} here`;
    expect(excerptOf(text, [{ highlighted, weight: 1 }]).excerpt).toContain("match here");
  });

  it("weighs terms: one rare term outweighs two common ones", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `filler line number ${i + 1} of the notes`);
    lines[4] = "Melanie talked about painting again";
    lines[24] = "the sunrise was red";
    const text = lines.join("\n");
    const excerpt = excerptOf(text, [
      term(text, "melanie", 0.2),
      term(text, "painting", 0.3),
      term(text, "sunrise", 2.5),
    ]);
    expect(excerpt.line_start).toBeLessThanOrEqual(25);
    expect(excerpt.line_end).toBeGreaterThanOrEqual(25);
    // Far enough from line 5 that the window cannot hold both.
    expect(excerpt.line_start).toBeGreaterThan(5);
  });

  it("prefers a window holding several terms, and the shortest such window", () => {
    const filler = (i: number) => `${"padding words to fill this line ".repeat(2)}${i}`;
    const lines = Array.from({ length: 30 }, (_, i) => filler(i + 1));
    lines[2] = "alpha is here";
    lines[19] = "beta is here";
    lines[20] = "gamma is here";
    const text = lines.join("\n");
    const core = excerptOf(text, [term(text, "alpha"), term(text, "beta"), term(text, "gamma")]);
    expect(core.line_start).toBeLessThanOrEqual(20);
    expect(core.line_end).toBeGreaterThanOrEqual(21);
  });

  it("reads the range on past an excerpt of long lines, up to RANGE_LINES lines", () => {
    // Lines of about 150 characters: the excerpt holds two; the range reads on to four.
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1} ${"x".repeat(140)}`);
    lines[4] = `the question is asked here ${"y".repeat(120)}`;
    const text = lines.join("\n");
    const hit = excerptOf(text, [term(text, "question")]);
    expect(hit.excerpt).toBe(lines.slice(4, 6).join("\n"));
    expect(hit).toMatchObject({ line_start: 5, line_end: 4 + RANGE_LINES });
    expect(lines.slice(hit.line_start - 1, hit.line_end).join("\n").length).toBeLessThanOrEqual(
      RANGE_CHARS,
    );
  });

  it("keeps the range to the excerpt's lines where those are short", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `short line ${i + 1}`);
    lines[9] = "the needle";
    const text = lines.join("\n");
    const hit = excerptOf(text, [term(text, "needle")]);
    expect(hit.line_end - hit.line_start + 1).toBe(EXCERPT_LINES);
    expect(hit.excerpt).toBe(lines.slice(hit.line_start - 1, hit.line_end).join("\n"));
  });

  it("reads from the passage when the matched terms say nothing about where", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `${"filler ".repeat(20)}${i + 1}`);
    lines[4] = "Caroline said hello";
    const text = lines.join("\n");
    const passage = { lineStart: 21, lineEnd: 27 };
    // A name held by every memory of the store weighs less than ln 2: the passage places it.
    const name = term(text, "caroline", 0.05);
    expect(excerptOf(text, [name], passage).line_start).toBe(21);
    // Without a passage (lexical recall), the line that holds it.
    expect(excerptOf(text, [name]).line_start).toBe(5);
    // A term that does tell where wins over the passage.
    const hello = term(text, "hello", 1.5);
    expect(excerptOf(text, [name, hello], passage).line_start).toBe(5);
  });

  it("starts at the passage when no term occurs", () => {
    const text = ["one", "two", "", "four", "five"].join("\n");
    expect(excerptOf(text, [term(text, "zebra")], { lineStart: 3, lineEnd: 5 })).toMatchObject({
      line_start: 4,
    });
  });
});

describe("excerptTerms", () => {
  it("drops question words, auxiliaries, pronouns and one-letter pieces of contractions", () => {
    expect(excerptTerms("What did Caroline's dog eat when she was 3?")).toEqual([
      "caroline",
      "dog",
      "eat",
      "3",
    ]);
    expect(excerptTerms("I'll tell you what I don't know")).toEqual(["tell", "know"]);
  });

  it("keeps one-character words of scripts where a character is a word", () => {
    expect(excerptTerms("猫 a 집")).toEqual(["猫", "집"]);
  });

  it("keeps the ranking's terms when every one of them would be dropped", () => {
    expect(excerptTerms("what is it")).toEqual(["what"]);
    expect(excerptTerms("to be or not")).toEqual(["to", "be", "or", "not"]);
  });
});

describe("recall excerpts in a store", () => {
  let dir: string;
  let store: MemoryStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "hms-excerpt-"));
    store = MemoryStore.open(join(dir, "store.sqlite"));
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A memory of `n` long filler lines with `at` (1-based line to text) put in. */
  function memory(n: number, at: Record<number, string>): string {
    const lines = Array.from(
      { length: n },
      (_, i) => `line ${i + 1} holds nothing of note, only filler text to pad it out well`,
    );
    for (const [line, text] of Object.entries(at)) lines[Number(line) - 1] = text;
    return lines.join("\n");
  }

  function rangeOf(query: string, key: string): [number, number] {
    const hit = store.recall(query, { k: 20 }).hits.find((h) => h.key === key);
    if (hit === undefined) throw new Error(`${key} not recalled`);
    return [hit.line_start, hit.line_end];
  }

  it("a rare term places the excerpt, not common ones that happen to share a line", () => {
    // Melanie and painting are in every memory; sunrise in one.
    for (let i = 0; i < 8; i++) {
      store.remember({ key: `other-${i}`, text: `Melanie likes painting, note ${i}` });
    }
    const text = memory(30, {
      5: "Melanie said the painting class was fun",
      25: "[D1:12] Melanie: look at this [shared a photo: a sunrise over a lake]",
    });
    store.remember({ key: "session", text });
    const [start, end] = rangeOf("When did Melanie paint a sunrise?", "session");
    expect(start).toBeLessThanOrEqual(25);
    expect(end).toBeGreaterThanOrEqual(25);
  });

  it("stopwords and one-letter fragments do not place the excerpt", () => {
    const text = memory(30, {
      3: "What's up? It's a sunny day",
      22: "the dog hid under the porch",
    });
    store.remember({ key: "notes", text });
    const [start, end] = rangeOf("What is Caroline's dog doing?", "notes");
    expect(start).toBeLessThanOrEqual(22);
    expect(end).toBeGreaterThanOrEqual(22);
  });

  it("a window holding several of the query's terms beats a lone line with one", () => {
    const text = memory(30, {
      4: "the budget is due",
      20: "the quarterly review",
      21: "was moved to the spring offsite",
    });
    store.remember({ key: "plans", text });
    const [start, end] = rangeOf("budget quarterly offsite", "plans");
    expect(start).toBeLessThanOrEqual(20);
    expect(end).toBeGreaterThanOrEqual(21);
  });

  it("in hybrid recall, the passage that matched the query places a memory with no telling term", () => {
    const hybrid = MemoryStore.open(join(dir, "hybrid.sqlite"), {
      embeddings: { model: { id: "test-model-2d", dimensions: 2 } },
    });
    try {
      // Caroline is in every memory, so her name says nothing about where in one the answer is.
      for (let i = 0; i < 4; i++) {
        hybrid.remember({ key: `other-${i}`, text: `Caroline wrote note ${i}` });
      }
      const text = memory(30, { 4: "Caroline opened the window", 24: "a soft wind came in" });
      hybrid.remember({ key: "weather", text });
      const embeddings = hybrid.embeddings;
      if (embeddings === undefined) throw new Error("not a hybrid store");
      // Three passages for the long memory; the last (lines 21-30) points the query's way.
      embeddings.save(
        embeddings.pending(10).map((pending) =>
          pending.text === text
            ? {
                id: pending.id,
                hash: pending.hash,
                spans: [
                  { lineStart: 1, lineEnd: 10 },
                  { lineStart: 11, lineEnd: 20 },
                  { lineStart: 21, lineEnd: 30 },
                ],
                vectors: Float32Array.from([0, 1, 0.6, 0.8, 1, 0]),
              }
            : {
                id: pending.id,
                hash: pending.hash,
                spans: [{ lineStart: 1, lineEnd: 1 }],
                vectors: Float32Array.from([0, 1]),
              },
        ),
      );
      const query = "What did Caroline feel of the breeze?";
      const hit = hybrid
        .recall(query, { vector: Float32Array.from([1, 0]) })
        .hits.find((h) => h.key === "weather");
      expect(hit?.line_start).toBeLessThanOrEqual(24);
      expect(hit?.line_end).toBeGreaterThanOrEqual(24);
      // Lexical recall has no passage: the line with the name.
      const lexical = hybrid.recall(query).hits.find((h) => h.key === "weather");
      expect(lexical?.line_start).toBeLessThanOrEqual(4);
    } finally {
      hybrid.close();
    }
  });
});
