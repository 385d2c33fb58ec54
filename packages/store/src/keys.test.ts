import { describe, expect, it } from "vitest";
import { StoreError } from "./errors.js";
import { compareKeys, decodeCursor, encodeCursor, prefixSuccessor } from "./keys.js";

describe("prefixSuccessor", () => {
  it("increments the last code point", () => {
    expect(prefixSuccessor("/memories/")).toBe("/memories0");
    expect(prefixSuccessor("a\u{1F600}")).toBe("a\u{1F601}");
  });

  it("steps over the surrogate block and drops trailing U+10FFFF", () => {
    expect(prefixSuccessor("a\uD7FF")).toBe("a\uE000");
    expect(prefixSuccessor("a\u{10FFFF}\u{10FFFF}")).toBe("b");
    expect(prefixSuccessor("\u{10FFFF}")).toBeUndefined();
  });

  it("bounds exactly the strings that start with the prefix", () => {
    const prefix = "ab\u{FFFF}";
    const upper = prefixSuccessor(prefix) as string;
    for (const key of [
      "ab\u{FFFF}",
      "ab\u{FFFF}\u{10FFFF}",
      "ab\u{FFFF}zz",
      "ab\u{10000}",
      "ac",
      "ab",
    ]) {
      const inRange = compareKeys(key, prefix) >= 0 && compareKeys(key, upper) < 0;
      expect(inRange).toBe(key.startsWith(prefix));
    }
  });
});

describe("cursors", () => {
  it("round-trip any key", () => {
    for (const key of ["a", "/memories/ü/😀", "x".repeat(512)]) {
      expect(decodeCursor(encodeCursor(key))).toBe(key);
    }
  });

  it("refuse strings that are not cursors", () => {
    for (const bad of ["", "k1", "k2.YQ", "k1.Y Q", "k1.YQ=="]) {
      expect(() => decodeCursor(bad)).toThrow(StoreError);
    }
  });
});
