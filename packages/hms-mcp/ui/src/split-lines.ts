/**
 * A file's lines as Claude's memory tool numbers them (`view`; the rule is
 * `splitLines` in packages/memory-core/src/format.ts): a line ends at LF only, and a final LF
 * ends the last line rather than starting an empty one. So "a\nb\n" has two lines, "a\n\n" has
 * two ("a" and ""), and "" has none.
 */

export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The offset just after the last character of 1-based `line` (before its LF). */
export function endOfLine(text: string, line: number): number {
  let offset = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf("\n", offset);
    if (next === -1) return text.length;
    offset = next + 1;
  }
  const end = text.indexOf("\n", offset);
  return end === -1 ? text.length : end;
}
