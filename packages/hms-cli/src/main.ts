import { HmsConnectionError } from "@hms/memory-backend-hms";
import { CommanderError } from "commander";
import { CliError, EXIT, withoutCode } from "./errors.js";
import type { Io } from "./io.js";
import { buildProgram, VERSION } from "./program.js";
import { redactUrls } from "./url.js";

/**
 * Runs `hms ...args` with `io` and resolves with its exit code. The program's only output on
 * failure is one line on stderr; the exit code says which kind of failure it was (see EXIT).
 * cli.ts runs it with the process's streams; a test may run it with its own.
 */
export async function main(args: readonly string[], io: Io): Promise<number> {
  try {
    // `--version` only as the first argument: `restore --version N` is a version of a file.
    if (args[0] === "--version" || args[0] === "-V") {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    const { program, exitCode } = buildProgram(io);
    await program.parseAsync([...args], { from: "user" });
    return exitCode();
  } catch (error) {
    return exitCodeOf(error, io);
  }
}

function exitCodeOf(error: unknown, io: Io): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its one-line message (or the help that was asked for).
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (HmsConnectionError.isInstance(error)) {
    // Lost in the middle of a command: the library's message speaks to a program using it.
    io.stderr.write(
      "hms: the connection to hms-mcp was lost during the command (the server stopped, or the network dropped); run it again\n",
    );
    return EXIT.unreachable;
  }
  const message = error instanceof Error ? error.message : String(error);
  // No message of hms ever shows a password given in a URL.
  io.stderr.write(`hms: ${redactUrls(withoutCode(message.split("\n")[0] ?? ""))}\n`);
  return error instanceof CliError ? error.exitCode : EXIT.failed;
}
