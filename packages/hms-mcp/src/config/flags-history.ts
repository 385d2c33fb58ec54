/** The flags of the history: how many versions, how old, how many MiB it keeps. */
import { type Command, Option } from "commander";
import { integer } from "./parse.js";

/** Default of `keepVersions` (`--keep-versions`). */
export const DEFAULT_KEEP_VERSIONS = 100;

/** Default of `keepMib` (`--keep-mib`): @hms/store's DEFAULT_HISTORY_BYTES, in MiB. */
export const DEFAULT_KEEP_MIB = 8;

/** Adds the history flags to `command`. */
export function addHistoryFlags(command: Command): Command {
  return command
    .addOption(
      new Option(
        "--keep-versions <n>",
        "history: versions of each memory file to keep (0: all of them)",
      )
        .env("HMS_MCP_KEEP_VERSIONS")
        .default(DEFAULT_KEEP_VERSIONS)
        .argParser(integer(0, 1_000_000)),
    )
    .addOption(
      new Option("--keep-days <days>", "history: drop versions older than this (0: never)")
        .env("HMS_MCP_KEEP_DAYS")
        .default(0)
        .argParser(integer(0, 1_000_000)),
    )
    .addOption(
      new Option(
        "--keep-mib <n>",
        "history: MiB each namespace's history may take, or as much as its live text when " +
          "that is more; the oldest changes go first (0: no bound)",
      )
        .env("HMS_MCP_KEEP_MIB")
        .default(DEFAULT_KEEP_MIB)
        .argParser(integer(0, 1_000_000)),
    );
}
