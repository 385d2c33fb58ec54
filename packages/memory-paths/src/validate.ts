import {
  codePointLabel,
  compatibilityForm,
  isControl,
  isInvisible,
  isNoncharacter,
  isNonstandardSpace,
  isSurrogate,
  LOOKALIKES,
} from "./characters.js";
import { MEMORY_PATH_RULES, MemoryPathError, type MemoryPathRule } from "./errors.js";
import {
  DEPTH,
  fill,
  MESSAGES,
  NAME_BYTES,
  NEW_NAMES_ONLY,
  PATH_BYTES,
  REASONS,
  type ReasonName,
  ROOT,
} from "./rules.js";
import { displayPath, utf8ByteLength } from "./text.js";

/** The memory directory. Every memory path is this or lies under it. */
export const MEMORY_ROOT: string = ROOT;

/** Longest name (one segment between slashes), in UTF-8 bytes. */
export const MAX_NAME_BYTES: number = NAME_BYTES;
/** Longest whole path, `/memories` included, in UTF-8 bytes. */
export const MAX_PATH_BYTES: number = PATH_BYTES;
/** Most levels below `/memories` (`/memories/a` is one level, `/memories` zero). */
export const MAX_DEPTH: number = DEPTH;

const ROOT_PREFIX = `${MEMORY_ROOT}/`;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;

type Values = Readonly<Record<string, string | number>>;

/** The rule a reason names and its message (a template of `rules.json` filled with `values`). */
function reason(name: ReasonName, values: Values = {}): CharacterProblem {
  const { rule, text } = REASONS[name];
  return { rule: rule as MemoryPathRule, reason: fill(text, values) };
}

/** How a path is checked. */
export interface CheckOptions {
  /**
   * The path names a file that may already exist (view, edit, delete, the old path of a
   * rename), not a name being created: the rules of `new_names_only` in `rules.json` (NFC,
   * compatibility characters, spaces) are not applied, so a file an older version let in stays readable and deletable.
   */
  readonly existing?: boolean | undefined;
}

/**
 * Checks a memory path and returns the error describing the first rule it breaks, or
 * `null` when the path is valid. Never throws. See the package README for the rules.
 */
export function checkMemoryPath(path: unknown, options: CheckOptions = {}): MemoryPathError | null {
  if (typeof path !== "string") {
    return new MemoryPathError(
      "not-a-string",
      path,
      fill(MESSAGES.not_a_string, { value: describeValue(path) }),
    );
  }
  const fail = (problem: CharacterProblem) =>
    new MemoryPathError(
      problem.rule,
      path,
      fill(MESSAGES.invalid_path, { path: displayPath(path), reason: problem.reason }),
    );

  const applies = (rule: MemoryPathRule) =>
    options.existing !== true || !NEW_NAMES_ONLY.includes(rule);
  const problem = pathProblem(path, applies);
  return problem === null ? null : fail(problem);
}

/** The first rule `path` (a string) breaks, as its rule and reason, or null. */
function pathProblem(
  path: string,
  applies: (rule: MemoryPathRule) => boolean,
): CharacterProblem | null {
  const characterError = checkCharacters(path, applies);
  if (characterError) return characterError;
  // Composed and decomposed accents look alike: a new name must be in NFC (see the README).
  if (applies("not-nfc")) {
    const nfc = path.normalize("NFC");
    if (nfc !== path) return reason("not_nfc", { nfc: displayPath(nfc) });
  }
  // So do compatibility characters and their plain forms (fullwidth Ａ and A, ﬁ and fi).
  if (applies("compatibility-character")) {
    const compatibility = compatibilityProblem(path);
    if (compatibility) return compatibility;
  }

  if (path.includes("\\")) return reason("backslash");
  const percentEscape = PERCENT_ESCAPE.exec(path);
  if (percentEscape) return reason("percent_encoded", { escape: percentEscape[0] });
  if (path !== MEMORY_ROOT && !path.startsWith(ROOT_PREFIX)) {
    return reason("outside_memories");
  }

  const names = path === MEMORY_ROOT ? [] : path.slice(ROOT_PREFIX.length).split("/");
  for (const name of names) {
    if (name === "") return reason("empty_segment");
    if (name === "." || name === "..") return reason("dot_segment", { name });
    if (name.startsWith(".")) return reason("hidden_segment", { name: displayPath(name) });
    if (applies("space-at-edge") && (name.startsWith(" ") || name.endsWith(" "))) {
      return reason("space_at_edge", { name: displayPath(name) });
    }
    const nameBytes = utf8ByteLength(name);
    if (nameBytes > MAX_NAME_BYTES) {
      return reason("name_too_long", {
        name: displayPath(name),
        bytes: nameBytes,
        limit: MAX_NAME_BYTES,
      });
    }
  }
  const pathBytes = utf8ByteLength(path);
  if (pathBytes > MAX_PATH_BYTES) {
    return reason("path_too_long", { bytes: pathBytes, limit: MAX_PATH_BYTES });
  }
  if (names.length > MAX_DEPTH) {
    return reason("too_deep", { depth: names.length, limit: MAX_DEPTH });
  }
  return null;
}

