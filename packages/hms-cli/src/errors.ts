/**
 * What `hms` exits with. Scripts can tell a refusal (1) from a mistake in the command line (2)
 * and from a server that could not be reached or started (3).
 */
export const EXIT = {
  ok: 0,
  /** The operation was refused or failed: not found, a conflict, a refused import. */
  failed: 1,
  /** The command line is wrong: unknown flag, missing or invalid argument. */
  usage: 2,
  /** hms-mcp could not be started (local data dir) or reached (--url). */
  unreachable: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the program reports as one line on stderr, then exits with `exitCode`. */
export class CliError extends Error {
  override readonly name = "CliError";
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failed,
  ) {
    super(message);
  }
}

/**
 * A server's refusal in a person's words: hms-mcp starts its text with its error code
 * (`EXISTS: cannot move ...`), which is for programs (the exit code already says the kind).
 */
export function withoutCode(line: string): string {
  return line.replace(/^((?:hms-mcp refused the \w+ call: )?)[A-Z][A-Z_]+: /, "$1");
}
