#!/usr/bin/env node
import { HmsConnectionError } from "@hms/memory-backend-hms";
import { CommanderError } from "commander";
import { CliError, EXIT } from "./errors.js";
import { buildProgram, VERSION } from "./program.js";

// The program's only output on failure is one line on stderr; the exit code says which kind
// of failure it was (see EXIT).
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
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`hms: ${message}\n`);
  if (error instanceof CliError) return error.exitCode;
  if (HmsConnectionError.isInstance(error)) return EXIT.unreachable;
  return EXIT.failed;
}
