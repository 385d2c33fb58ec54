/**
 * An older version's whole text, rebuilt from the file as it is now and the diff from that
 * version to now (the server gives diffs, not old texts): what "Restore this version" brings
 * back, shown before the person restores it. The result is checked against the version's
 * size and, where the browser computes SHA-256 (a secure context), its hash; a text that does
 * not match is never shown.
 */

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** `text` cut into lines that keep their LF (the last may have none). */
function linesWithEnds(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf("\n", start);
    if (end === -1) {
      lines.push(text.slice(start));
      break;
    }
    lines.push(text.slice(start, end + 1));
    start = end + 1;
  }
  return lines;
}

/**
 * The older text of `unified` (a diff from it to `newer`, as jsdiff's createTwoFilesPatch
 * writes it), or undefined when the diff does not fit `newer`.
 */
export function olderText(newer: string, unified: string): string | undefined {
  if (unified === "") return newer;
  const current = linesWithEnds(newer);
  const older: string[] = [];
  let at = 0; // the next line of `current` not yet taken
  // Hunk lines as [kind, text with its LF]; "\ No newline at end of file" takes the LF off
  // the line before it.
  const diffLines = unified.split("\n");
  let index = diffLines.findIndex((line) => HUNK.test(line));
  if (index === -1) return undefined;
  while (index < diffLines.length) {
    const hunk = HUNK.exec(diffLines[index] as string);
    if (hunk === null) {
      index++;
      continue;
    }
    const newStart = Number(hunk[3]);
    const newCount = hunk[4] === undefined ? 1 : Number(hunk[4]);
    // A hunk of no new lines starts after line newStart; others at it.
    const first = newCount === 0 ? newStart : newStart - 1;
    if (first < at || first > current.length) return undefined;
    older.push(...current.slice(at, first));
    at = first;
    index++;
    const body: [string, string][] = [];
    while (index < diffLines.length && !HUNK.test(diffLines[index] as string)) {
      const line = diffLines[index] as string;
      if (line.startsWith("\\")) {
        const last = body[body.length - 1];
        if (last !== undefined) last[1] = last[1].replace(/\n$/, "");
      } else if (line.startsWith(" ") || line.startsWith("-") || line.startsWith("+")) {
        body.push([line[0] as string, `${line.slice(1)}\n`]);
      } else if (line !== "" || index !== diffLines.length - 1) {
        return undefined;
      }
      index++;
    }
    for (const [kind, text] of body) {
      if (kind === "-") {
        older.push(text);
        continue;
      }
      if (current[at] !== text) return undefined;
      if (kind === " ") older.push(text);
      at++;
    }
  }
  older.push(...current.slice(at));
  return older.join("");
}

/** Whether `text` is the version whose size is `bytes` and whose hash is `hash` (`sha256:...`). */
export async function isVersion(text: string, bytes: number, hash: string): Promise<boolean> {
  const encoded = new TextEncoder().encode(text);
  if (encoded.length !== bytes) return false;
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined || !hash.startsWith("sha256:")) return true;
  const digest = new Uint8Array(await subtle.digest("SHA-256", encoded));
  const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `sha256:${hex}` === hash;
}