/**
 * The compatibility-character problem of `path` (a string in NFC), or null: the leftmost
 * compatibility character that is not kept, and the path with every such character in its
 * plain form, which is what to send instead (or why that is not valid either).
 */
function compatibilityProblem(path: string): CharacterProblem | null {
  if (path.normalize("NFKC") === path) return null; // the common case: nothing to look at
  let first: { ch: string; plain: string } | undefined;
  let plainPath = "";
  for (const ch of path) {
    const plain = compatibilityForm(ch);
    if (plain !== undefined) first ??= { ch, plain };
    plainPath += plain ?? ch;
  }
  if (first === undefined) return null;
  plainPath = plainPath.normalize("NFC"); // halfwidth ｶﾞ is カ and a combining mark: ガ
  const values = {
    code_point: codePointLabel(first.ch.codePointAt(0) as number),
    character: first.ch,
    plain: first.plain,
    plain_path: displayPath(plainPath),
  };
  const problem = pathProblem(plainPath, () => true);
  return problem === null
    ? reason("compatibility_character", values)
    : reason("compatibility_character_plain_path_invalid", { ...values, problem: problem.reason });
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
function checkCharacters(
  path: string,
  applies: (rule: MemoryPathRule) => boolean,
): CharacterProblem | null {
  // Printable ASCII breaks no character rule: a path of nothing else (nearly every path) needs
  // no walk by code point.
  if (isPrintableAscii(path)) return null;
  let best: CharacterProblem | null = null;
  let bestRank = Number.POSITIVE_INFINITY;
  const note = (name: ReasonName, values: () => Values = () => ({})) => {
    const rank = RULE_RANK.get(REASONS[name].rule as MemoryPathRule) as number;
    if (rank < bestRank) {
      bestRank = rank;
      best = reason(name, values());
    }
  };
  for (const ch of path) {
    const cp = ch.codePointAt(0) as number;
    if (cp >= 0x20 && cp < 0x7f) continue; // printable ASCII: the common case
    const label = () => ({ code_point: codePointLabel(cp) });
    if (cp === 0) {
      note("nul");
    } else if (isSurrogate(cp)) {
      note("unpaired_surrogate", label);
    } else if (isNoncharacter(cp)) {
      note("noncharacter", label);
    } else if (isControl(cp)) {
      note("control_character", label);
    } else if (isInvisible(cp)) {
      note("invisible_character", label);
    } else if (isNonstandardSpace(cp)) {
      if (applies("nonstandard-space")) note("nonstandard_space", label);
    } else {
      const lookalike = LOOKALIKES.get(cp);
      if (lookalike !== undefined) {
        note("lookalike_character", () => ({
          code_point: codePointLabel(cp),
          character: ch,
          looks_like: lookalike,
        }));
      }
    }
    if (bestRank === NUL_RANK) break; // NUL outranks everything else
  }
  return best;
}

/** Whether every code unit of `text` is printable ASCII (U+0020..U+007E). */
function isPrintableAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x20 || unit >= 0x7f) return false;
  }
  return true;
}

const RULE_RANK = new Map(MEMORY_PATH_RULES.map((rule, index) => [rule, index]));
const NUL_RANK = RULE_RANK.get("nul") as number;

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
