import {
  codePointLabel,
  isControl,
  isInvisible,
  isNoncharacter,
  isSurrogate,
  LOOKALIKES,
} from "./characters.js";
import { MEMORY_PATH_RULES, MemoryPathError, type MemoryPathRule } from "./errors.js";
import { displayPath, utf8ByteLength } from "./text.js";

/** The memory directory. Every memory path is this or lies under it. */
export const MEMORY_ROOT = "/memories";

/** Longest name (one segment between slashes), in UTF-8 bytes. */
export const MAX_NAME_BYTES = 128;
/** Longest whole path, `/memories` included, in UTF-8 bytes. */
export const MAX_PATH_BYTES = 240;
/** Most levels below `/memories` (`/memories/a` is one level, `/memories` zero). */
export const MAX_DEPTH = 16;

const ROOT_PREFIX = `${MEMORY_ROOT}/`;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;

/**
 * Checks a memory path and returns the error describing the first rule it breaks, or
 * `null` when the path is valid. Never throws. See the package README for the rules.
 */
export function checkMemoryPath(path: unknown): MemoryPathError | null {
  if (typeof path !== "string") {
    return new MemoryPathError(
      "not-a-string",
      path,
      `Invalid memory path: expected a string such as /memories/notes.md, got ${describeValue(path)}.`,
    );
  }
  const fail = (rule: MemoryPathRule, reason: string) =>
    new MemoryPathError(rule, path, `Invalid memory path ${displayPath(path)}: ${reason}`);

  const characterError = checkCharacters(path);
  if (characterError) return fail(characterError.rule, characterError.reason);

  if (path.includes("\\")) {
    return fail(
      "backslash",
      'it contains a backslash (\\). Memory paths separate names with "/" only; replace the backslash with "/" or remove it.',
    );
  }
  const percentEscape = PERCENT_ESCAPE.exec(path);
  if (percentEscape) {
    return fail(
      "percent-encoded",
      `it contains the percent-escape ${percentEscape[0]}. Memory paths are used exactly as written and never URL-decoded, so write the character itself instead of a %XX escape.`,
    );
  }
  if (path !== MEMORY_ROOT && !path.startsWith(ROOT_PREFIX)) {
    return fail(
      "outside-memories",
      "memory paths must be /memories or start with /memories/, for example /memories/notes.md.",
    );
  }

  const names = path === MEMORY_ROOT ? [] : path.slice(ROOT_PREFIX.length).split("/");
  for (const name of names) {
    if (name === "") {
      return fail(
        "empty-segment",
        'it contains an empty name (a doubled "/" or a "/" at the end). Remove the extra "/".',
      );
    }
    if (name === "." || name === "..") {
      return fail(
        "dot-segment",
        `it contains a "${name}" segment, and relative segments are not allowed. Write the full path from /memories without "." or ".." segments.`,
      );
    }
    if (name.startsWith(".")) {
      return fail(
        "hidden-segment",
        `the name ${displayPath(name)} starts with ".", and hidden names are not allowed. Choose a name that does not start with a dot.`,
      );
    }
    const nameBytes = utf8ByteLength(name);
    if (nameBytes > MAX_NAME_BYTES) {
      return fail(
        "name-too-long",
        `the name ${displayPath(name)} is ${nameBytes} bytes long, over the limit of ${MAX_NAME_BYTES} bytes for one name (counted in UTF-8). Choose a shorter name.`,
      );
    }
  }
  const pathBytes = utf8ByteLength(path);
  if (pathBytes > MAX_PATH_BYTES) {
    return fail(
      "path-too-long",
      `it is ${pathBytes} bytes long, over the limit of ${MAX_PATH_BYTES} bytes for a whole path (counted in UTF-8). Use shorter names or fewer levels.`,
    );
  }
  if (names.length > MAX_DEPTH) {
    return fail(
      "too-deep",
      `it is ${names.length} levels below /memories, over the limit of ${MAX_DEPTH} levels. Use a flatter layout with fewer nested directories.`,
    );
  }
  return null;
}

/**
 * Returns `path` unchanged when it is a valid memory path; otherwise throws the
 * {@link MemoryPathError} for the first rule it breaks.
 */
export function validateMemoryPath(path: unknown): string {
  const error = checkMemoryPath(path);
  if (error) throw error;
  return path as string;
}

/** Whether `path` is a valid memory path. */
export function isValidMemoryPath(path: unknown): path is string {
  return checkMemoryPath(path) === null;
}

interface CharacterProblem {
  rule: MemoryPathRule;
  reason: string;
}

// One pass over the code points; the problem reported is the one whose rule comes first in
// MEMORY_PATH_RULES, and within a rule the leftmost offending character.
function checkCharacters(path: string): CharacterProblem | null {
  let best: CharacterProblem | null = null;
  let bestRank = Number.POSITIVE_INFINITY;
  const note = (rule: MemoryPathRule, reason: () => string) => {
    const rank = MEMORY_PATH_RULES.indexOf(rule);
    if (rank < bestRank) {
      bestRank = rank;
      best = { rule, reason: reason() };
    }
  };
  for (const ch of path) {
    const cp = ch.codePointAt(0) as number;
    if (cp >= 0x20 && cp < 0x7f) continue; // printable ASCII: the common case
    if (cp === 0) {
      note("nul", () => "it contains a NUL character (U+0000), which is never allowed. Remove it.");
    } else if (isSurrogate(cp)) {
      note(
        "invalid-unicode",
        () =>
          `it contains ${codePointLabel(cp)}, an unpaired surrogate, which is not valid Unicode text. Use only complete characters.`,
      );
    } else if (isNoncharacter(cp)) {
      note(
        "invalid-unicode",
        () =>
          `it contains ${codePointLabel(cp)}, a Unicode noncharacter, which is not meant for text exchange. Remove it.`,
      );
    } else if (isControl(cp)) {
      note(
        "control-character",
        () =>
          `it contains the control character ${codePointLabel(cp)}. Names may not contain control characters such as tabs, newlines or escape codes; remove it.`,
      );
    } else if (isInvisible(cp)) {
      note(
        "invisible-character",
        () =>
          `it contains ${codePointLabel(cp)}, an invisible or text-direction character that can make a path look like a different one. Remove it.`,
      );
    } else {
      const lookalike = LOOKALIKES.get(cp);
      if (lookalike !== undefined) {
        note(
          "lookalike-character",
          () =>
            `it contains ${codePointLabel(cp)} (${ch}), a look-alike of "${lookalike}" that some systems convert into "${lookalike}". Use plain ASCII "/" between names and plain "." in names.`,
        );
      }
    }
    if (bestRank === 1) break; // NUL outranks everything else
  }
  return best;
}

// How a non-string value is named in a message; the same words for the same JSON value in
// every language port (JSON null is "null", a missing value "nothing").
function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "boolean") return "a boolean";
  if (typeof value === "number" || typeof value === "bigint") return "a number";
  return `a ${typeof value}`;
}
