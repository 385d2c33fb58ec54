/**
 * Where one run of `hms` reads and writes: its standard streams and its environment. The
 * program (cli.ts) gives the process's own; a test can run `hms` as a function with streams
 * and variables of its own (see main.ts), so nothing below reads `process.stdout`,
 * `process.stdin` or `process.env` directly.
 */

/** A stream `hms` writes text to. */
export interface TextSink {
  write(text: string): unknown;
  /** Whether a person reads it at a terminal (colours, progress bars). */
  readonly isTTY?: boolean;
}

export interface Io {
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** The environment: HMS_MCP_*, EDITOR, NO_COLOR... */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The process's own streams and environment. */
export function processIo(): Io {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  };
}
