/**
 * `hms-mcp migrate --database-url URL`: brings a PostgreSQL database's schema up to date under
 * the engine's advisory lock (replicas starting together wait for it), then exits. For
 * deployments that start their servers with --no-migrate.
 */
import { Command, Option } from "commander";
import { ConfigError } from "../config/config.js";
import { databaseUrlProblem, redactUrl } from "../config/database-url.js";
import { createLogger } from "../log.js";
import { parseCommand } from "./parse-command.js";

/** Runs `hms-mcp migrate ...` with `argv` (after `migrate`); resolves to the exit status. */
export async function migrateCommand(argv: readonly string[], version: string): Promise<number> {
  const program = new Command("hms-mcp migrate")
    .description(
      "Bring the schema of a PostgreSQL database up to date for this hms-mcp, then exit (0 done, " +
        "1 the database cannot be reached or used, 2 a bad flag). Safe to run while servers are " +
        "serving and from several machines at once: migrations run once, under a lock.",
    )
    .version(version, "-V, --version", "print the version and exit")
    .helpOption("-h, --help", "print this help and exit")
    .addOption(
      new Option(
        "--database-url <url>",
        "the database (postgres://USER:PASSWORD@HOST:PORT/DB)",
      ).env("HMS_MCP_DATABASE_URL"),
    );
  const usage = parseCommand(program, "hms-mcp migrate", argv);
  if (usage !== undefined) return usage;
  const url = program.opts<{ databaseUrl?: string }>().databaseUrl?.trim();
  const problem = url === undefined ? "it is missing" : databaseUrlProblem(url);
  if (url === undefined || problem !== undefined) {
    process.stderr.write(
      `hms-mcp migrate: --database-url (HMS_MCP_DATABASE_URL) is not usable: ${problem}\n`,
    );
    return 2;
  }
  const log = createLogger("info");
  // node-postgres is loaded only for a database.
  const { migrateDatabase } = await import("../runtime/postgres.js");
  try {
    const { fromVersion, toVersion } = await migrateDatabase(url, log);
    process.stderr.write(
      fromVersion === toVersion
        ? `hms-mcp migrate: ${redactUrl(url)} is at schema ${toVersion}, nothing to do\n`
        : `hms-mcp migrate: ${redactUrl(url)} migrated from schema ${fromVersion} to ${toVersion}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`hms-mcp migrate: ${error.message}\n`);
    return 1;
  }
}
