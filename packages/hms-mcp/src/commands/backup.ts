/**
 * `hms-mcp backup --to DIR [--data-dir DIR | --database-url URL] [--namespace NAME...]`: a
 * backup of a store while servers keep serving it, keeping everything it holds: every memory
 * with its versions and times, the history of memory files with who made each change, the
 * embeddings.
 *
 * SQLite: each namespace's store file through SQLite's online backup, one committed state of
 * it (@hms/store's `backupNamespace`), checked, into `DIR/namespaces/` under the same file
 * name: DIR is a data directory a server can serve as it is, and `hms-mcp restore` puts it (or
 * one namespace of it) back. PostgreSQL: `pg_dump` of the database, one snapshot of all of it,
 * into `DIR/database.pgdump` (why pg_dump and not a copy to SQLite: docs/operations.md). Either
 * way `DIR/backup.json` says what the backup holds.
 */
import { renameSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { backupNamespace, type NamespaceCopy, Namespaces } from "@hms/store";
import { Command, Option } from "commander";
import { ConfigError } from "../config/config.js";
import { redactUrl } from "../config/database-url.js";
import { namespaceList } from "../config/parse.js";
import { parseCommand } from "./parse-command.js";
import { makeBackupDirectory, pgTool } from "./pg-tools.js";
import {
  describePlace,
  isDirectory,
  type Place,
  placeOfFlags,
  withStoreFlags,
} from "./store-place.js";

/** The manifest every backup writes beside what it copied. */
export const MANIFEST = "backup.json";

/** What `backup.json` holds. */
export interface BackupManifest {
  readonly format: "hms-mcp-backup/1";
  /** The hms-mcp that made it. */
  readonly hms_mcp: string;
  readonly engine: "sqlite" | "postgres";
  /** The data directory, or the database URL without its password. */
  readonly source: string;
  readonly started_at: string;
  readonly finished_at: string;
  /** SQLite: each namespace's store file, under `namespaces/`. */
  readonly namespaces?: readonly NamespaceCopy[];
  /** PostgreSQL: pg_dump's archive (custom format), for pg_restore. */
  readonly dump?: string;
}

/** Runs `hms-mcp backup ...` with `argv` (after `backup`); resolves to the exit status. */
export async function backupCommand(argv: readonly string[], version: string): Promise<number> {
  const program = withStoreFlags(new Command("hms-mcp backup"))
    .description(
      "Back up a store while servers keep serving it, losing nothing it holds: versions, " +
        "times, the history with who made each change. SQLite: every namespace (or those named " +
        "by --namespace) through SQLite's online backup, checked, into a data directory that " +
        "`hms-mcp restore` puts back or a server serves as it is. PostgreSQL: pg_dump of the " +
        "whole database. --to must be a new or empty directory. Progress goes to stderr. Exits " +
        "0 when done, 1 when the store cannot be read or the backup fails, 2 for a bad flag.",
    )
    .version(version, "-V, --version", "print the version and exit")
    .helpOption("-h, --help", "print this help and exit")
    .requiredOption("--to <dir>", "the directory to write the backup into (new or empty)")
    .addOption(
      new Option(
        "--namespace <name>",
        "SQLite: back up only this namespace (repeat for more; default: every namespace)",
      ).argParser(namespaceList),
    )
    .addOption(
      new Option(
        "--pg-dump <path>",
        "PostgreSQL: the pg_dump program, of the server's major version or newer (default: pg_dump on PATH)",
      ).env("HMS_MCP_PG_DUMP"),
    );
  const usage = parseCommand(program, "hms-mcp backup", argv);
  if (usage !== undefined) return usage;
  const options = program.opts<{
    dataDir?: string;
    databaseUrl?: string;
    to: string;
    namespace?: string[];
    pgDump?: string;
  }>();
  const say = (line: string) => process.stderr.write(`hms-mcp backup: ${line}\n`);
  let place: Place;
  const to = resolve(options.to);
  try {
    place = placeOfFlags(options);
    if (place.kind === "postgres" && options.namespace !== undefined) {
      throw new ConfigError(
        "--namespace applies to SQLite data directories: a PostgreSQL backup is pg_dump of the " +
          "whole database (restore it elsewhere to take one namespace out of it)",
      );
    }
    if (place.kind === "sqlite" && !outside(to, place.dir)) {
      throw new ConfigError(
        `--to ${to} is the data directory or inside its namespaces/: back up to another directory`,
      );
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    say(error.message);
    return 2;
  }
  const started = new Date();
  try {
    makeBackupDirectory(to);
    say(`from ${describePlace(place)} to ${to}`);
    const manifest =
      place.kind === "sqlite"
        ? await backupSqlite(place.dir, to, options.namespace, say)
        : await backupPostgres(place.url, to, options.pgDump, say);
    writeManifest(to, {
      format: "hms-mcp-backup/1",
      hms_mcp: version,
      engine: place.kind,
      source: describePlace(place),
      started_at: started.toISOString(),
      finished_at: new Date().toISOString(),
      ...manifest,
    });
    const seconds = ((Date.now() - started.getTime()) / 1000).toFixed(1);
    say(`done in ${seconds} s: ${join(to, MANIFEST)} lists what it holds`);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    say(message.split("\n")[0] ?? message);
    return 1;
  }
}

/** Whether `to` is neither `dataDir` nor inside its `namespaces/`. */
function outside(to: string, dataDir: string): boolean {
  const inside = relative(join(dataDir, "namespaces"), to);
  return to !== dataDir && (inside.startsWith("..") || resolve(inside) === inside);
}

/** Copies the namespaces of the data directory `dir` (all, or `only`) into `to`. */
async function backupSqlite(
  dir: string,
  to: string,
  only: readonly string[] | undefined,
  say: (line: string) => void,
): Promise<Pick<BackupManifest, "namespaces">> {
  if (!isDirectory(dir)) {
    throw new ConfigError(`there is no data directory at ${dir} (check --data-dir)`);
  }
  const engine = new Namespaces({ dataDir: dir });
  let names: string[];
  try {
    names = engine.names();
  } finally {
    engine.close();
  }
  const missing = (only ?? []).filter((name) => !names.includes(name));
  if (missing.length > 0) {
    throw new ConfigError(
      `no namespace ${missing.join(", ")} in ${dir}: \`hms-mcp namespaces\` lists those there are`,
    );
  }
  const chosen = only === undefined ? names : names.filter((name) => only.includes(name));
  const copies: NamespaceCopy[] = [];
  for (const [i, name] of chosen.entries()) {
    const copy = await backupNamespace(dir, name, to);
    copies.push(copy);
    say(
      `namespace ${i + 1}/${chosen.length} ${name}: ${copy.memories} memories, ` +
        `${copy.changes} changes of history, ${copy.bytes} bytes (namespaces/${copy.file})`,
    );
  }
  return { namespaces: copies };
}

/** pg_dump of the database at `url` into `to/database.pgdump`, checked with pg_restore --list. */
async function backupPostgres(
  url: string,
  to: string,
  pgDump: string | undefined,
  say: (line: string) => void,
): Promise<Pick<BackupManifest, "dump">> {
  const dump = "database.pgdump";
  const file = join(to, dump);
  // The archive format pg_restore reads, compressed; one snapshot of the whole database.
  await pgTool(pgDump ?? "pg_dump", url, ["--format=custom", "--file", file], "--dbname");
  // The archive reads back whole: its table of contents lists the tables hms-mcp keeps.
  const listing = await pgTool(siblingOf(pgDump, "pg_restore"), undefined, ["--list", file]);
  if (!/TABLE DATA \S+ hms_memories /.test(listing)) {
    throw new Error(`${file} holds no table hms_memories: is ${redactUrl(url)} an hms-mcp store?`);
  }
  say(`${redactUrl(url)}: pg_dump wrote ${dump}`);
  return { dump };
}

/** The program `name` beside `tool` when `tool` is a path, else `name` on PATH. */
export function siblingOf(tool: string | undefined, name: string): string {
  return tool?.includes("/") ? join(tool, "..", name) : name;
}

/** Writes `backup.json` whole or not at all. */
function writeManifest(to: string, manifest: BackupManifest): void {
  const partial = join(to, `${MANIFEST}.partial`);
  writeFileSync(partial, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, join(to, MANIFEST));
}
