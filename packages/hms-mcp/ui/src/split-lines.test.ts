import { describe, expect, it } from "vitest";
import { endOfLine, splitLines } from "./split-lines.js";

describe("a file's lines", () => {
  it("are numbered as Claude's view numbers them: a final line end starts no line", () => {
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\nb")).toEqual(["a", "b"]);
    expect(splitLines("a\n\n")).toEqual(["a", ""]);
    expect(splitLines("\n")).toEqual([""]);
    expect(splitLines("")).toEqual([]);
    expect(splitLines("a\r\nb")).toEqual(["a\r", "b"]);
  });

  it("end where the cursor goes to write after them", () => {
    const text = "# Title\nsecond\n\nfourth";
    expect(endOfLine(text, 1)).toBe("# Title".length);
    expect(text.slice(0, endOfLine(text, 2))).toBe("# Title\nsecond");
    expect(endOfLine(text, 3)).toBe("# Title\nsecond\n".length);
    expect(endOfLine(text, 4)).toBe(text.length);
    expect(endOfLine(text, 99)).toBe(text.length);
  });
});
