import { type HmsMemoryBackend, runAsCommand } from "@hms/memory-backend-hms";
import { MAX_RECALL_K } from "@hms/protocol";
import { Command, InvalidArgumentError, Option } from "commander";
import packageJson from "../package.json" with { type: "json" };
import { utf8Path } from "./arguments.js";
import { cat } from "./commands/cat.js";
import { diff } from "./commands/diff.js";
import { edit } from "./commands/edit.js";
import { exportTo } from "./commands/export.js";
import { history } from "./commands/history.js";
import { importFrom } from "./commands/import.js";
import { ls } from "./commands/ls.js";
import { mv } from "./commands/mv.js";
import { namespaces } from "./commands/namespaces.js";
import { parseAge, prune } from "./commands/prune.js";
import { recall } from "./commands/recall.js";
import { reembed } from "./commands/reembed.js";
import { restore } from "./commands/restore.js";
import { rm } from "./commands/rm.js";
import { stats } from "./commands/stats.js";
import { watch } from "./commands/watch.js";
import { write } from "./commands/write.js";
import { CliError, EXIT } from "./errors.js";
import { onInterrupt, terminate } from "./interrupt.js";
import type { Io } from "./io.js";
import { Output } from "./output.js";
import { memoryPath } from "./paths.js";
import {
  CALL_TIMEOUT_SECONDS,
  openTarget,
  type StoreNeed,
  type TargetOptions,
  URL_TIMEOUT_SECONDS,
} from "./target.js";
import { pointInTime } from "./when.js";

interface GlobalOptions extends TargetOptions {
  json: boolean;
}

const EPILOG = `
Paths are Claude's memory paths: notes/a.md, memories/notes/a.md and /memories/notes/a.md are
the same file. Without --url, hms starts its own hms-mcp on the data directory (the store may
be in use by a running server at the same time); with --url it uses a running server over HTTP,
with the token from HMS_MCP_TOKEN.

hms --version (or -V) prints the version.

Reads never create anything: a --data-dir or --namespace that holds no store is reported (exit
1). import, write and edit create the store when it does not exist.

Exit codes: 0 done, 1 refused or failed (not found, no store, conflict, refused import), 2 wrong
command line, 3 hms-mcp could not be started or reached, 128+N stopped by signal N (hms stops
the hms-mcp it started, and an editor, however it ends).`;

/** The version of this program. */
export const VERSION: string = packageJson.version;

/** Options read from the environment when not given as flags: option, then variable. */
const FROM_ENV = [
  ["dataDir", "HMS_MCP_DATA_DIR"],
  ["namespace", "HMS_MCP_NAMESPACE"],
] as const;

/**
 * The `hms` program over `io`: global options, then one subcommand; and the exit code of a
 * command that ran to its end (main.ts turns a failure into its own). `--version` is read by
 * main.ts only as the first argument: commander would take it anywhere, and `restore
 * --version N` is a version of a file.
 */
