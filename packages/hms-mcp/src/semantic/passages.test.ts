import { describe, expect, it } from "vitest";
import { splitPassages } from "./passages.js";

/** A stand-in tokenizer: one token per word (the real one is tested with the model). */
const countTokens = (text: string) => text.split(/\s+/).filter((word) => word !== "").length;
const options = { maxTokens: 8, countTokens, contextTokens: 0, maxPassages: 64 };

describe("splitPassages", () => {
  it("keeps a short text whole, as one passage of its lines", () => {
    expect(splitPassages("Acme prefers email.\nNever calls.", options)).toEqual([
      { text: "Acme prefers email.\nNever calls.", lineStart: 1, lineEnd: 2 },
    ]);
  });

  it("packs whole lines into passages within the budget, skipping blank lines", () => {
    const text = "one two three four\n\nfive six seven\neight nine ten eleven\n\n";
    expect(splitPassages(text, options)).toEqual([
      { text: "one two three four\nfive six seven", lineStart: 1, lineEnd: 3 },
      { text: "eight nine ten eleven", lineStart: 4, lineEnd: 4 },
    ]);
  });

  it("cuts a long line at sentence ends, then between words, keeping its line number", () => {
    const text = `Title\nFirst sentence is here. ${"word ".repeat(20).trim()}. Last one.`;
    const passages = splitPassages(text, options);
    for (const passage of passages) expect(countTokens(passage.text)).toBeLessThanOrEqual(8);
    expect(passages[0]).toEqual({
      text: "Title\nFirst sentence is here.",
      lineStart: 1,
      lineEnd: 2,
    });
    expect(passages.slice(1).every((p) => p.lineStart === 2 && p.lineEnd === 2)).toBe(true);
    const words = (value: string) => value.split(/\s+/).join(" ");
    expect(words(passages.map((p) => p.text).join(" "))).toBe(words(text));
  });

  it("repeats a short first line (a title) before every later passage, within the budget", () => {
    const text = "Clients\none two three four five\nsix seven eight nine ten";
    const passages = splitPassages(text, { ...options, contextTokens: 2 });
    expect(passages).toEqual([
      { text: "Clients\none two three four five", lineStart: 1, lineEnd: 2 },
      { text: "Clients\nsix seven eight nine ten", lineStart: 3, lineEnd: 3 },
    ]);
    for (const passage of passages) expect(countTokens(passage.text)).toBeLessThanOrEqual(8);
  });

  it("does not repeat a first line that is too long to be a title", () => {
    const text = "a long first line of words\nsix seven eight nine ten";
    const passages = splitPassages(text, { ...options, contextTokens: 3 });
    expect(passages.map((p) => p.text)).toEqual([
      "a long first line of words",
      "six seven eight nine ten",
    ]);
  });

  it("stops at maxPassages", () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i} has five words`).join("\n");
    const passages = splitPassages(text, { ...options, maxPassages: 3 });
    expect(passages).toHaveLength(3);
    expect(passages[2]?.lineEnd).toBe(3);
  });

  it("gives an empty or blank text one empty passage at line 1", () => {
    expect(splitPassages("", options)).toEqual([{ text: "", lineStart: 1, lineEnd: 1 }]);
    expect(splitPassages("\n  \n", options)).toEqual([{ text: "", lineStart: 1, lineEnd: 1 }]);
  });

  it("refuses a budget too small to hold text", () => {
    expect(() => splitPassages("x", { ...options, maxTokens: 2 })).toThrow(RangeError);
  });
});
