/**
 * Where a store lives, for the subcommands that open one (copy, namespaces, backup, restore):
 * a SQLite data directory or a PostgreSQL database URL, named by `--data-dir` /
 * `--database-url` (and their HMS_MCP_* variables, as for the server) or by copy's
 * `--from` / `--to`, checked here once for all of them.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { defaultDataDir, Namespaces, type StoreEngine } from "@hms/store";
import { type Command, Option } from "commander";
import { ConfigError } from "../config/config.js";
import { databaseUrlProblem, redactUrl } from "../config/database-url.js";

/** A place a store lives: a PostgreSQL URL, or a SQLite data directory. */
export type Place = { kind: "postgres"; url: string } | { kind: "sqlite"; dir: string };

/** How a place is named in messages (a URL without its password). */
export function describePlace(place: Place): string {
  return place.kind === "postgres" ? redactUrl(place.url) : place.dir;
}

/** A value naming a store (copy's --from/--to): a postgres:// or postgresql:// URL, else a directory. */
export function placeOf(value: string, flag: string): Place {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    const problem = databaseUrlProblem(value);
    if (problem !== undefined) throw new ConfigError(`${flag} is not usable: ${problem}`);
    return { kind: "postgres", url: value };
  }
  return { kind: "sqlite", dir: resolve(value) };
}

/** Adds the server's own `--data-dir` and `--database-url` (with their variables) to `command`. */
export function withStoreFlags(command: Command): Command {
  return command
    .addOption(
      new Option("--data-dir <dir>", `the data directory (default: ${defaultDataDir()})`).env(
        "HMS_MCP_DATA_DIR",
      ),
    )
    .addOption(
      new Option(
        "--database-url <url>",
        "a PostgreSQL database instead (postgres://USER:PASSWORD@HOST:PORT/DB)",
      ).env("HMS_MCP_DATABASE_URL"),
    );
}

/** The store `--data-dir` / `--database-url` name, as {@link withStoreFlags} parsed them. */
export function placeOfFlags(options: { dataDir?: string; databaseUrl?: string }): Place {
  const url = options.databaseUrl?.trim();
  if (url !== undefined && options.dataDir !== undefined) {
    throw new ConfigError(
      "--data-dir and --database-url both say where the memories live: give one",
    );
  }
  if (url === undefined)
    return { kind: "sqlite", dir: resolve(options.dataDir ?? defaultDataDir()) };
  const problem = databaseUrlProblem(url);
  if (problem !== undefined) {
    throw new ConfigError(`--database-url (HMS_MCP_DATABASE_URL) is not usable: ${problem}`);
  }
  return { kind: "postgres", url };
}

/** Whether `path` is a directory. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Opens the engine at `place`. A source is only read: a SQLite source must exist, and a
 * PostgreSQL source must already be at this hms-mcp's schema (it is not migrated).
 */
export async function openEngine(
  place: Place,
  role: "source" | "destination",
  maxTextBytes: number,
): Promise<StoreEngine> {
  if (place.kind === "sqlite") {
    if (role === "source" && !(existsSync(place.dir) && isDirectory(place.dir))) {
      throw new ConfigError(`--from ${place.dir} is not a directory: name a data directory`);
    }
    return new Namespaces({ dataDir: place.dir, maxTextBytes });
  }
  // node-postgres is loaded only for a database.
  const { openCopyEngine } = await import("../runtime/postgres.js");
  return await openCopyEngine(place.url, { maxTextBytes, migrate: role === "destination" });
}
