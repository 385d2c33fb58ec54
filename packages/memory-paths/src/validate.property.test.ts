// Property-based tests: an independent statement of the rules (below, written with regular
// expressions, Buffer, NFKC normalisation and String.prototype.isWellFormed) must agree
// with the validator on every generated path, in both directions.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MemoryPathRule } from "./errors.js";
import { checkMemoryPath, isValidMemoryPath } from "./validate.js";

const RUNS = 12_000;

const INVISIBLE =
  /[\u00ad\u061c\u115f\u1160\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}]|[\u{e0100}-\u{e01ef}]/u;
const DRAWN_AS_SLASH = ["\u2044", "\u2215", "\u29f5", "\u29f8", "\u29f9"];

/**
 * Every forbidden form present in `path`, by the rule that names it, in the order the
 * validator promises to report them: character rules in rule order, then the root, then
 * each segment from the left, then the whole-path limits.
 */
function forbiddenForms(path: string): Set<MemoryPathRule> {
  const found = new Set<MemoryPathRule>();
  if (path.includes("\u0000")) found.add("nul");
  if (!path.isWellFormed() || /\p{Noncharacter_Code_Point}/u.test(path))
    found.add("invalid-unicode");
  if (/\p{Cc}/u.test(path)) found.add("control-character");
  if (INVISIBLE.test(path)) found.add("invisible-character");
  if (/(?! )\p{Zs}/u.test(path)) found.add("nonstandard-space");
  for (const ch of path) {
    // A look-alike is a non-ASCII character that compatibility normalisation turns into "."
    // or "..", or into something holding "/", "\" or "%"; or one drawn as a slash.
    if (ch < "\u0080" || !ch.isWellFormed()) continue;
    const nfkc = ch.normalize("NFKC");
    if (nfkc === "." || nfkc === ".." || /[/\\%]/.test(nfkc) || DRAWN_AS_SLASH.includes(ch))
      found.add("lookalike-character");
  }
  if (path.isWellFormed() && path.normalize("NFC") !== path) found.add("not-nfc");
  for (const ch of path) {
    // A compatibility character changes under NFKC; it is kept when its plain form starts
    // with a space, is Thai or Lao AM's two marks, holds conjoining Hangul jamo or U+2044.
    if (ch < "\u00a0" || !ch.isWellFormed()) continue;
    const plain = ch.normalize("NFKC");
    const kept =
      plain.startsWith(" ") ||
      ch === "\u0e33" ||
      ch === "\u0eb3" ||
      /[\u1100-\u11ff]/u.test(plain) ||
      plain.includes("\u2044");
    if (plain !== ch.normalize("NFC") && !kept) found.add("compatibility-character");
  }
  if (path.includes("\\")) found.add("backslash");
  if (/%[0-9a-f]{2}/i.test(path)) found.add("percent-encoded");
  if (!/^\/memories(\/|$)/.test(path)) {
    found.add("outside-memories");
    return found;
  }
  const names = path === "/memories" ? [] : path.slice(10).split("/");
  for (const name of names) {
    if (name === "") found.add("empty-segment");
    else if (name === "." || name === "..") found.add("dot-segment");
    else if (name.startsWith(".")) found.add("hidden-segment");
    else if (name.startsWith(" ") || name.endsWith(" ")) found.add("space-at-edge");
    if (Buffer.byteLength(name, "utf8") > 128) found.add("name-too-long");
  }
  if (Buffer.byteLength(path, "utf8") > 240) found.add("path-too-long");
  if (names.length > 16) found.add("too-deep");
  return found;
}

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u));
const controlChar = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }))
  .map((cp) => String.fromCodePoint(cp));
const hazard = fc.constantFrom(
  "\u202e",
  "\u200b",
  "\ufeff",
  "\u2028",
  "\u{e0041}",
  "\uff0f",
  "\uff0e",
  "\u2025",
  "\uff3c",
  "\u2215",
  "\uff05",
  "\u2100",
  "\ufffe",
  "\u{10ffff}",
  "\u200d",
  "\u200c",
  "\ufe0f",
  "\u2026",
  "\u3000",
  "\u00a0",
  "\u0301",
  "e\u0301",
  "\uff21",
  "\ufb01",
  "\uff76\uff9e",
  "\u2460",
  "\u00b2",
  "\u00bd",
  "\u3131",
  "\u00b4",
  "\u0e33",
  "\u212b",
);
const token = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom("a", "b", "notes.md", "é", "€", "😀", "日本", " ") },
  { weight: 6, arbitrary: fc.constant("/") },
  {
    weight: 4,
    arbitrary: fc.constantFrom(".", "..", "%2e", "%2E", "%2f", "%2F", "%5c", "%5C", "%25", "%"),
  },
  { weight: 2, arbitrary: fc.constantFrom("\\", "\u0000", "/memories", "memories", "2e", "5c") },
  { weight: 2, arbitrary: controlChar },
  { weight: 2, arbitrary: loneSurrogate },
  { weight: 2, arbitrary: hazard },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 20, maxLength: 140 }) },
);
const anyPath = fc
  .tuple(
    fc.constantFrom("/memories/", "/memories", "", "/", "/memories_x/"),
    fc.array(token, { maxLength: 40 }),
  )
  .map(([start, tokens]) => start + tokens.join(""));

describe("property: the validator and the rules agree", () => {
  it(`accepts no path holding a forbidden form, and every path holding none (${RUNS} cases)`, () => {
    let runs = 0;
    let accepted = 0;
    fc.assert(
      fc.property(anyPath, (path) => {
        runs++;
        const forms = forbiddenForms(path);
        const error = checkMemoryPath(path);
        if (error === null) {
          accepted++;
          expect([...forms]).toEqual([]);
        } else {
          // The rule reported is the first forbidden form present, in the promised order.
          expect(error.rule).toBe([...forms][0]);
        }
      }),
      { numRuns: RUNS },
    );
    expect(runs).toBeGreaterThanOrEqual(10_000);
    // The generator must exercise both outcomes, or the property proves little.
    expect(accepted).toBeGreaterThan(RUNS / 50);
    expect(runs - accepted).toBeGreaterThan(RUNS / 2);
  });

  const safeUnit = fc.constantFrom(
    ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_ ,;:!?'()[]{}+=&#@~^`",
    "é",
    "ß",
    "€",
    "日",
    "😀",
    "\u200d",
    "%_",
    "..",
  );
  const safeName = fc
    .tuple(
      fc.constantFrom("a", "Z", "9", "é", "😀", "_"),
      fc.array(safeUnit, { maxLength: 12 }),
      fc.constantFrom("a", "Z", "9", "é", "😀", "_"),
    )
    .map(([first, rest, last]) => first + rest.join("") + last);
  const validPath = fc
    .array(safeName, { maxLength: 16 })
    .filter((names) => Buffer.byteLength(`/memories/${names.join("/")}`) <= 240)
    .map((names) => (names.length ? `/memories/${names.join("/")}` : "/memories"));

  it(`accepts every generated valid path (${RUNS} cases)`, () => {
    let runs = 0;
    fc.assert(
      fc.property(validPath, (path) => {
        runs++;
        expect(forbiddenForms(path).size).toBe(0);
        expect(isValidMemoryPath(path)).toBe(true);
      }),
      { numRuns: RUNS },
    );
    expect(runs).toBeGreaterThanOrEqual(10_000);
  });
});
