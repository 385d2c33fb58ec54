import { describe, expect, it } from "vitest";
import { CHUNK_LINES, chunkCount, chunkOf, chunkTop, visibleChunks } from "./window.js";

describe("the rendered window of a long file", () => {
  it("cuts lines into chunks", () => {
    expect(chunkCount(0)).toBe(1);
    expect(chunkCount(CHUNK_LINES)).toBe(1);
    expect(chunkCount(CHUNK_LINES + 1)).toBe(2);
    expect(chunkOf(1)).toBe(0);
    expect(chunkOf(CHUNK_LINES)).toBe(0);
    expect(chunkOf(CHUNK_LINES + 1)).toBe(1);
  });

  it("renders the chunks in view and those within the margin", () => {
    const heights = [1000, 1000, 1000, 1000, 1000];
    expect(visibleChunks(heights, 0, 800, 0)).toEqual([0, 0]);
    expect(visibleChunks(heights, 900, 800, 0)).toEqual([0, 1]);
    expect(visibleChunks(heights, 2500, 400, 600)).toEqual([1, 3]);
    expect(visibleChunks(heights, 99_999, 800, 0)).toEqual([4, 4]);
    expect(chunkTop(heights, 3)).toBe(3000);
  });
});
