/**
 * The last lines a started hms-mcp wrote on its stderr, kept (bounded) so that a failed
 * connect can say why the server stopped instead of only "Connection closed". The Python
 * package's `hms_backend/stderr_tail.py` keeps them by the same rules, so both tools report
 * the same words.
 */
import { StringDecoder } from "node:string_decoder";

/** Most lines kept: the last ones, empty lines left out. */
export const STDERR_TAIL_LINES = 10;
/** Longest line kept, in code points; a longer one is cut there and ends with `…`. */
export const STDERR_LINE_CODE_POINTS = 500;

/** Collects a process's stderr chunk by chunk and keeps its last lines. */
export class StderrTail {
  readonly #decoder = new StringDecoder("utf8");
  readonly #lines: string[] = [];
  #partial = "";

  /** Adds a chunk of the stream (bytes are decoded as UTF-8 across chunk boundaries). */
  push(chunk: Buffer | string): void {
    const text = this.#partial + (typeof chunk === "string" ? chunk : this.#decoder.write(chunk));
    const parts = text.split("\n");
    this.#partial = parts.pop() as string;
    for (const line of parts) this.#keep(line);
    // A line with no end yet is bounded too: only its start is ever shown.
    if (this.#partial.length > 4 * STDERR_LINE_CODE_POINTS) {
      this.#partial = this.#partial.slice(0, 4 * STDERR_LINE_CODE_POINTS);
    }
  }

  /** The last lines so far (the unfinished one too), oldest first, each cut to its limit. */
  lines(): string[] {
    const partial = shown(this.#partial);
    const lines = partial === "" ? this.#lines : [...this.#lines, partial];
    return lines.slice(-STDERR_TAIL_LINES);
  }

  #keep(line: string): void {
    const kept = shown(line);
    if (kept === "") return;
    this.#lines.push(kept);
    if (this.#lines.length > STDERR_TAIL_LINES) this.#lines.shift();
  }
}

const TRAILING = new Set([" ", "\t", "\r"]);

/** A line as the error shows it: without trailing spaces, tabs and `\r`, cut to its limit. */
function shown(line: string): string {
  let end = line.length;
  while (end > 0 && TRAILING.has(line[end - 1] as string)) end -= 1;
  const trimmed = line.slice(0, end);
  const codePoints = Array.from(trimmed);
  return codePoints.length > STDERR_LINE_CODE_POINTS
    ? `${codePoints.slice(0, STDERR_LINE_CODE_POINTS).join("")}…`
    : trimmed;
}

/**
 * What a failed connect adds about the server's stderr: its last lines, or, when the
 * connection closed at start, that it wrote nothing.
 */
export function describeStderr(lines: readonly string[], closed: boolean): string {
  if (lines.length > 0) return `\nIts stderr ended with:\n${lines.join("\n")}`;
  return closed ? " It wrote nothing on stderr." : "";
}
