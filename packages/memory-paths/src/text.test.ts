import { describe, expect, it } from "vitest";
import { compareCodePoints, displayPath, utf8ByteLength } from "./text.js";

describe("utf8ByteLength", () => {
  it.each(["", "a", "é", "€", "😀", "a€😀é\u0000", "日本語のメモ"])(
    "matches the encoder for %j",
    (text) => {
      expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, "utf8"));
    },
  );

  it("counts an unpaired surrogate as the 3 bytes of its replacement character", () => {
    expect(utf8ByteLength("\ud800")).toBe(3);
    expect(utf8ByteLength("a\udc00b")).toBe(5);
    expect(utf8ByteLength("\ud800\ud800")).toBe(6);
  });
});

describe("compareCodePoints", () => {
  it("orders astral characters after the rest of the BMP, unlike the default sort", () => {
    const names = ["\uff61", "😀", "z", "\ue000", "é"];
    expect([...names].sort()).toEqual(["z", "é", "😀", "\ue000", "\uff61"]);
    expect([...names].sort(compareCodePoints)).toEqual(["z", "é", "\ue000", "\uff61", "😀"]);
  });

  it("agrees with the order of UTF-8 bytes", () => {
    const names = ["b", "a", "ab", "", "a\u{10000}", "a\uffff", "😀", "\u{10ffff}", "\ud7ff"];
    const byBytes = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect([...names].sort(compareCodePoints)).toEqual(byBytes);
  });

  it("puts a prefix first and returns 0 only for equal strings", () => {
    expect(compareCodePoints("a", "ab")).toBeLessThan(0);
    expect(compareCodePoints("ab", "a")).toBeGreaterThan(0);
    expect(compareCodePoints("ab", "ab")).toBe(0);
  });
});

describe("displayPath", () => {
  it("shows a path as written, with unsafe code points as labels", () => {
    expect(displayPath("/memories/a b")).toBe("/memories/a b");
    expect(displayPath("/memories/a\tb\u202e\ud800")).toBe("/memories/a<U+0009>b<U+202E><U+D800>");
    expect(displayPath("/memories/\u{e0041}")).toBe("/memories/<U+E0041>");
    expect(displayPath("")).toBe('""');
  });

  it("cuts after 512 code points, counting an emoji as one", () => {
    expect(displayPath("😀".repeat(512))).toBe("😀".repeat(512));
    expect(displayPath("😀".repeat(513))).toBe(`${"😀".repeat(512)}…`);
  });
});
