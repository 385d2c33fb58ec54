/**
 * A unified diff (as the `diff` tool sends it) as lines a view can colour: added, removed,
 * unchanged, and the hunk headers, each with its line numbers in the old and new text.
 */

export type DiffLineKind = "add" | "del" | "same" | "hunk" | "note";

export interface DiffLine {
  readonly kind: DiffLineKind;
  /** The line's text without its +, - or space. */
  readonly text: string;
  /** Its number in the older text (removed and unchanged lines). */
  readonly oldLine?: number;
  /** Its number in the newer text (added and unchanged lines). */
  readonly newLine?: number;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/;

/** The lines of `unified` from its first hunk on; the file headers before it are dropped. */
export function parseUnifiedDiff(unified: string): DiffLine[] {
  const lines: DiffLine[] = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  for (const line of unified.split("\n")) {
    const hunk = HUNK.exec(line);
    if (hunk !== null) {
      inHunk = true;
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      lines.push({ kind: "hunk", text: line });
      continue;
    }
    if (!inHunk) continue;
    if (line.startsWith("+")) {
      lines.push({ kind: "add", text: line.slice(1), newLine: newLine++ });
    } else if (line.startsWith("-")) {
      lines.push({ kind: "del", text: line.slice(1), oldLine: oldLine++ });
    } else if (line.startsWith(" ")) {
      lines.push({ kind: "same", text: line.slice(1), oldLine: oldLine++, newLine: newLine++ });
    } else if (line.startsWith("\\")) {
      // "\ No newline at end of file"
      lines.push({ kind: "note", text: line.slice(2) });
    }
  }
  return lines;
}
