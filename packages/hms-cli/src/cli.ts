#!/usr/bin/env node
import { HmsConnectionError } from "@hms/memory-backend-hms";
import { CommanderError } from "commander";
import { CliError, EXIT, withoutCode } from "./errors.js";
import { stopOnSignals } from "./interrupt.js";
import { buildProgram, VERSION } from "./program.js";

// The program's only output on failure is one line on stderr; the exit code says which kind
// of failure it was (see EXIT).
stopOnSignals();
const first = process.argv[2];
try {
  if (first === "--version" || first === "-V") process.stdout.write(`${VERSION}\n`);
  else await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeOf(error);
}

function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its one-line message (or the help that was asked for).
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (HmsConnectionError.isInstance(error)) {
    // Lost in the middle of a command: the library's message speaks to a program using it.
    process.stderr.write(
      "hms: the connection to hms-mcp was lost during the command (the server stopped, or the network dropped); run it again\n",
    );
    return EXIT.unreachable;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`hms: ${withoutCode(message.split("\n")[0] ?? "")}\n`);
  return error instanceof CliError ? error.exitCode : EXIT.failed;
}
