/**
 * Paths given to hms must be UTF-8. Node.js decodes the command line (and the environment) as
 * UTF-8 and turns each byte that is not into U+FFFD, so `c/\xff.md` and `c/\xfe.md` would both
 * arrive as `c/\uFFFD.md`: one name for two, and a write to one overwrites the other. The raw
 * bytes are lost by then, except on Linux, where /proc/self/cmdline and /proc/self/environ
 * still hold them. The rule (docs/cli): a path holding U+FFFD is refused, unless those files
 * show that the person typed U+FFFD itself, as well-formed UTF-8.
 */
import { readFileSync } from "node:fs";
import { escapedBytes, isUtf8 } from "./bytes.js";
import { CliError, EXIT } from "./errors.js";

const REPLACEMENT = "\uFFFD";

/**
 * `value` (a path from the command line or the environment, named `what` in the refusal), or
 * a usage error when it is not UTF-8 (or cannot be shown to be).
 */
export function utf8Path(value: string, what: string): string {
  if (!value.includes(REPLACEMENT)) return value;
  const raw = rawBytesOf(value);
  if (raw !== undefined && isUtf8(raw)) return value;
  const shown = raw === undefined ? JSON.stringify(value) : `"${escapedBytes(raw)}"`;
  const why =
    raw === undefined
      ? "holds U+FFFD, the character Node.js puts for bytes that are not UTF-8 (or that character itself, which hms cannot tell apart here)"
      : "is not UTF-8";
  throw new CliError(
    `${what} ${shown} ${why}: hms takes paths as UTF-8 text, and two such names would become one; nothing was done`,
    EXIT.usage,
  );
}

/**
 * The bytes of the command-line argument or environment value that Node decoded as `value`
 * (one that is not UTF-8 first, when several decode to it), or undefined when there is no
 * such record (not Linux, or `value` did not come from this process's command line or
 * environment, as in a test running hms as a function).
 */
function rawBytesOf(value: string): Buffer | undefined {
  let found: Buffer | undefined;
  for (const file of ["/proc/self/cmdline", "/proc/self/environ"]) {
    let entries: Buffer[];
    try {
      entries = split(readFileSync(file));
    } catch {
      continue;
    }
    for (const entry of entries) {
      // An environment entry is NAME=value: the value is what follows the first "=".
      const candidates = file.endsWith("environ")
        ? [entry.subarray(entry.indexOf(0x3d) + 1)]
        : [entry];
      for (const candidate of candidates) {
        if (candidate.toString("utf8") !== value) continue;
        if (!isUtf8(candidate)) return candidate;
        found = candidate;
      }
    }
  }
  return found;
}

/** The NUL-separated entries of a /proc file. */
function split(bytes: Buffer): Buffer[] {
  const entries: Buffer[] = [];
  let start = 0;
  for (let end = bytes.indexOf(0, start); end !== -1; end = bytes.indexOf(0, start)) {
    entries.push(bytes.subarray(start, end));
    start = end + 1;
  }
  if (start < bytes.length) entries.push(bytes.subarray(start));
  return entries;
}
