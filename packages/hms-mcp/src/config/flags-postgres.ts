/** The PostgreSQL flags: the database, its pool, its migrations. */
import { type Command, Option } from "commander";
import { integer } from "./parse.js";

/** Default of `--pg-pool-size`. */
export const DEFAULT_PG_POOL_SIZE = 10;

/** Adds the PostgreSQL flags to `command`. */
export function addPostgresFlags(command: Command): Command {
  return command
    .addOption(
      new Option(
        "--database-url <url>",
        "PostgreSQL: keep every namespace in this database (postgres://USER:PASSWORD@HOST:PORT/DB) " +
          "instead of SQLite files in --data-dir; for several server replicas on one store",
      )
        // Checked in resolveConfig, not by commander, whose refusal would repeat the URL and
        // its password.
        .env("HMS_MCP_DATABASE_URL"),
    )
    .addOption(
      new Option(
        "--pg-pool-size <n>",
        `PostgreSQL: most database connections this server holds (default: ${DEFAULT_PG_POOL_SIZE})`,
      )
        .env("HMS_MCP_PG_POOL_SIZE")
        .argParser(integer(1, 1000)),
    )
    .addOption(
      new Option(
        "--no-migrate",
        "PostgreSQL: do not bring the database's schema up to date at start (`hms-mcp migrate` " +
          "does); refuse to start if it is not (env: HMS_MCP_NO_MIGRATE=1)",
      ),
    );
}
