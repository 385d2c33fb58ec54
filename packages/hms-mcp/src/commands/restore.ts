/**
 * `hms-mcp restore --from BACKUP [--data-dir DIR | --database-url URL] [--namespace NAME...]`:
 * puts a backup of `hms-mcp backup` back.
 *
 * SQLite: each namespace of the backup (or those named) replaces its store file in the data
 * directory; namespaces the backup does not hold are left as they are. A namespace that a
 * process (a server) holds open is refused: stop the servers of the data directory first.
 * PostgreSQL: pg_restore of the dump into a database that holds no hms-mcp store yet.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { Namespaces, restoreNamespace } from "@hms/store";
import { Command, Option } from "commander";
import { ConfigError } from "../config/config.js";
import { redactUrl } from "../config/database-url.js";
import { namespaceList } from "../config/parse.js";
import { parseCommand } from "./parse-command.js";
import { pgTool } from "./pg-tools.js";
import { isDirectory, type Place, placeOfFlags, withStoreFlags } from "./store-place.js";

/** Runs `hms-mcp restore ...` with `argv` (after `restore`); resolves to the exit status. */
export async function restoreCommand(argv: readonly string[], version: string): Promise<number> {
  const program = withStoreFlags(new Command("hms-mcp restore"))
    .description(
      "Put a backup made by `hms-mcp backup` back. SQLite: every namespace of the backup (or " +
        "those named by --namespace) replaces its store in the data directory, history " +
        "included; other namespaces are left as they are; a namespace a server holds open is " +
        "refused (stop the servers first). PostgreSQL: pg_restore into a database that holds " +
        "no hms-mcp store yet. Exits 0 when done, 1 when refused or failed, 2 for a bad flag.",
    )
    .version(version, "-V, --version", "print the version and exit")
    .helpOption("-h, --help", "print this help and exit")
    .requiredOption("--from <dir>", "the backup's directory (what `hms-mcp backup --to` wrote)")
    .addOption(
      new Option(
        "--namespace <name>",
        "SQLite: restore only this namespace (repeat for more; default: every one of the backup)",
      ).argParser(namespaceList),
    )
    .addOption(
      new Option(
        "--pg-restore <path>",
        "PostgreSQL: the pg_restore program (default: pg_restore on PATH)",
      ).env("HMS_MCP_PG_RESTORE"),
    );
  const usage = parseCommand(program, "hms-mcp restore", argv);
  if (usage !== undefined) return usage;
  const options = program.opts<{
    dataDir?: string;
    databaseUrl?: string;
    from: string;
    namespace?: string[];
    pgRestore?: string;
  }>();
  const say = (line: string) => process.stderr.write(`hms-mcp restore: ${line}\n`);
  const from = resolve(options.from);
  let place: Place;
  try {
    place = placeOfFlags(options);
    if (place.kind === "postgres" && options.namespace !== undefined) {
      throw new ConfigError(
        "--namespace applies to SQLite data directories: a PostgreSQL backup is restored whole, " +
          "into a database of its own",
      );
    }
    if (place.kind === "sqlite" && place.dir === from) {
      throw new ConfigError("--from and --data-dir name the same directory");
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    say(error.message);
    return 2;
  }
  try {
    if (place.kind === "postgres") {
      await restorePostgres(from, place.url, options.pgRestore, say);
    } else {
      await restoreSqlite(from, place.dir, options.namespace, say);
    }
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    say(message.split("\n")[0] ?? message);
    return 1;
  }
}

/** Restores the namespaces of the backup `from` (all, or `only`) into the data directory `dir`. */
async function restoreSqlite(
  from: string,
  dir: string,
  only: readonly string[] | undefined,
  say: (line: string) => void,
): Promise<void> {
  if (!isDirectory(join(from, "namespaces"))) {
    throw new ConfigError(`${from} holds no backup of a data directory (no namespaces/ in it)`);
  }
  const backup = new Namespaces({ dataDir: from });
  let names: string[];
  try {
    names = backup.names();
  } finally {
    backup.close();
  }
  const missing = (only ?? []).filter((name) => !names.includes(name));
  if (missing.length > 0) {
    throw new ConfigError(`the backup ${from} holds no namespace ${missing.join(", ")}`);
  }
  const chosen = only === undefined ? names : names.filter((name) => only.includes(name));
  const done: string[] = [];
  for (const [i, name] of chosen.entries()) {
    try {
      const copy = await restoreNamespace(from, name, dir);
      done.push(name);
      say(
        `namespace ${i + 1}/${chosen.length} ${name}: ${copy.memories} memories, ` +
          `${copy.changes} changes of history restored`,
      );
    } catch (error) {
      const restored = done.length === 0 ? "none" : done.join(", ");
      throw new Error(`${(error as Error).message} (restored before it: ${restored})`);
    }
  }
  say(`done: ${chosen.length} namespaces restored into ${dir}`);
}

/** pg_restore of the backup's dump into the database at `url`, which holds no store yet. */
async function restorePostgres(
  from: string,
  url: string,
  pgRestore: string | undefined,
  say: (line: string) => void,
): Promise<void> {
  const dump = join(from, "database.pgdump");
  if (!existsSync(dump)) {
    throw new ConfigError(`${from} holds no database.pgdump: it is not a PostgreSQL backup`);
  }
  // node-postgres is loaded only for a database.
  const { schemaStatus } = await import("@hms/store-postgres");
  let existing: { current: number };
  try {
    existing = await schemaStatus(url);
  } catch (error) {
    const { databaseMessage } = await import("../runtime/postgres.js");
    throw new ConfigError(databaseMessage(url, error));
  }
  if (existing.current > 0) {
    throw new ConfigError(
      `${redactUrl(url)} already holds an hms-mcp store (schema ${existing.current}): restore ` +
        "into a new, empty database, then point the servers at it",
    );
  }
  // One transaction: a restore that fails leaves the database as empty as it was.
  await pgTool(pgRestore ?? "pg_restore", url, [
    "--exit-on-error",
    "--single-transaction",
    "--no-owner",
    dump,
  ]);
  say(`done: ${dump} restored into ${redactUrl(url)}`);
}
