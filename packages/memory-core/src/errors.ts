import { errorBrand, HmsError, hasBrand, type MemoryPathRule } from "@hms/memory-paths";

/**
 * Why a memory command failed. Stable across versions and identical in the Python port; the
 * message (for Claude) may be reworded, the code (for programs) will not.
 */
export type MemoryToolErrorCode =
  /** The command is not an object, or names no known command. */
  | "invalid_command"
  /** A parameter is missing, has the wrong type, or is empty/malformed. */
  | "invalid_argument"
  /** A path breaks a rule of `@hms/memory-paths`; `pathRule` says which. */
  | "invalid_path"
  /** `view_range` or `insert_line` lies outside the file. */
  | "out_of_range"
  /** The path does not exist. */
  | "not_found"
  /** `create` found a file, or `rename` found its destination taken. */
  | "already_exists"
  /** `str_replace` / `insert` was given a directory. */
  | "not_a_file"
  /** `create` was given a directory. */
  | "is_a_directory"
  /** A path lies under an existing file. */
  | "not_a_directory"
  /** `str_replace` found no occurrence of `old_str`. */
  | "no_match"
  /** `str_replace` found several occurrences of `old_str`. */
  | "multiple_matches"
  /** The result would be over the size limit; nothing was stored. */
  | "too_large"
  /** Deleting or renaming `/memories`, or moving a directory into itself. */
  | "forbidden"
  /** Concurrent writers kept winning the compare-and-set race until attempts ran out. */
  | "conflict"
  /** The backend cannot do this (`memory_recall` on a backend without recall). */
  | "unsupported";

const BRAND = errorBrand("MemoryToolError");

/**
 * The error every failed memory command throws. It is a plain `Error` to the Anthropic SDK
 * (whose tool runner returns `message` to Claude with `is_error: true`), with a stable
 * `code` for programs.
 */
export class MemoryToolError extends HmsError {
  override readonly name = "MemoryToolError";
  readonly [BRAND] = true;
  readonly code: MemoryToolErrorCode;
  /** For `invalid_path`: the rule the path broke. */
  readonly pathRule: MemoryPathRule | undefined;

  constructor(
    code: MemoryToolErrorCode,
    message: string,
    options: { pathRule?: MemoryPathRule; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.pathRule = options.pathRule;
  }

  /** Whether `error` is a MemoryToolError, made by any copy of this package. */
  static override isInstance(error: unknown): error is MemoryToolError {
    return hasBrand(error, BRAND);
  }
}
