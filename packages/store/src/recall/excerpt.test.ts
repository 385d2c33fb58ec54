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
  RANGE_MAX_LINES,
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

/** A conversation of long turns (as in LoCoMo: about 150 characters a line). */
function chat(turns: Record<number, string>, n = 24): string[] {
  const lines = Array.from(
    { length: n },
    (_, i) =>
      `[D1:${i + 1}] ${i % 2 === 0 ? "Gina" : "Jon"}: ${"we talked about this and that for a while, nothing much to note here ".repeat(2)}`,
  );
  for (const [line, text] of Object.entries(turns)) lines[Number(line) - 1] = text;
  return lines;
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

  it("a range of long lines holds the matched line, the line before it and the two after", () => {
    // Lines of about 150 characters: the excerpt holds two; the range is a 4-line window.
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1} ${"x".repeat(140)}`);
    lines[4] = `the question is asked here ${"y".repeat(120)}`;
    const text = lines.join("\n");
    const hit = excerptOf(text, [term(text, "question")]);
    expect(hit.excerpt).toBe(lines.slice(4, 6).join("\n"));
    expect(hit).toMatchObject({ line_start: 4, line_end: 3 + RANGE_LINES });
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

  it("takes the hybrid passage's window into the range when it is near the words'", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `${"filler ".repeat(20)}${i + 1}`);
    lines[4] = "Caroline said hello";
    const text = lines.join("\n");
    // A name held by every memory of the store weighs almost nothing, yet it is all the words
    // say: its window (lines 4-7) and the passage's (8-11) make one range.
    const name = term(text, "caroline", 0.05);
    expect(excerptOf(text, [name], { lineStart: 8, lineEnd: 9 })).toMatchObject({
      line_start: 4,
      line_end: 11,
    });
    // Without a passage (lexical recall), the words' window.
    expect(excerptOf(text, [name])).toMatchObject({ line_start: 4, line_end: 7 });
    // A passage too far away to fit in RANGE_MAX_LINES lines with it is left out.
    expect(excerptOf(text, [name], { lineStart: 21, lineEnd: 27 })).toMatchObject({
      line_start: 4,
      line_end: 7,
    });
  });

  it("starts at the passage when no term occurs", () => {
    const text = ["one", "two", "", "four", "five"].join("\n");
    expect(excerptOf(text, [term(text, "zebra")], { lineStart: 3, lineEnd: 5 })).toMatchObject({
      line_start: 4,
    });
  });

  it("holds the line before the best match: a turn the next one echoes", () => {
    // "When did Jon sign the lease for his studio?": Gina's reply repeats more of the
    // question's words than Jon's news, which answers it.
    const lines = chat({
      7: `[D1:7] Jon: Guess what, Gina, I finally signed it yesterday! ${"It took ages to agree on the terms with the landlord but it's done. ".repeat(2)}`,
      8: `[D1:8] Gina: You signed the lease? For the dance studio? ${"That is huge news, Jon, I am so happy for you and can't wait to see it. ".repeat(2)}`,
    });
    const text = lines.join("\n");
    const query = [
      term(text, "sign(?:ed)?", 0.5),
      term(text, "lease", 1.5),
      term(text, "studio", 1.5),
    ];
    // The window around Gina's echo: Jon's line before it, hers, the two after.
    expect(excerptOf(text, query)).toMatchObject({ line_start: 7, line_end: 10 });
  });

  it("prefers a window that keeps coming back to a word over a line naming two in passing", () => {
    // "How is Jon's dance studio doing?": one line names both words; three turns talk about it.
    const lines = chat({
      3: `[D1:3] Gina: I saw a dance poster near the old studio on my way here. ${"Anyway, how was your week? Mine was long and busy at the shop. ".repeat(2)}`,
      15: `[D1:15] Jon: The studio is packed every night now! ${"People keep coming back and bringing their friends along with them. ".repeat(2)}`,
      16: `[D1:16] Gina: A full studio already, that's amazing. ${"You worked so hard for this, Jon, and it is paying off at last. ".repeat(2)}`,
      17: `[D1:17] Jon: Yes, the studio's first month paid the rent. ${"Next I want to add a class for kids on Saturday mornings. ".repeat(2)}`,
    });
    const text = lines.join("\n");
    const hit = excerptOf(text, [term(text, "dance"), term(text, "studio('s)?")]);
    expect(hit.line_start).toBeLessThanOrEqual(15);
    expect(hit.line_end).toBeGreaterThanOrEqual(16);
    expect(hit.line_start).toBeGreaterThan(3);
  });

  it("every content word counts: two common words of the query outweigh one rarer word", () => {
    // "When did Gina take the kids to the beach this summer?": beach and kids are in most
    // memories of the store, summer in fewer.
    const lines = chat({
      4: `[D1:4] Jon: This summer has been so hot, I stay inside most days. ${"The fan in my flat broke and the shop has none left to sell. ".repeat(2)}`,
      18: `[D1:18] Gina: I took the kids to the beach on Saturday, they loved the waves. ${"We stayed until the sun went down and ate fish on the way home. ".repeat(2)}`,
    });
    const text = lines.join("\n");
    const query = [term(text, "kids", 0.1), term(text, "beach", 0.1), term(text, "summer", 0.5)];
    const hit = excerptOf(text, query);
    expect(hit.line_start).toBeLessThanOrEqual(18);
    expect(hit.line_end).toBeGreaterThanOrEqual(18);
  });

  it("takes in a nearby window that matches nearly as well, within RANGE_MAX_LINES lines", () => {
    // "When did Jon run a marathon?": his first mention, and the answer four turns on.
    const lines = chat({
      5: `[D1:5] Jon: I have been training for a marathon since spring. ${"My legs are sore every morning but it is getting easier week by week. ".repeat(2)}`,
      9: `[D1:9] Gina: So how did the marathon go in the end? ${"I saw the photos you posted and you looked tired but really happy. ".repeat(2)}`,
      10: `[D1:10] Jon: I finished it last Sunday in under four hours! ${"My family waited at the finish line with a big sign for me. ".repeat(2)}`,
    });
    const text = lines.join("\n");
    const hit = excerptOf(text, [term(text, "marathon")]);
    expect(hit).toMatchObject({ line_start: 4, line_end: 11 });
    expect(hit.line_end - hit.line_start + 1).toBeLessThanOrEqual(RANGE_MAX_LINES);
    // Too far apart to fit in RANGE_MAX_LINES lines: the first window only.
    const far = chat({ 5: lines[4] as string, 15: lines[8] as string });
    const farText = far.join("\n");
    expect(excerptOf(farText, [term(farText, "marathon")])).toMatchObject({
      line_start: 4,
      line_end: 7,
    });
  });

  it("keeps a range within RANGE_CHARS, leaving out the lines farthest from the match", () => {
    // Lines of 900 characters: the anchor and the line before fit in 2,000, not a third.
    const lines = Array.from({ length: 10 }, (_, i) => `${i + 1} ${"z".repeat(900)}`);
    lines[4] = `needle ${"n".repeat(900)}`;
    const text = lines.join("\n");
    const hit = excerptOf(text, [term(text, "needle")]);
    expect(hit).toMatchObject({ line_start: 4, line_end: 5 });
    expect(lines.slice(3, 5).join("\n").length).toBeLessThanOrEqual(RANGE_CHARS);
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

  it("a conversation's range takes in a near match a few turns on, where the answer is", () => {
    for (let i = 0; i < 6; i++) {
      store.remember({ key: `other-${i}`, text: `Gina and Jon talked about work, note ${i}` });
    }
    // "When did Jon run a marathon?": his first mention, Gina's question four turns on, and
    // his answer to it.
    const lines = chat({
      5: `[D1:5] Jon: I have been training for a marathon since spring. ${"My legs are sore every morning but it is getting easier week by week. ".repeat(2)}`,
      9: `[D1:9] Gina: So how did the marathon go in the end? ${"I saw the photos you posted and you looked tired but really happy. ".repeat(2)}`,
      10: `[D1:10] Jon: I finished it last Sunday in under four hours! ${"My family waited at the finish line with a big sign for me. ".repeat(2)}`,
    });
    store.remember({ key: "session", text: lines.join("\n") });
    const [start, end] = rangeOf("When did Jon run a marathon?", "session");
    expect(start).toBeLessThanOrEqual(5);
    expect(end).toBeGreaterThanOrEqual(10);
    expect(end - start + 1).toBeLessThanOrEqual(RANGE_MAX_LINES);
  });

  it("in hybrid recall, the passage that matched the query is taken into the range", () => {
    const hybrid = MemoryStore.open(join(dir, "hybrid.sqlite"), {
      embeddings: { model: { id: "test-model-2d", dimensions: 2 } },
    });
    try {
      // Caroline is in every memory, so her name says little about where in one the answer is.
      for (let i = 0; i < 4; i++) {
        hybrid.remember({ key: `other-${i}`, text: `Caroline wrote note ${i}` });
      }
      const text = memory(30, { 4: "Caroline opened the window", 7: "a soft wind came in" });
      hybrid.remember({ key: "weather", text });
      const embeddings = hybrid.embeddings;
      if (embeddings === undefined) throw new Error("not a hybrid store");
      // Three passages for the long memory; the second (from line 7) points the query's way.
      embeddings.save(
        embeddings.pending(10).map((pending) =>
          pending.text === text
            ? {
                id: pending.id,
                hash: pending.hash,
                spans: [
                  { lineStart: 1, lineEnd: 6 },
                  { lineStart: 7, lineEnd: 20 },
                  { lineStart: 21, lineEnd: 30 },
                ],
                vectors: Float32Array.from([0, 1, 1, 0, 0.6, 0.8]),
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
      // The name's window (lines 3-6) and the passage's (7-10) make one range.
      expect(hit).toMatchObject({ line_start: 3, line_end: 10 });
      // Lexical recall has no passage: the name's window, read on to an excerpt's 320
      // characters (its lines are short).
      const lexical = hybrid.recall(query).hits.find((h) => h.key === "weather");
      expect(lexical).toMatchObject({ line_start: 3, line_end: 8 });
    } finally {
      hybrid.close();
    }
  });
});