export function buildProgram(io: Io): { program: Command; exitCode: () => number } {
  let exitCode = 0;
  const program = new Command("hms")
    .description(
      "Look at, search, move, export and import what Claude keeps in a Holographic Memory store.",
    )
    // Their variables are read from io.env below (commander's .env() reads process.env).
    .addOption(
      new Option(
        "--data-dir <dir>",
        "the local data directory (default: hms-mcp's) (env: HMS_MCP_DATA_DIR)",
      ),
    )
    .addOption(
      new Option("--namespace <name>", "the namespace (store) to use (env: HMS_MCP_NAMESPACE)"),
    )
    // Not commander's .conflicts("dataDir"): that refuses --url whenever HMS_MCP_DATA_DIR is
    // exported; a flag beats a variable (run() drops the variable's data dir under --url).
    .addOption(new Option("--url <url>", "a running hms-mcp over HTTP (token: HMS_MCP_TOKEN)"))
    .addOption(
      new Option(
        "--timeout <seconds>",
        `how long to wait for the server's first answer (default: ${URL_TIMEOUT_SECONDS} with ` +
          `--url, ${CALL_TIMEOUT_SECONDS} for the server hms starts)`,
      ).argParser(seconds),
    )
    .option("--json", "print one JSON document on stdout, for scripts", false)
    .addHelpText("after", EPILOG)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (message, write) => write(`hms: ${message.replace(/^error: /, "")}`),
    });

  // Each change a command makes is recorded in the server's history as `hms_<command>`.
  let commandName = "hms";
  program.hook("preAction", (_program, action) => {
    commandName = `hms_${action.name()}`;
    for (const [option, variable] of FROM_ENV) {
      const value = io.env[variable];
      if (value && program.getOptionValue(option) === undefined) {
        program.setOptionValueWithSource(option, value, "env");
      }
    }
  });
  /** The global options, with a data dir from HMS_MCP_DATA_DIR dropped when --url is given. */
  const globals = (): GlobalOptions => {
    const options = { ...program.opts<GlobalOptions>() };
    if (options.url !== undefined && program.getOptionValueSource("dataDir") === "env") {
      delete options.dataDir;
    }
    if (options.dataDir !== undefined) {
      const from =
        program.getOptionValueSource("dataDir") === "env" ? "HMS_MCP_DATA_DIR" : "--data-dir";
      utf8Path(options.dataDir, from);
    }
    return options;
  };
  const run =
    (
      action: (backend: HmsMemoryBackend, out: Output) => Promise<void>,
      target: Partial<TargetOptions> = {},
      need: StoreNeed = "existing",
    ) =>
    async () => {
      const options = globals();
      const out = new Output(options.json, io);
      const backend = await openTarget({ ...options, ...target }, need, io);
      // The server we started goes with us, however hms ends.
      const stopServer = onInterrupt(() => terminate(backend.pid));
      try {
        await runAsCommand(commandName, () => action(backend, out));
        exitCode = out.exitCode;
      } finally {
        await backend.close();
        stopServer();
      }
    };

  program
    .command("ls")
    .description("list a directory (default /memories), or one file")
    .argument("[path]", "a memory path")
    .option("-R, --recursive", "every file under the directory", false)
    .action((path: string | undefined, options: { recursive: boolean }) => {
      const at = memoryPath(path);
      return run((backend, out) => ls(backend, at, options, out))();
    });

  program
    .command("cat")
    .description("print a memory file")
    .argument("<path>", "a memory path")
    .option("-n, --line-numbers", "number the lines, as Claude's view does", false)
    .action((path: string, options: { lineNumbers: boolean }) => {
      const at = memoryPath(path);
      return run((backend, out) => cat(backend, at, options, out))();
    });

  program
    .command("recall")
    .description("the memory files that best answer a query, with the lines to read")
    .argument("<query>", "what to look for, in plain words")
    .option("-k <n>", `how many files (1 to ${MAX_RECALL_K})`, count(MAX_RECALL_K), 5)
    .option("--under <path>", "only files under this directory")
    .option(
      "--since <when>",
      "only files changed since then: a duration back from now (30m, 12h, 7d, 2w) or an ISO " +
        "8601 time with a timezone (2026-07-01T00:00:00Z)",
      (value: string) => pointInTime(value),
    )
    .option(
      "--before <when>",
      "only files last changed before then (same forms)",
      (value: string) => pointInTime(value),
    )
    .action(
      (query: string, options: { k: number; under?: string; since?: string; before?: string }) => {
        const { since, before } = options;
        if (since !== undefined && before !== undefined && Date.parse(since) > Date.parse(before)) {
          throw new CliError(
            `--since ${since} is after --before ${before}, so no file could match: give an earlier --since or a later --before`,
            EXIT.usage,
          );
        }
        const scope = {
          k: options.k,
          ...(options.under === undefined ? {} : { prefix: memoryPath(options.under) }),
          ...(options.since === undefined ? {} : { since: options.since }),
          ...(options.before === undefined ? {} : { before: options.before }),
        };
        return run((backend, out) => recall(backend, query, scope, out))();
      },
    );

  program
    .command("rm")
    .description("delete a file, or a directory with -r (one transaction)")
    .argument("<path>", "a memory path")
    .option("-r, --recursive", "delete a directory and everything under it", false)
    .action((path: string, options: { recursive: boolean }) => {
      const at = memoryPath(path);
      return run((backend, out) => rm(backend, at, options, out))();
    });

  program
    .command("mv")
    .description("rename a file or a directory (one transaction)")
    .argument("<from>", "the memory path to rename")
    .argument("<to>", "its new path; must not exist")
    .action((from: string, to: string) => {
      const [source, target] = [memoryPath(from), memoryPath(to)];
      return run((backend, out) => mv(backend, source, target, out))();
    });

  program
    .command("history")
    .description("a file's versions, or every change under a directory, newest first")
    .argument("[path]", "a memory path (default /memories)")
    .option("--since <time>", "directories: only changes at or after this ISO 8601 time")
    .option("--limit <n>", "most changes to show (1 to 1000)", count(1000), 50)
    .action((path: string | undefined, options: { since?: string; limit: number }) => {
      const at = memoryPath(path);
      return run((backend, out) => history(backend, at, options, out))();
    });

  program
    .command("watch")
    .description(
      "print each change under a directory (default /memories), or to a file, as it happens, until Ctrl-C",
    )
    .argument("[path]", "a memory path")
    .action((path: string | undefined) => {
      const at = memoryPath(path);
      // The store may not exist yet: the first write to it is a change like any other.
      return run((backend, out) => watch(backend, at, out), {}, "nothing")();
    });

  program
    .command("diff")
    .description("what changed between two versions (default: the last change)")
    .argument("<path>", "a memory path")
    .argument("[v1]", "the older version (default: the one before the current)", versionNumber)
    .argument("[v2]", "the newer version (default: the file now)", versionNumber)
    .action((path: string, v1: number | undefined, v2: number | undefined) => {
      const at = memoryPath(path);
      const versions = [v1, v2].filter((v): v is number => v !== undefined);
      return run((backend, out) => diff(backend, at, versions, out))();
    });

  program
    .command("restore")
    .description("bring a file back to a version or a time, or a directory back to a time")
    .argument("<path>", "a memory path")
    .option("--version <n>", "the version to bring back (see hms history)", versionNumber)
    .option("--at <time>", "an ISO 8601 time to bring the file or directory back to")
    .action((path: string, options: { version?: number; at?: string }) => {
      const at = memoryPath(path);
      if ((options.version === undefined) === (options.at === undefined)) {
        throw new CliError("give exactly one of --version N or --at TIME", EXIT.usage);
      }
      return run((backend, out) => restore(backend, at, options, out))();
    });

  program
    .command("prune")
    .description("list (or with --yes delete) the memory files unused for a while")
    .requiredOption("--unused-for <age>", "how long unread and unwritten: 90d, 12w, ...")
    .option("--under <path>", "only files under this directory")
    .option("--yes", "delete them (without it, only list them)", false)
    .action((options: { unusedFor: string; under?: string; yes: boolean }) => {
      parseAge(options.unusedFor);
      const scope = {
        unusedFor: options.unusedFor,
        yes: options.yes,
        ...(options.under === undefined ? {} : { under: memoryPath(options.under) }),
      };
      return run((backend, out) => prune(backend, scope, out))();
    });

  program
    .command("reembed")
    .description("give every memory of a local store vectors of an embedding model, with progress")
    .requiredOption(
      "--model-dir <dir>",
      "the model's directory, as `hms-mcp fetch-model` prints it",
    )
    .action((options: { modelDir: string }) => {
      const modelDir = utf8Path(options.modelDir, "--model-dir");
      return run((backend, out) => reembed(backend, out), { reembedWith: modelDir })();
    });

  program
    .command("write")
    .description("create a file, or replace its text, with stdin or --file, byte for byte")
    .argument("<path>", "a memory path")
    .option("--file <file>", "read the text from this file instead of stdin")
    .action((path: string, options: { file?: string }) => {
      const at = memoryPath(path);
      if (options.file !== undefined) utf8Path(options.file, "--file");
      return run((backend, out) => write(backend, at, options, out), {}, "create")();
    });

  program
    .command("edit")
    .description(
      "edit a file (or a new one) in $VISUAL or $EDITOR; saved only if nobody changed it meanwhile",
    )
    .argument("<path>", "a memory path")
    .action((path: string) => {
      const at = memoryPath(path);
      return run((backend, out) => edit(backend, at, out), {}, "create")();
    });

  program
    .command("namespaces")
    .description(
      "the namespaces of the data directory (or those the token may use on --url), with size and last change",
    )
    .action(() => {
      const options = globals();
      return namespaces(options, new Output(options.json, io));
    });

  program
    .command("stats")
    .description("the store's size, limits, recall build and server")
    .action(() => run((backend, out) => stats(backend, out))());

  program
    .command("export")
    .description(
      "write the memory files to DIR/memories/ (as the SDK's filesystem tool keeps them), or everything to FILE.jsonl",
    )
    .requiredOption("--to <target>", "a directory, or a file ending in .jsonl")
    .option("--force", "overwrite files that exist", false)
    .action((options: { to: string; force: boolean }) => {
      const to = utf8Path(options.to, "--to");
      return run((backend, out) => exportTo(backend, to, options, out))();
    });

  program
    .command("import")
    .description(
      "read an SDK filesystem memory directory (its base path or memories/ folder) or an hms .jsonl export",
    )
    .requiredOption("--from <source>", "a directory, or a file ending in .jsonl")
    .option("--overwrite", "replace files that exist in the store", false)
    .option("--skip-refused", "import the rest when some files are refused", false)
    .option("--dry-run", "list what would be imported and refused; write nothing", false)
    .action(
      (options: { from: string; overwrite: boolean; skipRefused: boolean; dryRun: boolean }) => {
        const from = utf8Path(options.from, "--from");
        return run(
          (backend, out) => importFrom(backend, from, options, out),
          {},
          // A dry run writes nothing, and creates no store to write nothing into.
          options.dryRun ? "nothing" : "create",
        )();
      },
    );

  for (const command of program.commands) {
    command.exitOverride().configureOutput(program.configureOutput());
  }
  return { program, exitCode: () => exitCode };
}

/** Parses --timeout: a number of seconds from 1 to 3600. */
function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 3600) {
    throw new InvalidArgumentError("must be a whole number of seconds from 1 to 3600");
  }
  return n;
}

/** Parses a version number. */
function versionNumber(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError("must be a version number (see hms history)");
  }
  return n;
}

/** Parses a whole number from 1 to `max`. */
function count(max: number) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max) {
      throw new InvalidArgumentError(`must be a whole number from 1 to ${max}`);
    }
    return n;
  };
}
