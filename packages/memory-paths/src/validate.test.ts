import { describe, expect, it } from "vitest";
import { MEMORY_PATH_RULES, MemoryPathError, type MemoryPathRule } from "./errors.js";
import { utf8ByteLength } from "./text.js";
import {
  checkMemoryPath,
  isValidMemoryPath,
  MAX_DEPTH,
  MAX_NAME_BYTES,
  MAX_PATH_BYTES,
  validateMemoryPath,
} from "./validate.js";

function ruleOf(path: unknown): MemoryPathRule | null {
  return checkMemoryPath(path)?.rule ?? null;
}

describe("valid paths", () => {
  it.each([
    "/memories",
    "/memories/notes.md",
    "/memories/projects/acme/meeting notes 2025-01-02.md",
    "/memories/a/b/c",
  ])("accepts %s", (path) => {
    expect(validateMemoryPath(path)).toBe(path);
    expect(isValidMemoryPath(path)).toBe(true);
  });

  it.each([
    ["a trailing dot", "/memories/notes."],
    ["dots inside a name", "/memories/a..b/c...d"],
    ["a percent sign not followed by two hex digits", "/memories/100%/50%off/%g1"],
    ["spaces and punctuation", "/memories/q&a (draft) #1 ~ [x] {y}: z; 'q' \"r\" * ? < > |"],
    ["composed accents (NFC)", "/memories/caf\u00e9/r\u00e9sum\u00e9.md"],
    ["non-Latin letters", "/memories/заметки/日本語/ملاحظات.md"],
    ["zero width joiner in an emoji sequence", "/memories/family 👨\u200d👩\u200d👧.md"],
    ["zero width non-joiner in a Persian word", "/memories/می\u200cخواهم.md"],
    ["an emoji presentation selector", "/memories/\u2764\ufe0f.md"],
    ["private-use characters", "/memories/\ue000\u{f0000}"],
    ["a name that is exactly memories", "/memories/memories"],
    // Compatibility characters whose plain form is no look-alike to write instead (README).
    ["a spacing accent", "/memories/caf\u00b4e \u309b.md"],
    ["Thai with SARA AM", "/memories/\u0e04\u0e33.md"],
    ["Hangul compatibility jamo", "/memories/\u314b\u314b.md"],
    ["a vulgar fraction", "/memories/\u00bd cup.md"],
    ["an Angstrom written as \u00c5", "/memories/1 \u00c5.md"],
  ])("accepts %s", (_label, path) => {
    expect(checkMemoryPath(path)).toBeNull();
  });
});

