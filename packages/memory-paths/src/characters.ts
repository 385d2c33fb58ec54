/**
 * Character classes the path rules refuse, as explicit code point tables.
 *
 * The tables are written out rather than taken from Unicode property escapes (`\p{Cf}`) on
 * purpose: property data changes between Unicode versions (Node 20 ships Unicode 15+, Python
 * 3.11 ships 14.0), and the Python port must refuse exactly the same paths. Every table here
 * is fixed and mirrored 1:1 by the port.
 */

/** Unicode general category Cc: C0 controls, DEL and C1 controls. Stable across versions. */
export function isControl(cp: number): boolean {
  return cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f);
}

/** A UTF-16 surrogate code unit seen on its own (not valid Unicode text, no UTF-8 form). */
export function isSurrogate(cp: number): boolean {
  return cp >= 0xd800 && cp <= 0xdfff;
}

/** Unicode noncharacters: U+FDD0..U+FDEF and the last two code points of every plane. */
export function isNoncharacter(cp: number): boolean {
  return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
}

/**
 * Invisible and text-direction characters: they render as nothing (or reorder what follows),
 * so a path holding one can look exactly like another path. Ranges are inclusive.
 *
 * Deliberately NOT listed: U+200C ZERO WIDTH NON-JOINER and U+200D ZERO WIDTH JOINER (needed
 * to spell Persian and Indic words and emoji sequences), U+FE00..U+FE0F variation selectors
 * (emoji presentation), and visible space characters.
 */
export const INVISIBLE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00ad, 0x00ad], // SOFT HYPHEN
  [0x061c, 0x061c], // ARABIC LETTER MARK
  [0x115f, 0x1160], // HANGUL CHOSEONG / JUNGSEONG FILLER
  [0x180e, 0x180e], // MONGOLIAN VOWEL SEPARATOR
  [0x200b, 0x200b], // ZERO WIDTH SPACE
  [0x200e, 0x200f], // LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK
  [0x2028, 0x2029], // LINE SEPARATOR, PARAGRAPH SEPARATOR
  [0x202a, 0x202e], // bidi embeddings and overrides (LRE, RLE, PDF, LRO, RLO)
  [0x2060, 0x2064], // WORD JOINER, invisible function application / times / separator / plus
  [0x2066, 0x2069], // bidi isolates (LRI, RLI, FSI, PDI)
  [0x206a, 0x206f], // deprecated format characters
  [0x3164, 0x3164], // HANGUL FILLER
  [0xfeff, 0xfeff], // ZERO WIDTH NO-BREAK SPACE (byte order mark)
  [0xffa0, 0xffa0], // HALFWIDTH HANGUL FILLER
  [0xfff9, 0xfffb], // interlinear annotation anchors
  [0x1d173, 0x1d17a], // musical symbol format characters
  [0xe0000, 0xe007f], // tag characters (used to hide text from people)
  [0xe0100, 0xe01ef], // variation selectors supplement
];

export function isInvisible(cp: number): boolean {
  for (const [low, high] of INVISIBLE_RANGES) {
    if (cp >= low && cp <= high) return true;
  }
  return false;
}

/**
 * Look-alikes of the characters that give a path its structure: `.`, `/`, `\` and `%`. Each
 * either turns into that ASCII character under Unicode compatibility normalisation (NFKC,
 * which some file systems, URL parsers and Windows "best fit" code pages apply) or is drawn
 * as a slash. Refusing them means no later layer can turn a valid name into a separator, a
 * dot segment or a percent-escape.
 */
export const LOOKALIKES: ReadonlyMap<number, string> = new Map([
  [0x2024, "."], // ONE DOT LEADER
  [0x2025, ".."], // TWO DOT LEADER
  [0xfe30, ".."], // PRESENTATION FORM FOR VERTICAL TWO DOT LEADER
  [0xfe52, "."], // SMALL FULL STOP
  [0xff0e, "."], // FULLWIDTH FULL STOP
  [0x2044, "/"], // FRACTION SLASH
  [0x2100, "/"], // ACCOUNT OF (a/c)
  [0x2101, "/"], // ADDRESSED TO THE SUBJECT (a/s)
  [0x2105, "/"], // CARE OF (c/o)
  [0x2106, "/"], // CADA UNA (c/u)
  [0x2215, "/"], // DIVISION SLASH
  [0x29f8, "/"], // BIG SOLIDUS
  [0xff0f, "/"], // FULLWIDTH SOLIDUS
  [0x29f5, "\\"], // REVERSE SOLIDUS OPERATOR
  [0x29f9, "\\"], // BIG REVERSE SOLIDUS
  [0xfe68, "\\"], // SMALL REVERSE SOLIDUS
  [0xff3c, "\\"], // FULLWIDTH REVERSE SOLIDUS
  [0xfe6a, "%"], // SMALL PERCENT SIGN
  [0xff05, "%"], // FULLWIDTH PERCENT SIGN
]);

/** `U+XXXX`, upper-case hex, at least four digits. */
export function codePointLabel(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Whether a code point is replaced by its `<U+XXXX>` label when a path is shown in a message. */
export function isUnsafeToShow(cp: number): boolean {
  return isControl(cp) || isSurrogate(cp) || isNoncharacter(cp) || isInvisible(cp);
}
