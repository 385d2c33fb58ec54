import { codePointLabel, isUnsafeToShow } from "./characters.js";
import { DISPLAY_CODE_POINTS } from "./rules.js";

/**
 * The number of bytes of `text` in UTF-8, computed without allocating. An unpaired surrogate
 * counts as 3 bytes (the size of the U+FFFD that replaces it when encoded).
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Orders two strings by Unicode code point, which is also the order of their UTF-8 bytes and
 * of Python's `str` comparison. JavaScript's default `<` and `Array.prototype.sort` compare
 * UTF-16 code units instead, which puts astral characters (U+10000 and up, e.g. emoji) before
 * U+E000..U+FFFF. Use this as a sort comparator: `names.sort(compareCodePoints)`.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

// Surrogates (U+D800..U+DFFF) stand for code points above U+FFFF, so they rank after every
// other code unit; U+E000..U+FFFF move down to make room.
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/** The longest path shown in full in a message, in code points. */
export const MAX_DISPLAY_CODE_POINTS: number = DISPLAY_CODE_POINTS;

/**
 * How a path (or a name) is shown inside an error message: as written, except that control,
 * invisible, noncharacter and unpaired-surrogate code points are replaced by `<U+XXXX>` (so a
 * message never carries a raw newline or a text-direction override), the empty string shows
 * as `""`, and anything longer than 512 code points is cut there and ends with `…`.
 */
export function displayPath(path: string): string {
  if (path.length === 0) return '""';
  let out = "";
  let count = 0;
  for (const ch of path) {
    if (count === MAX_DISPLAY_CODE_POINTS) return `${out}…`;
    const cp = ch.codePointAt(0) as number;
    out += isUnsafeToShow(cp) ? `<${codePointLabel(cp)}>` : ch;
    count++;
  }
  return out;
}