describe("traversal and encoding attacks", () => {
  // Each attack form, and the rule that must refuse it.
  const attacks: Array<[string, unknown, MemoryPathRule]> = [
    ["parent segment", "/memories/../etc/passwd", "dot-segment"],
    ["parent segment at the end", "/memories/a/..", "dot-segment"],
    ["current segment", "/memories/./notes.md", "dot-segment"],
    ["parent segment in the middle", "/memories/a/../../b", "dot-segment"],
    ["relative path", "../memories/notes.md", "outside-memories"],
    ["absolute path outside", "/etc/passwd", "outside-memories"],
    ["sibling with the root as prefix", "/memories_backup/x", "outside-memories"],
    ["root prefix without separator", "/memoriesX", "outside-memories"],
    ["missing leading slash", "memories/notes.md", "outside-memories"],
    ["double leading slash", "//memories/notes.md", "outside-memories"],
    ["upper-case root", "/Memories/notes.md", "outside-memories"],
    ["empty string", "", "outside-memories"],
    ["Windows drive path", "C:/memories/x", "outside-memories"],
    ["file URL", "file:///memories/x", "outside-memories"],
    ["backslash separator", "/memories\\..\\etc", "backslash"],
    ["backslash inside a name", "/memories/a\\b", "backslash"],
    ["UNC path", "\\\\server\\share", "backslash"],
    ["encoded dot segments", "/memories/%2e%2e/etc", "percent-encoded"],
    ["encoded dot segments, upper case", "/memories/%2E%2E/etc", "percent-encoded"],
    ["encoded dot segments, mixed case", "/memories/%2e%2E/x", "percent-encoded"],
    ["encoded slash", "/memories/a%2f..%2fb", "percent-encoded"],
    ["encoded slash, upper case", "/memories/a%2Fb", "percent-encoded"],
    ["encoded backslash", "/memories/a%5c..%5cb", "percent-encoded"],
    ["encoded backslash, upper case", "/memories/a%5Cb", "percent-encoded"],
    ["double-encoded dot", "/memories/%252e%252e/x", "percent-encoded"],
    ["overlong UTF-8 dot", "/memories/%c0%ae%c0%ae/x", "percent-encoded"],
    ["encoded NUL", "/memories/a%00.md", "percent-encoded"],
    ["NUL byte", "/memories/notes.md\u0000.txt", "nul"],
    ["NUL byte alone", "\u0000", "nul"],
    ["NUL outranks everything", "../\u0000\\%2e", "nul"],
    ["newline", "/memories/a\nb", "control-character"],
    ["carriage return", "/memories/a\rb", "control-character"],
    ["tab", "/memories/a\tb", "control-character"],
    ["escape sequence", "/memories/\u001b[31mred", "control-character"],
    ["DEL", "/memories/a\u007fb", "control-character"],
    ["C1 control NEL", "/memories/a\u0085b", "control-character"],
    ["C1 control CSI", "/memories/a\u009bb", "control-character"],
    ["right-to-left override", "/memories/gpj.\u202eexe.md", "invisible-character"],
    ["zero width space", "/memories/no\u200btes.md", "invisible-character"],
    ["byte order mark", "/memories/\ufeffnotes.md", "invisible-character"],
    ["line separator", "/memories/a\u2028b", "invisible-character"],
    ["bidi isolate", "/memories/a\u2066b", "invisible-character"],
    ["tag characters (hidden text)", "/memories/a\u{e0041}\u{e0042}", "invisible-character"],
    ["soft hyphen", "/memories/pass\u00adwords", "invisible-character"],
    ["Hangul filler", "/memories/\u3164", "invisible-character"],
    ["fullwidth slash", "/memories/a\uff0f..\uff0fb", "lookalike-character"],
    ["fullwidth dots", "/memories/\uff0e\uff0e/x", "lookalike-character"],
    ["two dot leader", "/memories/\u2025/x", "lookalike-character"],
    ["fullwidth backslash", "/memories/a\uff3cb", "lookalike-character"],
    ["division slash", "/memories/a\u2215b", "lookalike-character"],
    ["fullwidth percent escape", "/memories/\uff052e\uff052e", "lookalike-character"],
    ["lone high surrogate", "/memories/a\ud800b", "invalid-unicode"],
    ["lone low surrogate", "/memories/\udc00", "invalid-unicode"],
    ["reversed surrogate pair", "/memories/\udc00\ud800", "invalid-unicode"],
    ["noncharacter", "/memories/a\ufffe", "invalid-unicode"],
    ["trailing slash", "/memories/notes/", "empty-segment"],
    ["root with trailing slash", "/memories/", "empty-segment"],
    ["doubled slash", "/memories//notes.md", "empty-segment"],
    ["hidden file", "/memories/.env", "hidden-segment"],
    ["hidden directory", "/memories/.git/config", "hidden-segment"],
    ["three dots", "/memories/.../x", "hidden-segment"],
    ["decomposed accent", "/memories/cafe\u0301.md", "not-nfc"],
    ["decomposed Hangul", "/memories/\u1100\u1161.md", "not-nfc"],
    ["fullwidth letter", "/memories/\uff21.md", "compatibility-character"],
    ["ligature", "/memories/\ufb01le.md", "compatibility-character"],
    [
      "halfwidth katakana",
      "/memories/\uff76\uff9e\uff72\uff84\uff9e.md",
      "compatibility-character",
    ],
    ["fullwidth digits", "/memories/\uff12\uff10\uff12\uff16.md", "compatibility-character"],
    ["Angstrom sign (canonical)", "/memories/\u212b.md", "not-nfc"],
    ["trailing space", "/memories/notes.md ", "space-at-edge"],
    ["leading space", "/memories/ notes.md", "space-at-edge"],
    ["space at the end of a directory", "/memories/projects /notes.md", "space-at-edge"],
    ["ideographic space", "/memories/a\u3000b.md", "nonstandard-space"],
    ["no-break space", "/memories/a\u00a0b.md", "nonstandard-space"],
    ["narrow no-break space", "/memories/a\u202fb.md", "nonstandard-space"],
    ["not a string (number)", 42, "not-a-string"],
    ["not a string (null)", null, "not-a-string"],
    ["not a string (missing)", undefined, "not-a-string"],
    ["not a string (array)", ["/memories", "x"], "not-a-string"],
    ["not a string (object)", { toString: () => "/memories/x" }, "not-a-string"],
  ];

  it("covers at least 20 distinct attack forms", () => {
    expect(new Set(attacks.map(([label]) => label)).size).toBe(attacks.length);
    expect(attacks.length).toBeGreaterThanOrEqual(20);
  });

  it.each(attacks)("refuses %s", (_label, path, rule) => {
    const error = checkMemoryPath(path);
    expect(error).toBeInstanceOf(MemoryPathError);
    expect(error?.rule).toBe(rule);
    expect(error?.path).toBe(path);
    expect(() => validateMemoryPath(path)).toThrow(MemoryPathError);
    expect(isValidMemoryPath(path)).toBe(false);
  });

  it("has an attack for every rule", () => {
    const covered = new Set(attacks.map(([, , rule]) => rule));
    const limitRules = new Set(["name-too-long", "path-too-long", "too-deep"]);
    const missing = MEMORY_PATH_RULES.filter((rule) => !covered.has(rule) && !limitRules.has(rule));
    expect(missing).toEqual([]);
  });
});

