/**
 * How every hms-mcp subcommand reads its flags: commander's errors as one line naming the
 * command, no stray arguments, and exit codes as the server's own (0 for --help and
 * --version, 2 for a bad flag) instead of commander's process.exit.
 */
import type { Command } from "commander";
import { oneLineError } from "../config/parse.js";

/**
 * Parses `argv` into `program` (named `name`, e.g. "hms-mcp copy"). Returns the exit code when
 * the command must end here (help or version printed, or a bad flag refused), else undefined.
 */
export function parseCommand(
  program: Command,
  name: string,
  argv: readonly string[],
): number | undefined {
  program
    .configureOutput({ outputError: oneLineError(name, `${name} --help shows how`) })
    .allowExcessArguments(false)
    .exitOverride();
  try {
    program.parse([...argv], { from: "user" });
    return undefined;
  } catch (error) {
    return (error as { exitCode?: number }).exitCode === 0 ? 0 : 2;
  }
}
