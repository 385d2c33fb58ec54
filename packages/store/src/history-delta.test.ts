import { describe, expect, it } from "vitest";
import { applySplice, spliceOf, textSteps } from "./history-delta.js";
import { runSync } from "./rules/steps.js";

/** A seeded generator of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

// Pieces of one and two UTF-16 units, lone surrogates among them (a JS string can hold one).
const PIECES = ["a", "b", "\n", "é", "東", "😀", "🇫🇷", "\uD800", "\uDC00", " "];

function randomText(random: () => number, length: number): string {
  let text = "";
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

/** `text` with one stretch replaced, as a str_replace or an insert would. */
function edited(random: () => number, text: string): string {
  const from = Math.floor(random() * (text.length + 1));
  const to = from + Math.floor(random() * Math.min(8, text.length - from + 1));
  return text.slice(0, from) + randomText(random, Math.floor(random() * 6)) + text.slice(to);
}

describe("splices", () => {
  it("give back the older text from the newer, whatever the texts", () => {
    const random = seeded(7);
    for (let round = 0; round < 3000; round++) {
      const older = randomText(random, Math.floor(random() * 40));
      const newer =
        round % 3 === 0 ? randomText(random, Math.floor(random() * 40)) : edited(random, older);
      const splice = spliceOf(older, newer);
      expect(applySplice(newer, splice)).toBe(older);
    }
  });

  it("keep only the stretch an edit changed, counted in code points", () => {
    expect(spliceOf("one\ntwo\nthree", "one\n2\nthree")).toEqual({
      head: 4,
      tail: 6,
      middle: "two",
    });
    // The emoji before the change is one code point (two UTF-16 units).
    expect(spliceOf("😀 a b", "😀 a c")).toEqual({ head: 4, tail: 0, middle: "b" });
    expect(spliceOf("same", "same")).toEqual({ head: 4, tail: 0, middle: "" });
    expect(spliceOf("", "new")).toEqual({ head: 0, tail: 0, middle: "" });
  });

  it("never split a surrogate pair", () => {
    // The two texts share the first half of different emoji.
    const splice = spliceOf("x😀y", "x😁y");
    expect(splice).toEqual({ head: 1, tail: 1, middle: "😀" });
    expect(applySplice("x😁y", splice)).toBe("x😀y");
  });
});

describe("reading a version through its splices", () => {
  type Row = {
    seq: number;
    key: string;
    version: number;
    hash: string;
    stored: "full" | "live" | "delta";
    text: string;
    base: number | null;
    head: number | null;
    tail: number | null;
  };

  /** Rows of versions `texts` (oldest first), each a splice of the next, the newest live. */
  function chain(texts: string[]): Row[] {
    return texts.map((text, at) => {
      const newer = texts[at + 1];
      const base = { seq: at + 1, key: "k", version: at + 1, hash: `h${at + 1}` };
      if (newer === undefined) {
        return { ...base, stored: "live", text: "", base: null, head: null, tail: null };
      }
      const splice = spliceOf(text, newer);
      return { ...base, stored: "delta", text: splice.middle, base: at + 2, ...splice };
    });
  }

  it("rebuilds every version from the live text", () => {
    const random = seeded(3);
    const texts = [randomText(random, 200)];
    for (let i = 0; i < 50; i++) texts.push(edited(random, texts[texts.length - 1] as string));
    const rows = chain(texts);
    const reads = {
      row: (seq: number) => rows[seq - 1],
      live: (key: string, version: number, hash: string) =>
        key === "k" && version === texts.length && hash === `h${texts.length}`
          ? texts[texts.length - 1]
          : undefined,
    };
    for (const [at, text] of texts.entries()) {
      expect(runSync(textSteps(rows[at] as Row, reads))).toBe(text);
    }
  });

  it("answers undefined when a row it needs is gone or the memory has moved on", () => {
    const rows = chain(["a", "ab", "abc"]);
    const gone = { row: () => undefined, live: () => "abc" };
    expect(runSync(textSteps(rows[0] as Row, gone))).toBeUndefined();
    const movedOn = { row: (seq: number) => rows[seq - 1], live: () => undefined };
    expect(runSync(textSteps(rows[0] as Row, movedOn))).toBeUndefined();
  });
});