describe("limits, counted in UTF-8 bytes", () => {
  const ascii = (n: number) => "a".repeat(n);
  // "é" is 2 bytes, "€" 3 bytes and "😀" 4 bytes (2 UTF-16 code units) in UTF-8.
  it("counts names in bytes, not characters or code units", () => {
    expect(utf8ByteLength("é€😀")).toBe(9);
  });

  it.each([
    ["ASCII", ascii(128), ascii(129)],
    ["2-byte characters", "é".repeat(64), `${"é".repeat(64)}a`],
    ["3-byte characters", `${"€".repeat(42)}aa`, `${"€".repeat(43)}`],
    ["4-byte characters", "😀".repeat(32), `${"😀".repeat(32)}a`],
  ])("a name of 128 bytes passes and 129 bytes fails (%s)", (_label, ok, over) => {
    expect(utf8ByteLength(ok)).toBe(MAX_NAME_BYTES);
    expect(utf8ByteLength(over)).toBe(MAX_NAME_BYTES + 1);
    expect(checkMemoryPath(`/memories/${ok}`)).toBeNull();
    expect(ruleOf(`/memories/${over}`)).toBe("name-too-long");
  });

  it("a 4-byte character cannot be split to fit: 127 bytes + one emoji is 131", () => {
    expect(ruleOf(`/memories/${ascii(127)}😀`)).toBe("name-too-long");
  });

  // "/memories/" is 10 bytes; two 115-byte names and a slash make 10 + 115 + 1 + 115 = 241.
  it.each([
    ["ASCII", `/memories/${ascii(115)}/${ascii(114)}`, `/memories/${ascii(115)}/${ascii(115)}`],
    [
      "multi-byte",
      `/memories/${"é".repeat(57)}a/${"€".repeat(38)}`,
      `/memories/${"é".repeat(57)}a/${"€".repeat(38)}a`,
    ],
    [
      "4-byte characters",
      `/memories/${"😀".repeat(28)}a/${"😀".repeat(29)}`,
      `/memories/${"😀".repeat(28)}a/${"😀".repeat(29)}a`,
    ],
  ])("a path of 240 bytes passes and 241 bytes fails (%s)", (_label, ok, over) => {
    expect(utf8ByteLength(ok)).toBe(MAX_PATH_BYTES);
    expect(utf8ByteLength(over)).toBe(MAX_PATH_BYTES + 1);
    expect(checkMemoryPath(ok)).toBeNull();
    expect(ruleOf(over)).toBe("path-too-long");
  });

  it("16 levels pass and 17 fail (/memories/a is one level)", () => {
    const levels = (n: number, name: string) => `/memories${`/${name}`.repeat(n)}`;
    expect(checkMemoryPath(levels(16, "a"))).toBeNull();
    expect(ruleOf(levels(17, "a"))).toBe("too-deep");
    expect(checkMemoryPath(levels(16, "é"))).toBeNull();
    expect(ruleOf(levels(17, "é"))).toBe("too-deep");
    expect(MAX_DEPTH).toBe(16);
  });

  it("16 levels of multi-byte names reaching exactly 240 bytes pass; one byte more fails", () => {
    // 10 bytes of "/memories/", 15 inner slashes, 15 names of 13 bytes and one of 20 bytes.
    const names = [...Array.from({ length: 15 }, () => "€€€€a"), "😀😀😀😀éé"];
    const path = `/memories/${names.join("/")}`;
    expect(utf8ByteLength(path)).toBe(240);
    expect(checkMemoryPath(path)).toBeNull();
    expect(ruleOf(`${path}a`)).toBe("path-too-long");
  });
});

