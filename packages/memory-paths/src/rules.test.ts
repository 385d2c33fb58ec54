// The shape of rules.json, which both this package and the Python port read: every value the
// code relies on is there, with the right type, and the tables say what their names promise.
import { describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import type { MemoryPathRule } from "./errors.js";
import { fill, parseCodePoint, RULES_DATA } from "./rules.js";

// Every rule, once: the compiler checks this object names each MemoryPathRule exactly once.
const EVERY_RULE: Record<MemoryPathRule, true> = {
  "not-a-string": true,
  nul: true,
  "invalid-unicode": true,
  "control-character": true,
  "invisible-character": true,
  "nonstandard-space": true,
  "lookalike-character": true,
  "not-nfc": true,
  "compatibility-character": true,
  backslash: true,
  "percent-encoded": true,
  "outside-memories": true,
  "empty-segment": true,
  "dot-segment": true,
  "hidden-segment": true,
  "space-at-edge": true,
  "name-too-long": true,
  "path-too-long": true,
  "too-deep": true,
};

// The values the validator passes to each template; a template may use no others.
const PLACEHOLDERS: Record<string, string[]> = {
  not_a_string: ["value"],
  invalid_path: ["path", "reason"],
  nul: [],
  unpaired_surrogate: ["code_point"],
  noncharacter: ["code_point"],
  control_character: ["code_point"],
  invisible_character: ["code_point"],
  nonstandard_space: ["code_point"],
  lookalike_character: ["code_point", "character", "looks_like"],
  not_nfc: ["nfc"],
  compatibility_character: ["code_point", "character", "plain", "plain_path"],
  compatibility_character_plain_path_invalid: [
    "code_point",
    "character",
    "plain",
    "plain_path",
    "problem",
  ],
  backslash: [],
  percent_encoded: ["escape"],
  outside_memories: [],
  empty_segment: [],
  dot_segment: ["name"],
  hidden_segment: ["name"],
  space_at_edge: ["name"],
  name_too_long: ["name", "bytes", "limit"],
  path_too_long: ["bytes", "limit"],
  too_deep: ["depth", "limit"],
};

function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([^}]*)\}/g)].map((match) => match[1] as string);
}

type Range = { from: string; to: string; name: string };

function codePoints(table: readonly Range[]): Set<number> {
  const out = new Set<number>();
  for (const { from, to } of table) {
    for (let cp = parseCodePoint(from); cp <= parseCodePoint(to); cp++) out.add(cp);
  }
  return out;
}

function everyCodePoint(test: (ch: string) => boolean): Set<number> {
  const out = new Set<number>();
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue; // not characters; checked on their own
    if (test(String.fromCodePoint(cp))) out.add(cp);
  }
  return out;
}

