/**
 * `hms-mcp namespaces [--data-dir DIR | --database-url URL] [--json]`: the namespaces of a
 * store by name, with their memories, bytes and last change (on SQLite also the size on
 * disk), read without creating or upgrading anything. `hms namespaces` runs it.
 */
import { DEFAULT_LIMITS, type NamespaceSummary, Namespaces, type StoreEngine } from "@hms/store";
import { Command } from "commander";
import { ConfigError } from "../config/config.js";
import { redactUrl } from "../config/database-url.js";
import { parseCommand } from "./parse-command.js";
import { isDirectory, type Place, placeOfFlags, withStoreFlags } from "./store-place.js";

/** What `--json` prints: where the store is, and its namespaces in name order. */
export interface NamespacesListing {
  /** The data directory, or the database URL without its password. */
  readonly store: string;
  readonly engine: "sqlite" | "postgres";
  readonly namespaces: NamespaceSummary[];
}

/** Runs `hms-mcp namespaces ...` with `argv` (after `namespaces`); resolves to the exit status. */
export async function namespacesCommand(argv: readonly string[], version: string): Promise<number> {
  const program = withStoreFlags(new Command("hms-mcp namespaces"))
    .description(
      "List the namespaces of a data directory (or a PostgreSQL database) by name, with how " +
        "many memories each holds, their bytes, the last change and, on SQLite, the size on " +
        "disk. Only reads: no store is opened, created or upgraded. Exits 0, 1 when there is " +
        "no store there or it cannot be read, 2 for a bad flag.",
    )
    .version(version, "-V, --version", "print the version and exit")
    .helpOption("-h, --help", "print this help and exit")
    .option("--json", "print one JSON document on stdout");
  const usage = parseCommand(program, "hms-mcp namespaces", argv);
  if (usage !== undefined) return usage;
  const options = program.opts<{ dataDir?: string; databaseUrl?: string; json?: boolean }>();
  const say = (line: string) => process.stderr.write(`hms-mcp namespaces: ${line}\n`);
  let place: Place;
  try {
    place = placeOfFlags(options);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    say(error.message);
    return 2;
  }
  let listing: NamespacesListing;
  try {
    listing =
      place.kind === "sqlite" ? await list("sqlite", place.dir) : await list("postgres", place.url);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    say(message.split("\n")[0] ?? message);
    return 1;
  }
  process.stdout.write(
    options.json ? `${JSON.stringify(listing, null, 2)}\n` : describeListing(listing),
  );
  return 0;
}

/** The namespaces at `where`: a data directory (which must exist) or a database URL. */
async function list(engine: "sqlite" | "postgres", where: string): Promise<NamespacesListing> {
  let opened: StoreEngine;
  if (engine === "sqlite") {
    if (!isDirectory(where)) {
      throw new ConfigError(
        `there is no data directory at ${where}: nothing was ever stored there (check --data-dir)`,
      );
    }
    opened = new Namespaces({ dataDir: where });
  } else {
    // node-postgres is loaded only for a database, which is only read (never migrated).
    const { openCopyEngine } = await import("../runtime/postgres.js");
    opened = await openCopyEngine(where, {
      maxTextBytes: DEFAULT_LIMITS.maxTextBytes,
      migrate: false,
    });
  }
  try {
    const namespaces = await opened.summaries();
    return { store: engine === "sqlite" ? where : redactUrl(where), engine, namespaces };
  } finally {
    await opened.close();
  }
}

/** The listing as aligned columns, for a person. */
function describeListing(listing: NamespacesListing): string {
  if (listing.namespaces.length === 0) return `no namespace in ${listing.store}\n`;
  const rows = [
    ["NAMESPACE", "MEMORIES", "BYTES", "ON DISK", "LAST CHANGE"],
    ...listing.namespaces.map((ns) => [
      ns.name,
      String(ns.memories),
      String(ns.bytes),
      ns.disk_bytes === undefined ? "-" : String(ns.disk_bytes),
      ns.updated_at ?? "-",
    ]),
  ];
  const widths = rows[0]?.map((_, column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  return `${rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths?.[column] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}