describe("messages name the path and the rule, and say what to do", () => {
  it.each<[unknown, string]>([
    [42, "Invalid memory path: expected a string such as /memories/notes.md, got a number."],
    [undefined, "Invalid memory path: expected a string such as /memories/notes.md, got nothing."],
    [
      "/memories/a\u0000b",
      "Invalid memory path /memories/a<U+0000>b: it contains a NUL character (U+0000), which is never allowed. Remove it.",
    ],
    [
      "/memories/a\ud800",
      "Invalid memory path /memories/a<U+D800>: it contains U+D800, an unpaired surrogate, which is not valid Unicode text. Use only complete characters.",
    ],
    [
      "/memories/a\uffff",
      "Invalid memory path /memories/a<U+FFFF>: it contains U+FFFF, a Unicode noncharacter, which is not meant for text exchange. Remove it.",
    ],
    [
      "/memories/a\nb",
      "Invalid memory path /memories/a<U+000A>b: it contains the control character U+000A. Names may not contain control characters such as tabs, newlines or escape codes; remove it.",
    ],
    [
      "/memories/\u202etxt.md",
      "Invalid memory path /memories/<U+202E>txt.md: it contains U+202E, an invisible or text-direction character that can make a path look like a different one. Remove it.",
    ],
    [
      "/memories/a\uff0fb",
      'Invalid memory path /memories/a\uff0fb: it contains U+FF0F (\uff0f), a look-alike of "/" that some systems convert into "/". Use plain ASCII "/" between names and plain "." in names.',
    ],
    [
      "/memories\\x",
      'Invalid memory path /memories\\x: it contains a backslash (\\). Memory paths separate names with "/" only; replace the backslash with "/" or remove it.',
    ],
    [
      "/memories/%2E%2e",
      "Invalid memory path /memories/%2E%2e: it contains the percent-escape %2E. Memory paths are used exactly as written and never URL-decoded, so write the character itself instead of a %XX escape.",
    ],
    [
      "/memories_backup/x",
      "Invalid memory path /memories_backup/x: memory paths must be /memories or start with /memories/, for example /memories/notes.md.",
    ],
    [
      "",
      'Invalid memory path "": memory paths must be /memories or start with /memories/, for example /memories/notes.md.',
    ],
    [
      "/memories/a//b",
      'Invalid memory path /memories/a//b: it contains an empty name (a doubled "/" or a "/" at the end). Remove the extra "/".',
    ],
    [
      "/memories/a/../b",
      'Invalid memory path /memories/a/../b: it contains a ".." segment, and relative segments are not allowed. Write the full path from /memories without "." or ".." segments.',
    ],
    [
      "/memories/.ssh/id",
      'Invalid memory path /memories/.ssh/id: the name .ssh starts with ".", and hidden names are not allowed. Choose a name that does not start with a dot.',
    ],
    [
      `/memories/${"é".repeat(65)}`,
      `Invalid memory path /memories/${"é".repeat(65)}: the name ${"é".repeat(65)} is 130 bytes long, over the limit of 128 bytes for one name (counted in UTF-8). Choose a shorter name.`,
    ],
    [
      `/memories/${"a".repeat(120)}/${"b".repeat(120)}`,
      `Invalid memory path /memories/${"a".repeat(120)}/${"b".repeat(120)}: it is 251 bytes long, over the limit of 240 bytes for a whole path (counted in UTF-8). Use shorter names or fewer levels.`,
    ],
    [
      `/memories${"/x".repeat(20)}`,
      `Invalid memory path /memories${"/x".repeat(20)}: it is 20 levels below /memories, over the limit of 16 levels. Use a flatter layout with fewer nested directories.`,
    ],
  ])("%j", (path, message) => {
    expect(checkMemoryPath(path)?.message).toBe(message);
  });

  it.each([
    [
      "/memories/\uff21.md",
      'Invalid memory path /memories/\uff21.md: it contains U+FF21 (\uff21), a compatibility form that stands for "A" (some systems turn it into "A") but makes a different name. Write the path with plain characters instead: /memories/A.md',
    ],
    [
      // Every compatibility character is replaced, and the result composed (NFC).
      "/memories/\uff76\uff9e\uff72\uff84\uff9e \u2460 \ufb01.md",
      'Invalid memory path /memories/\uff76\uff9e\uff72\uff84\uff9e \u2460 \ufb01.md: it contains U+FF76 (\uff76), a compatibility form that stands for "\u30ab" (some systems turn it into "\u30ab") but makes a different name. Write the path with plain characters instead: /memories/\u30ac\u30a4\u30c9 1 fi.md',
    ],
    [
      "/memories/\u2026md",
      'Invalid memory path /memories/\u2026md: it contains U+2026 (\u2026), a compatibility form that stands for "..." (some systems turn it into "...") but makes a different name. Written with plain characters the path would be /memories/...md, which is not valid either: the name ...md starts with ".", and hidden names are not allowed. Choose a name that does not start with a dot.',
    ],
  ])("words a compatibility character with what to send instead: %j", (path, message) => {
    expect(checkMemoryPath(path)?.message).toBe(message);
  });

  it("reports the rule that comes first when several are broken", () => {
    expect(ruleOf("/memories/a\n/../\\")).toBe("control-character");
    expect(ruleOf("/etc/../x")).toBe("outside-memories");
    expect(ruleOf("/memories/.a/../b")).toBe("hidden-segment");
    expect(ruleOf("/memories/../.a")).toBe("dot-segment");
    expect(ruleOf(`/memories${"/x".repeat(17)}/${"y".repeat(129)}`)).toBe("name-too-long");
    expect(ruleOf(`/memories${`/${"x".repeat(20)}`.repeat(17)}`)).toBe("path-too-long");
  });

  it("names the leftmost offending character of the first rule", () => {
    expect(checkMemoryPath("/memories/\u200b\u202e")?.message).toContain("it contains U+200B,");
    expect(checkMemoryPath("/memories/\u202e\t")?.message).toContain("control character U+0009");
  });

  it("cuts very long paths in messages and never carries raw control characters", () => {
    const path = `/memories/${"\n".repeat(600)}`;
    const message = checkMemoryPath(path)?.message ?? "";
    expect(message).not.toMatch(/\p{Cc}/u);
    expect(message).toContain("…:");
    // "/memories/" and 502 newlines make the first 512 code points shown.
    expect(message.split("<U+000A>").length - 1).toBe(502);
  });
});

describe("look-alike names an older version let in", () => {
  it.each([
    ["decomposed accent", "/memories/cafe\u0301.md"],
    ["trailing space", "/memories/notes.md "],
    ["ideographic space", "/memories/a\u3000b.md"],
    ["fullwidth letter", "/memories/\uff21.md"],
    ["ligature", "/memories/\ufb01le.md"],
  ])("names an existing file (view, edit, delete) but never a new one: %s", (_label, path) => {
    expect(checkMemoryPath(path)).not.toBeNull();
    expect(checkMemoryPath(path, { existing: true })).toBeNull();
  });

  it("still applies every other rule to an existing file", () => {
    expect(checkMemoryPath("/memories/../x ", { existing: true })?.rule).toBe("dot-segment");
    expect(checkMemoryPath("/memories/a\u3000\u202e", { existing: true })?.rule).toBe(
      "invisible-character",
    );
    expect(checkMemoryPath("/memories/.e\u0301 ", { existing: true })?.rule).toBe("hidden-segment");
  });
});