describe("rules.json", () => {
  it("has the format and the limits the validator reads", () => {
    expect(RULES_DATA.format).toBe(1);
    expect(RULES_DATA.root).toBe("/memories");
    for (const limit of [
      RULES_DATA.max_name_bytes,
      RULES_DATA.max_path_bytes,
      RULES_DATA.max_depth,
      RULES_DATA.max_display_code_points,
    ]) {
      expect(Number.isSafeInteger(limit) && limit > 0).toBe(true);
    }
    expect(RULES_DATA.max_name_bytes).toBeLessThan(RULES_DATA.max_path_bytes);
  });

  it("lists every rule exactly once", () => {
    expect(new Set(RULES_DATA.rules).size).toBe(RULES_DATA.rules.length);
    expect([...RULES_DATA.rules].sort()).toEqual(Object.keys(EVERY_RULE).sort());
    expect(RULES_DATA.rules[0]).toBe("not-a-string");
    expect(RULES_DATA.rules[1]).toBe("nul"); // the validator stops at a NUL
  });

  it("has a reason for every rule but not-a-string, each naming a known rule", () => {
    const reasons = Object.values(RULES_DATA.reasons);
    for (const { rule, text } of reasons) {
      expect(RULES_DATA.rules).toContain(rule);
      expect(text.length).toBeGreaterThan(0);
    }
    const named = new Set(reasons.map(({ rule }) => rule));
    expect(RULES_DATA.rules.filter((rule) => !named.has(rule))).toEqual(["not-a-string"]);
  });

  it("uses in each template exactly the values the validator gives it", () => {
    const templates: Record<string, string> = { ...RULES_DATA.messages };
    for (const [name, { text }] of Object.entries(RULES_DATA.reasons)) templates[name] = text;
    expect(Object.keys(templates).sort()).toEqual(Object.keys(PLACEHOLDERS).sort());
    for (const [name, template] of Object.entries(templates)) {
      expect([name, [...new Set(placeholders(template))].sort()]).toEqual([
        name,
        [...new Set(PLACEHOLDERS[name])].sort(),
      ]);
    }
  });

  it("writes every code point as U+XXXX, every range in order and named", () => {
    const { control, surrogate, noncharacter, invisible, space, lookalike, compatibility_kept } =
      RULES_DATA.characters;
    for (const table of [control, surrogate, noncharacter, invisible, space, compatibility_kept]) {
      let previous = -1;
      for (const { from, to, name } of table) {
        expect(parseCodePoint(from)).toBeGreaterThan(previous);
        expect(parseCodePoint(to)).toBeGreaterThanOrEqual(parseCodePoint(from));
        expect(name.length).toBeGreaterThan(0);
        previous = parseCodePoint(to);
      }
    }
    for (const { code_point, looks_like, name } of lookalike) {
      expect(parseCodePoint(code_point)).toBeGreaterThan(0x7f);
      expect([".", "..", "/", "\\", "%"]).toContain(looks_like);
      expect(name.length).toBeGreaterThan(0);
    }
    expect(() => parseCodePoint("U+12")).toThrow("is not a code point written U+XXXX");
    expect(() => parseCodePoint("0x2024")).toThrow("is not a code point written U+XXXX");
  });

  it("has tables that are exactly what their names say", () => {
    const { control, surrogate, noncharacter, invisible } = RULES_DATA.characters;
    expect(codePoints(control)).toEqual(everyCodePoint((ch) => /\p{Cc}/u.test(ch)));
    expect(codePoints(noncharacter)).toEqual(
      everyCodePoint((ch) => /\p{Noncharacter_Code_Point}/u.test(ch)),
    );
    expect(codePoints(surrogate)).toEqual(
      new Set(Array.from({ length: 0x800 }, (_, i) => 0xd800 + i)),
    );
    // Every invisible character is a format, separator or filler character; none is a joiner
    // needed to spell words or an emoji variation selector.
    const shown = codePoints(invisible);
    for (const cp of [0x200c, 0x200d, 0xfe0e, 0xfe0f, 0x20]) expect(shown.has(cp)).toBe(false);
    // The spaces: every space separator but the plain space.
    const spaces = everyCodePoint((ch) => /\p{Zs}/u.test(ch));
    spaces.delete(0x20);
    expect(codePoints(RULES_DATA.characters.space)).toEqual(spaces);
  });

  it("keeps only compatibility characters whose plain form is no look-alike to write instead", () => {
    // Each kept character is a compatibility character, and its plain (NFKC) form starts with
    // a space, is Thai or Lao AM's two marks, holds conjoining Hangul jamo or the refused
    // fraction slash: what each range's name says.
    const plainForm = (cp: number) => String.fromCodePoint(cp).normalize("NFKC");
    const why = (cp: number): string | undefined => {
      const plain = plainForm(cp);
      if (plain.startsWith(" ")) return "a space and a combining mark";
      if (cp === 0xe33 || cp === 0xeb3) return "two marks";
      if (/[\u1100-\u11ff]/u.test(plain)) return "conjoining jamo";
      if (plain.includes("\u2044")) return "U+2044 FRACTION SLASH";
      return undefined;
    };
    for (const { from, to, name } of RULES_DATA.characters.compatibility_kept) {
      for (let cp = parseCodePoint(from); cp <= parseCodePoint(to); cp++) {
        const ch = String.fromCodePoint(cp);
        expect([cp, ch.normalize("NFKD") !== ch.normalize("NFD")]).toEqual([cp, true]);
        expect([cp, name]).toEqual([cp, expect.stringContaining(why(cp) ?? "?")]);
      }
    }
  });

  it("applies only rules it knows to new names only", () => {
    expect(RULES_DATA.new_names_only).toEqual([
      "nonstandard-space",
      "not-nfc",
      "compatibility-character",
      "space-at-edge",
    ]);
    for (const rule of RULES_DATA.new_names_only) expect(RULES_DATA.rules).toContain(rule);
  });

  it("fills templates once, never reading a value as a placeholder", () => {
    expect(fill("a {x} b {y}", { x: "{y}", y: 2 })).toBe("a {y} b 2");
    expect(() => fill("a {x}", {})).toThrow("no value for {x}");
  });

  it("ships with the package, for other languages to read", () => {
    expect(packageJson.files).toContain("rules.json");
    expect(packageJson.exports["./rules.json"]).toBe("./rules.json");
  });
});
