/**
 * Character classes the path rules refuse, as explicit code point tables.
 *
 * The tables (in `rules.json`, read by `rules.ts`) are written out rather than taken from
 * Unicode property escapes (`\p{Cf}`) on purpose: property data changes between Unicode
 * versions (Node 20 ships Unicode 15+, Python 3.11 ships 14.0), and the Python port, which
 * reads the same file, must refuse exactly the same paths.
 */
import {
  bmpLookup,
  COMPATIBILITY_KEPT_TABLE,
  CONTROL_RANGES,
  type CodePointRange,
  INVISIBLE_TABLE,
  LOOKALIKE_TABLE,
  NONCHARACTER_RANGES,
  SPACE_TABLE,
  SURROGATE_RANGES,
} from "./rules.js";

/** Unicode general category Cc: C0 controls, DEL and C1 controls. Stable across versions. */
export const isControl: (cp: number) => boolean = bmpLookup(CONTROL_RANGES);

/** A UTF-16 surrogate code unit seen on its own (not valid Unicode text, no UTF-8 form). */
export const isSurrogate: (cp: number) => boolean = bmpLookup(SURROGATE_RANGES);

/** Unicode noncharacters: U+FDD0..U+FDEF and the last two code points of every plane. */
export const isNoncharacter: (cp: number) => boolean = bmpLookup(NONCHARACTER_RANGES);

/**
 * Invisible and text-direction characters: they render as nothing (or reorder what follows),
 * so a path holding one can look exactly like another path. Ranges are inclusive; each is
 * named in `rules.json`.
 *
 * Deliberately NOT listed: U+200C ZERO WIDTH NON-JOINER and U+200D ZERO WIDTH JOINER (needed
 * to spell Persian and Indic words and emoji sequences), U+FE00..U+FE0F variation selectors
 * (emoji presentation), and visible space characters.
 */
export const INVISIBLE_RANGES: ReadonlyArray<CodePointRange> = INVISIBLE_TABLE;

export const isInvisible: (cp: number) => boolean = bmpLookup(INVISIBLE_RANGES);

/**
 * Space characters other than U+0020 (Unicode category Zs, which has not changed since
 * Unicode 4.0): each looks like a plain space, so `a\u3000b.md` and `a b.md` would list as
 * the same name. Each is named in `rules.json`.
 */
export const NONSTANDARD_SPACE_RANGES: ReadonlyArray<CodePointRange> = SPACE_TABLE;

export const isNonstandardSpace: (cp: number) => boolean = bmpLookup(NONSTANDARD_SPACE_RANGES);

/**
 * Look-alikes of the characters that give a path its structure: `.`, `/`, `\` and `%`. Each
 * either turns into that ASCII character under Unicode compatibility normalisation (NFKC,
 * which some file systems, URL parsers and Windows "best fit" code pages apply) or is drawn
 * as a slash. Refusing them means no later layer can turn a valid name into a separator, a
 * dot segment or a percent-escape. Each is named in `rules.json`.
 */
export const LOOKALIKES: ReadonlyMap<number, string> = LOOKALIKE_TABLE;

/**
 * Compatibility characters a new name may hold all the same (the `compatibility_kept` table
 * of `rules.json`): their plain (NFKC) form is a space and a combining mark, two marks where
 * Thai and Lao write one, conjoining Hangul jamo that join into syllables, or holds the
 * refused U+2044 FRACTION SLASH. Each range is named in `rules.json`.
 */
export const COMPATIBILITY_KEPT_RANGES: ReadonlyArray<CodePointRange> = COMPATIBILITY_KEPT_TABLE;

const isCompatibilityKept = bmpLookup(COMPATIBILITY_KEPT_RANGES);

/**
 * The plain form of `ch` (one code point) when it is a compatibility character a new name may
 * not hold: one whose compatibility decomposition (NFKD) differs from its canonical one (NFD),
 * such as fullwidth `Ａ` (plain `A`), `ﬁ` (`fi`), halfwidth `ｶ` (`カ`) or `①` (`1`).
 * Undefined for any other character. Uses this runtime's Unicode data (see the README).
 */
export function compatibilityForm(ch: string): string | undefined {
  const cp = ch.codePointAt(0) as number;
  if (cp < 0xa0 || isCompatibilityKept(cp)) return undefined;
  return ch.normalize("NFKD") === ch.normalize("NFD") ? undefined : ch.normalize("NFKC");
}

/** `U+XXXX`, upper-case hex, at least four digits. */
export function codePointLabel(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Whether a code point is replaced by its `<U+XXXX>` label when a path is shown in a message. */
export function isUnsafeToShow(cp: number): boolean {
  return isControl(cp) || isSurrogate(cp) || isNoncharacter(cp) || isInvisible(cp);
}
