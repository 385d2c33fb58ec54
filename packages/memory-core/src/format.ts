// Text formatting shared by the commands. Every function here is specified exactly (the
// Python port must produce the same characters), so none of them uses floating point.

/** Width of the right-aligned line-number column, as in the Anthropic SDKs. */
export const LINE_NUMBER_WIDTH = 6;

/**
 * The lines of a text. A line ends at LF (`\n`) only; a CR (`\r`) stays part of its line.
 * A final LF ends the last line and does not start an empty one, so `"a\nb\n"` and `"a\nb"`
 * both have two lines, `"a\n\n"` has two (`"a"` and `""`), and `""` has none.
 */
export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** `     7\tline`: the number right-aligned in 6 columns, a tab, the line. */
export function numberedLine(lineNumber: number, line: string): string {
  return `${String(lineNumber).padStart(LINE_NUMBER_WIDTH, " ")}\t${line}`;
}

/** The length of `text` in Unicode code points (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i + 1 < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

const SIZE_UNITS = ["B", "K", "M", "G"] as const;

/**
 * A byte count as the Anthropic TypeScript SDK shows it (`0B`, `512B`, `1K`, `5.5K`,
 * `1.2M`), computed with integers only:
 *
 * 1. The unit is the largest of B, K, M, G (powers of 1024) not above the count.
 * 2. If the count is a whole number of units, it is shown with no decimals (`2K`).
 * 3. Otherwise it is shown with one decimal, rounded half up: tenths =
 *    floor((20 * bytes + unit) / (2 * unit)), shown as `tenths / 10` "." `tenths % 10`.
 *    So 1280 bytes (1.25K) is `1.3K` (the TypeScript SDK's `toFixed(1)` gives the same;
 *    Python's `:.1f` would round to even and give `1.2K`), and 2047 bytes is `2.0K`.
 */
export function humanSize(bytes: number): string {
  let index = 0;
  let unit = 1;
  while (index < SIZE_UNITS.length - 1 && bytes >= unit * 1024) {
    unit *= 1024;
    index++;
  }
  const suffix = SIZE_UNITS[index];
  if (bytes % unit === 0) return `${bytes / unit}${suffix}`;
  const tenths = floorDivide(20 * bytes + unit, 2 * unit);
  return `${floorDivide(tenths, 10)}.${tenths % 10}${suffix}`;
}

// Exact integer division for non-negative safe integers (no rounding of a float quotient).
function floorDivide(dividend: number, divisor: number): number {
  return (dividend - (dividend % divisor)) / divisor;
}
