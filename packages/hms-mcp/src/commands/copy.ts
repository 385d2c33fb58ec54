/**
 * `hms-mcp copy --from SOURCE --to DESTINATION`: copies every namespace of a store to another,
 * between a SQLite data directory and a PostgreSQL database (either way, or like to like).
 * Each memory keeps its version, tags, metadata and times (`StoreApi.load`), and a memory
 * file's history at the destination starts with the attribution (who, and which command) of
 * its newest change at the source. A destination namespace that already holds memories is
 * refused before anything is copied.
 */
import { MAX_TEXT_BYTES_CAP } from "@hms/protocol";
import {
  type Attribution,
  DEFAULT_LIMITS,
  isMemoryFile,
  type MemoryRecord,
  type StoreApi,
  type StoreEngine,
} from "@hms/store";
import { Command, InvalidArgumentError, Option } from "commander";
import { ConfigError } from "../config/config.js";
import { parseCommand } from "./parse-command.js";
import { describePlace as describe, openEngine, type Place, placeOf } from "./store-place.js";

/** Memories read and loaded at a time. */
const PAGE = 500;

/**
 * Copies every namespace of `from` to `to`, writing progress to `progress`. Refuses (nothing
 * copied) when a destination namespace already holds memories. Returns the counts.
 */
export async function copyStores(
  from: StoreEngine,
  to: StoreEngine,
  progress: (line: string) => void,
): Promise<{ namespaces: number; memories: number }> {
  const names = await from.names();
  const occupied: string[] = [];
  for (const name of names) {
    if ((await (await to.read(name)).stats()).memories > 0) occupied.push(name);
  }
  if (occupied.length > 0) {
    throw new ConfigError(
      `the destination already holds memories in namespace${occupied.length > 1 ? "s" : ""} ` +
        `${occupied.slice(0, 10).join(", ")}${occupied.length > 10 ? ` and ${occupied.length - 10} more` : ""}; ` +
        "nothing was copied: copy to an empty destination, or empty those namespaces first",
    );
  }
  let memories = 0;
  for (const [i, name] of names.entries()) {
    const source = await from.read(name);
    const total = (await source.stats()).memories;
    const destination = await to.get(name);
    let copied = 0;
    let cursor: string | undefined;
    do {
      const page = await source.export({ cursor, limit: PAGE });
      for (const { who, records } of await byAttribution(source, page.memories)) {
        const loaded = await destination.history.attributed(who, () => destination.load(records));
        copied += loaded.loaded;
      }
      cursor = page.next_cursor ?? undefined;
      if (cursor !== undefined) progress(`  ${name}: ${copied} of ${total}`);
    } while (cursor !== undefined);
    memories += copied;
    progress(`namespace ${i + 1}/${names.length} ${name}: ${copied} memories copied`);
  }
  return { namespaces: names.length, memories };
}

/**
 * `records` in runs of the same attribution: that of each memory file's newest change in
 * `source`'s history (none for other keys, and for a file the history no longer reaches).
 */
async function byAttribution(
  source: StoreApi,
  records: readonly MemoryRecord[],
): Promise<{ who: Attribution; records: MemoryRecord[] }[]> {
  const runs: { who: Attribution; records: MemoryRecord[] }[] = [];
  for (const record of records) {
    const newest = isMemoryFile(record.key, record.tags)
      ? (await source.history.ofFile(record.key, { limit: 1 })).entries[0]
      : undefined;
    const who = { actor: newest?.actor ?? undefined, command: newest?.command ?? undefined };
    const last = runs[runs.length - 1];
    if (last !== undefined && last.who.actor === who.actor && last.who.command === who.command) {
      last.records.push(record);
    } else {
      runs.push({ who, records: [record] });
    }
  }
  return runs;
}

/** Runs `hms-mcp copy ...` with `argv` (after `copy`); resolves to the exit status. */
export async function copyCommand(argv: readonly string[], version: string): Promise<number> {
  const program = new Command("hms-mcp copy")
    .description(
      "Copy every namespace of a store to another: from a SQLite data directory to a " +
        "PostgreSQL database, back, or like to like. Every memory keeps its version, tags, " +
        "metadata and times; the history starts anew at the destination, each memory file's " +
        "with who made its newest change (a backup that keeps the whole history is " +
        "`hms-mcp backup`). A destination " +
        "namespace that already holds memories is refused before anything is copied. Stop the " +
        "servers writing to the source first. Progress goes to stderr. Exits 0 when done, 1 " +
        "when a store cannot be used or the copy is refused, 2 for a bad flag.",
    )
    .version(version, "-V, --version", "print the version and exit")
    .helpOption("-h, --help", "print this help and exit")
    .requiredOption(
      "--from <source>",
      "the data directory or the database URL (postgres://USER:PASSWORD@HOST:PORT/DB) to copy from",
    )
    .requiredOption(
      "--to <destination>",
      "the data directory or the database URL to copy to (a database's schema is brought up to date)",
    )
    .addOption(
      new Option(
        "--max-text-bytes <bytes>",
        "largest memory text the stores accept: the source server's --max-text-bytes",
      )
        .default(DEFAULT_LIMITS.maxTextBytes)
        .argParser((value: string) => {
          const n = Number(value);
          if (!/^\d+$/.test(value) || n < 1 || n > MAX_TEXT_BYTES_CAP) {
            throw new InvalidArgumentError(`expected an integer from 1 to ${MAX_TEXT_BYTES_CAP}`);
          }
          return n;
        }),
    );
  const usage = parseCommand(program, "hms-mcp copy", argv);
  if (usage !== undefined) return usage;
  const options = program.opts<{ from: string; to: string; maxTextBytes: number }>();
  const say = (line: string) => process.stderr.write(`hms-mcp copy: ${line}\n`);
  let from: Place;
  let to: Place;
  try {
    from = placeOf(options.from, "--from");
    to = placeOf(options.to, "--to");
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    say(error.message);
    return 2;
  }
  if (describe(from) === describe(to)) {
    say("--from and --to name the same store; name two different ones");
    return 2;
  }
  const opened: StoreEngine[] = [];
  try {
    const source = await openEngine(from, "source", options.maxTextBytes);
    opened.push(source);
    const destination = await openEngine(to, "destination", options.maxTextBytes);
    opened.push(destination);
    say(`from ${describe(from)} to ${describe(to)}`);
    const done = await copyStores(source, destination, say);
    say(`done: ${done.memories} memories in ${done.namespaces} namespaces`);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    say(message.split("\n")[0] ?? message);
    return 1;
  } finally {
    for (const engine of opened) await engine.close();
  }
}
