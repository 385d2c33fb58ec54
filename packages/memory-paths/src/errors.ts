/**
 * Every rule a memory path can break, in the order they are checked. When a path breaks
 * several, the error names the first one in this list (for segment rules: the first
 * offending segment from the left).
 */
export const MEMORY_PATH_RULES = [
  "not-a-string",
  "nul",
  "invalid-unicode",
  "control-character",
  "invisible-character",
  "lookalike-character",
  "backslash",
  "percent-encoded",
  "outside-memories",
  "empty-segment",
  "dot-segment",
  "hidden-segment",
  "name-too-long",
  "path-too-long",
  "too-deep",
] as const;

/** The name of a rule a memory path broke; see {@link MEMORY_PATH_RULES}. */
export type MemoryPathRule = (typeof MEMORY_PATH_RULES)[number];

/**
 * A memory path was refused. `rule` says which rule it broke (stable, for programs); the
 * message names the path and the rule and says what to write instead (for people and Claude).
 */
export class MemoryPathError extends Error {
  override readonly name = "MemoryPathError";
  /** The rule that was broken. */
  readonly rule: MemoryPathRule;
  /** The value that was refused, as given (not necessarily a string). */
  readonly path: unknown;

  constructor(rule: MemoryPathRule, path: unknown, message: string) {
    super(message);
    this.rule = rule;
    this.path = path;
  }
}
