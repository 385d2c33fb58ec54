import { describe, expect, it } from "vitest";
import { MATCH_CLOSE as C, EXCERPT_CHARS, excerptOf, MATCH_OPEN as O } from "./excerpt.js";

describe("excerptOf", () => {
  it("centres on the line with the most distinct matched terms", () => {
    const lines = Array.from({ length: 40 }, (_, i) => `filler line ${i + 1}`);
    lines[29] = "the cat and the dog";
    lines[9] = "only a cat";
    const text = lines.join("\n");
    const highlighted = text.replace(/\b(cat|dog)\b/g, `${O}$1${C}`);
    const excerpt = excerptOf(text, highlighted);
    expect(excerpt.line_start).toBeLessThanOrEqual(30);
    expect(excerpt.line_end).toBeGreaterThanOrEqual(30);
    expect(excerpt.excerpt).toBe(lines.slice(excerpt.line_start - 1, excerpt.line_end).join("\n"));
    expect(excerpt.excerpt.length).toBeLessThanOrEqual(EXCERPT_CHARS);
  });

  it("starts at the first non-blank line when nothing matched", () => {
    expect(excerptOf("\n\nhello\nworld", undefined)).toEqual({
      excerpt: "hello\nworld",
      line_start: 3,
      line_end: 4,
    });
  });

  it("cuts a long line around its match and keeps the line range", () => {
    const text = `intro\n${"word ".repeat(200)}target ${"word ".repeat(200)}`;
    const highlighted = text.replace("target", `${O}target${C}`);
    const excerpt = excerptOf(text, highlighted);
    expect(excerpt).toMatchObject({ line_start: 2, line_end: 2 });
    expect(excerpt.excerpt).toContain("target");
    expect(excerpt.excerpt.length).toBeLessThanOrEqual(EXCERPT_CHARS + 2);
    expect(text).toContain(excerpt.excerpt);
  });

  it("ignores marks on a line whose own text contains the mark characters", () => {
    const text = `plain\nhas ${O} in it\nmatch here`;
    const highlighted = `plain\nhas ${O} in it\n${O}match${C} here`;
    expect(excerptOf(text, highlighted).excerpt).toContain("match here");
  });
});
