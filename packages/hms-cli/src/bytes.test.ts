import { describe, expect, it } from "vitest";
import { escapedBytes, isUtf8 } from "./bytes.js";

describe("escapedBytes and isUtf8", () => {
  it("keeps UTF-8 as it is and writes every other byte as \\xHH", () => {
    const cases: [number[], string, boolean][] = [
      [[0x63, 0x2f, 0xff, 0x2e, 0x6d, 0x64], "c/\\xff.md", false],
      [[...Buffer.from("日本/é.md")], "日本/é.md", true],
      [[0xef, 0xbf, 0xbd], "\uFFFD", true], // U+FFFD itself is well-formed
      [[0xc0, 0xaf], "\\xc0\\xaf", false], // an overlong "/"
      [[0xed, 0xa0, 0x80], "\\xed\\xa0\\x80", false], // a surrogate
      [[0xf4, 0x90, 0x80, 0x80], "\\xf4\\x90\\x80\\x80", false], // above U+10FFFF
      [[0xe6, 0x97], "\\xe6\\x97", false], // cut short
      [[0xf0, 0x9f, 0x98, 0x80, 0xfe], "😀\\xfe", false],
    ];
    for (const [bytes, shown, wellFormed] of cases) {
      const buffer = Uint8Array.from(bytes);
      expect(escapedBytes(buffer), shown).toBe(shown);
      expect(isUtf8(buffer), shown).toBe(wellFormed);
      // The same verdict as a strict decoder's.
      let strict = true;
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(buffer);
      } catch {
        strict = false;
      }
      expect(strict, shown).toBe(wellFormed);
    }
  });
});
