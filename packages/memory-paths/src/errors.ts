import { errorBrand, HmsError, hasBrand } from "./hms-error.js";
import { RULES_DATA } from "./rules.js";

/** The name of a rule a memory path broke; see {@link MEMORY_PATH_RULES}. */
export type MemoryPathRule =
  | "not-a-string"
  | "nul"
  | "invalid-unicode"
  | "control-character"
  | "invisible-character"
  | "nonstandard-space"
  | "lookalike-character"
  | "not-nfc"
  | "compatibility-character"
  | "backslash"
  | "percent-encoded"
  | "outside-memories"
  | "empty-segment"
  | "dot-segment"
  | "hidden-segment"
  | "space-at-edge"
  | "name-too-long"
  | "path-too-long"
  | "too-deep";

/**
 * Every rule a memory path can break, in the order they are checked (the `rules` of
 * `rules.json`; a test checks they are exactly the names of {@link MemoryPathRule}). When a
 * path breaks several, the error names the first one in this list (for segment rules: the
 * first offending segment from the left).
 */
export const MEMORY_PATH_RULES: readonly MemoryPathRule[] = RULES_DATA.rules as MemoryPathRule[];

/**
 * A memory path was refused. `rule` says which rule it broke (stable, for programs); the
 * message names the path and the rule and says what to write instead (for people and Claude).
 */
const BRAND = errorBrand("MemoryPathError");

export class MemoryPathError extends HmsError {
  override readonly name = "MemoryPathError";
  readonly [BRAND] = true;
  /** The rule that was broken. */
  readonly rule: MemoryPathRule;
  /** The value that was refused, as given (not necessarily a string). */
  readonly path: unknown;

  constructor(rule: MemoryPathRule, path: unknown, message: string) {
    super(message);
    this.rule = rule;
    this.path = path;
  }

  /** Whether `error` is a MemoryPathError, from any copy of this package. */
  static override isInstance(error: unknown): error is MemoryPathError {
    return hasBrand(error, BRAND);
  }
}
