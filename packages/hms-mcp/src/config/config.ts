import { isIP } from "node:net";
import { resolve } from "node:path";
import { MAX_TEXT_BYTES_CAP } from "@hms/protocol";
import {
  checkNamespace,
  DEFAULT_LIMITS,
  DEFAULT_MAX_OPEN,
  DEFAULT_NAMESPACE,
  defaultDataDir,
  SYNCHRONOUS_MODES,
  type SynchronousMode,
} from "@hms/store";
import { Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_MAX_SUBSCRIPTIONS } from "../notify/subscriptions.js";
import type { EmbedRuntime } from "../semantic/protocol.js";
import { databaseUrlProblem } from "./database-url.js";
import { tokenFromEnv } from "./token-file.js";

/** Where a server keeps its namespaces when it runs on PostgreSQL (`--database-url`). */
export interface DatabaseConfig {
  readonly url: string;
  /** Most connections the server holds open (`--pg-pool-size`). */
  readonly poolSize: number;
  /** Run the schema's migrations at start (false with `--no-migrate`). */
  readonly migrate: boolean;
}

/** Default of `--pg-pool-size`. */
export const DEFAULT_PG_POOL_SIZE = 10;

/** Everything a running server is configured with. */
export interface Config {
  /** Where the SQLite stores live; unused when `database` is set. */
  readonly dataDir: string;
  /** PostgreSQL: every namespace in this database instead of SQLite files in `dataDir`. */
  readonly database?: DatabaseConfig | undefined;
  readonly namespace: string;
  readonly namespaceArg: boolean;
  /** Never create the data directory or a namespace (--no-create): reads only, of what exists. */
  readonly noCreate?: boolean | undefined;
  /** How clients reach it: stdio, HTTP, or in its host's own process (`connectInProcess`). */
  readonly transport: "stdio" | "http" | "in-process";
  readonly host: string;
  readonly port: number;
  readonly path: string;
  readonly maxTextBytes: number;
  readonly maxOpenNamespaces: number;
  /** Most resource subscriptions one connection (stdio pipe or HTTP session) holds. */
  readonly maxSubscriptions?: number | undefined;
  /** Most namespaces the data directory may hold; undefined: no bound. */
  readonly maxNamespaces?: number | undefined;
  /** How long a write waits for another process's lock on a store, in ms. */
  readonly busyTimeoutMs: number;
  /** When commits reach the disk: "full" (each commit) or "normal" (at checkpoints). */
  readonly synchronous: SynchronousMode;
  readonly logLevel: LogLevel;
  readonly allowRemote: boolean;
  /** Extra Origin values allowed on HTTP requests (browser clients). */
  readonly allowedOrigins: readonly string[];
  /** Extra Host header values allowed on HTTP requests. */
  readonly allowedHosts: readonly string[];
  /** The all-access bearer token (HMS_MCP_TOKEN, or the file HMS_MCP_TOKEN_FILE names). */
  readonly token: string | undefined;
  /** HTTP: the tokens file (JSON Lines of named token hashes and their namespaces). */
  readonly tokensFile?: string | undefined;
  /** The embedding model's directory: hybrid recall. Undefined: lexical recall. */
  readonly modelDir?: string | undefined;
  /**
   * `--model`: the embedding model the directory must hold (an id of @hms/embedder's MODELS);
   * undefined: whichever model of those the directory holds.
   */
  readonly model?: string | undefined;
  /** Replace a store's vectors made by another model instead of refusing it (default false). */
  readonly reembed?: boolean | undefined;
  /** Embedding worker threads, each with a copy of the model; undefined: the default. */
  readonly embedWorkers?: number | undefined;
  /** ONNX Runtime threads of each embedding worker; undefined: the default. */
  readonly embedThreads?: number | undefined;
  /** Which ONNX Runtime runs the model; undefined: auto (native when installed). */
  readonly embedRuntime?: EmbedRuntime | undefined;
  /** Longest a recall waits for its own connection's recent writes to be embedded, in ms. */
  readonly recallWaitMs?: number | undefined;
  /** HTTP bounds on what clients can make the server hold (defaults in http.ts). */
  readonly http?: HttpLimitsConfig | undefined;
  /** Versions of each memory file the history keeps; 0 keeps them all (default 100). */
  readonly keepVersions?: number | undefined;
  /** Days the history keeps a version; 0 keeps them regardless of age (the default). */
  readonly keepDays?: number | undefined;
  /**
   * MiB of history each namespace keeps, or as many bytes as its live text when that is more
   * (default 8); 0: no bound. The oldest changes go first.
   */
  readonly keepMib?: number | undefined;
  /** HTTP: serve the web inspector at /ui. */
  readonly ui?: boolean | undefined;
}

/** HTTP: sessions and requests one client (token) and all clients may hold. */
export interface HttpLimitsConfig {
  readonly maxSessions?: number | undefined;
  readonly maxSessionsPerToken?: number | undefined;
  readonly sessionIdleMs?: number | undefined;
  readonly maxInFlight?: number | undefined;
  readonly maxInFlightPerToken?: number | undefined;
  readonly maxNewSessionsPerSecond?: number | undefined;
  readonly maxUnreadBytes?: number | undefined;
  /** How long a request's headers may take to arrive, in ms. */
  readonly headersTimeoutMs?: number | undefined;
  /** How long a request's headers and body may take to arrive, in ms. */
  readonly requestTimeoutMs?: number | undefined;
  /** Most connections open from one address (an IPv6 /64); 0: no cap. */
  readonly maxConnectionsPerPeer?: number | undefined;
}

/** Default of `keepVersions` (`--keep-versions`). */
export const DEFAULT_KEEP_VERSIONS = 100;

/** Default of `keepMib` (`--keep-mib`): @hms/store's DEFAULT_HISTORY_BYTES, in MiB. */
export const DEFAULT_KEEP_MIB = 8;

/** Default of `recallWaitMs` (`--recall-wait`). */
export const DEFAULT_RECALL_WAIT_MS = 2000;

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Shortest token a server listening beyond loopback accepts, in bytes. */
export const MIN_REMOTE_TOKEN_BYTES = 32;

/** A configuration the server refuses to start with; the message says why and what to do. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

function integer(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    }
    return n;
  };
}

/**
 * --max-text-bytes: at most MAX_TEXT_BYTES_CAP, so that the answer carrying the largest memory
 * stays readable by every official MCP client (see @hms/protocol's limits).
 */
function maxTextBytes(value: string): number {
  const n = integer(1, Number.MAX_SAFE_INTEGER)(value);
  if (n > MAX_TEXT_BYTES_CAP) {
    throw new InvalidArgumentError(
      `expected an integer from 1 to ${MAX_TEXT_BYTES_CAP} (1.5 MiB): JSON may write each byte ` +
        "of a memory as 6 (a control character is \\u00XX), and a larger memory would make " +
        "answers over the 10 MiB the MCP TypeScript SDK's stdio client reads",
    );
  }
  return n;
}

function namespaceName(value: string): string {
  try {
    return checkNamespace(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function urlPath(value: string): string {
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/.test(value)) {
    throw new InvalidArgumentError("expected a URL path starting with '/'");
  }
  return value;
}

function commaList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off", ""]);

/** A boolean flag that can also be turned on by an environment variable. */
function flagOrEnv(flag: boolean | undefined, env: NodeJS.ProcessEnv, name: string): boolean {
  if (flag) return true;
  const value = env[name];
  if (value === undefined) return false;
  const normal = value.trim().toLowerCase();
  if (TRUE.has(normal)) return true;
  if (FALSE.has(normal)) return false;
  throw new ConfigError(`${name}=${JSON.stringify(value)} is not a boolean; use 1 or 0`);
}

/** True for addresses that only this machine can reach. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || bare === "0:0:0:0:0:0:0:1";
  return false;
}

/** Writes commander's error as one line: `prefix: what is wrong (hint)`. */
export function oneLineError(prefix: string, hint: string) {
  return (message: string, write: (text: string) => void): void => {
    const what = message
      .replace(/^error: /, "")
      .replace(/\s*\n\s*/g, " ")
      .trim();
    write(`${prefix}: ${what} (${hint})\n`);
  };
}

/** The command-line interface: every flag, with its environment variable and default. */
export function buildCommand(version: string): Command {
  // A bad flag is one line saying what is wrong and where to look, not the help after it.
  const command = new Command("hms-mcp")
    .description(
      "MCP server for the Holographic Memory store: durable, versioned, searchable memories " +
        "over stdio (default) or streamable HTTP.\n\n" +
        "Environment only: HMS_MCP_TOKEN (or HMS_MCP_TOKEN_FILE, a file holding it), a bearer " +
        "token that opens every namespace over HTTP " +
        "(--tokens-file adds named tokens limited to some namespaces).\n\n" +
        "Recall is lexical (BM25) unless --model-dir names an embedding model: then it is " +
        "hybrid (BM25 plus embeddings). `hms-mcp fetch-model` installs the model and prints " +
        "its directory.",
    )
    .version(version, "-V, --version", "print the version and exit")
    .helpOption("-h, --help", "print this help and exit")
    .addOption(
      new Option("--data-dir <dir>", `where the stores live (default: ${defaultDataDir()})`).env(
        "HMS_MCP_DATA_DIR",
      ),
    )
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
    )
    .addOption(
      new Option("--namespace <name>", "the namespace (store) to serve")
        .env("HMS_MCP_NAMESPACE")
        .default(DEFAULT_NAMESPACE)
        .argParser(namespaceName),
    )
    .addOption(
      new Option(
        "--namespace-arg",
        "let every tool take a namespace argument (env: HMS_MCP_NAMESPACE_ARG=1)",
      ),
    )
    .addOption(
      new Option(
        "--no-create",
        "create neither the data directory nor a namespace: one that does not exist reads as " +
          "empty (stats says exists: false) and writing to it is refused; `hms` reads this way " +
          "(env: HMS_MCP_NO_CREATE=1)",
      ),
    )
    .addOption(
      new Option("--transport <kind>", "stdio or http")
        .env("HMS_MCP_TRANSPORT")
        .choices(["stdio", "http"])
        .default("stdio"),
    )
    .addOption(
      new Option("--max-sessions <n>", "HTTP: most sessions of all clients; then new ones get 503")
        .env("HMS_MCP_MAX_SESSIONS")
        .default(1000)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-sessions-per-token <n>",
        "HTTP: most sessions one token holds; one of its own (unused first, else least recently used) is closed to make room",
      )
        .env("HMS_MCP_MAX_SESSIONS_PER_TOKEN")
        .default(100)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option("--session-idle-timeout <s>", "HTTP: a session unused this long is closed")
        .env("HMS_MCP_SESSION_IDLE_TIMEOUT")
        .default(1800)
        .argParser(integer(1, 7 * 24 * 3600)),
    )
    .addOption(
      new Option("--max-in-flight <n>", "HTTP: most requests of all clients in flight; then 503")
        .env("HMS_MCP_MAX_IN_FLIGHT")
        .default(64)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-new-sessions-per-second <n>",
        "HTTP: new sessions one token may open per second (bursts of twice that); then 429",
      )
        .env("HMS_MCP_MAX_NEW_SESSIONS_PER_SECOND")
        .default(20)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-in-flight-per-token <n>",
        "HTTP: most requests one token has in flight; then 429",
      )
        .env("HMS_MCP_MAX_IN_FLIGHT_PER_TOKEN")
        .default(16)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-unread-bytes <bytes>",
        "HTTP: most bytes of answers held for clients that do not read them; beyond it the " +
          "longest-held connections are closed",
      )
        .env("HMS_MCP_MAX_UNREAD_BYTES")
        .default(64 * 1024 * 1024)
        .argParser(integer(1024 * 1024, 2 ** 40)),
    )
    .addOption(
      new Option(
        "--headers-timeout <s>",
        "HTTP: a request's headers must all come within this; then its connection is closed (408)",
      )
        .env("HMS_MCP_HEADERS_TIMEOUT")
        .default(10)
        .argParser(integer(1, 3600)),
    )
    .addOption(
      new Option(
        "--request-timeout <s>",
        "HTTP: a request's headers and body must all come within this; then its connection " +
          "is closed (408). A request counts against the bounds in flight only once its body came",
      )
        .env("HMS_MCP_REQUEST_TIMEOUT")
        .default(30)
        .argParser(integer(1, 3600)),
    )
    .addOption(
      new Option(
        "--max-connections-per-peer <n>",
        "HTTP: most connections open from one address (IPv6: one /64), before any token is " +
          "read; then a new one gets 429 and is closed (0: no cap, e.g. behind a proxy)",
      )
        .env("HMS_MCP_MAX_CONNECTIONS_PER_PEER")
        .default(256)
        .argParser(integer(0, 1_000_000)),
    )
    .addOption(
      new Option("--host <address>", "HTTP: address to listen on")
        .env("HMS_MCP_HOST")
        .default("127.0.0.1"),
    )
    .addOption(
      new Option("--port <port>", "HTTP: port to listen on (0 picks a free one)")
        .env("HMS_MCP_PORT")
        .default(8765)
        .argParser(integer(0, 65535)),
    )
    .addOption(
      new Option("--path <path>", "HTTP: the MCP endpoint's path")
        .env("HMS_MCP_PATH")
        .default("/mcp")
        .argParser(urlPath),
    )
    .addOption(
      new Option(
        "--max-text-bytes <bytes>",
        `largest memory text in UTF-8 bytes, at most ${MAX_TEXT_BYTES_CAP} (what every MCP client can read back)`,
      )
        .env("HMS_MCP_MAX_TEXT_BYTES")
        .default(DEFAULT_LIMITS.maxTextBytes)
        .argParser(maxTextBytes),
    )
    .addOption(
      new Option("--max-open-namespaces <n>", "most namespace stores kept open at once")
        .env("HMS_MCP_MAX_OPEN_NAMESPACES")
        .default(DEFAULT_MAX_OPEN)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-subscriptions <n>",
        "most resources/subscribe subscriptions one connection holds (a directory's covers " +
          "every file under it); one more is refused",
      )
        .env("HMS_MCP_MAX_SUBSCRIPTIONS")
        .default(DEFAULT_MAX_SUBSCRIPTIONS)
        .argParser(integer(1, 100000)),
    )
    .addOption(
      new Option(
        "--max-namespaces <n>",
        "most namespaces the data directory may hold; a write that would create one more is " +
          "refused (default: no bound)",
      )
        .env("HMS_MCP_MAX_NAMESPACES")
        .argParser(integer(1, 10000000)),
    )
    .addOption(
      new Option(
        "--busy-timeout <ms>",
        "how long a write waits for another process's lock on a store before UNAVAILABLE",
      )
        .env("HMS_MCP_BUSY_TIMEOUT")
        .default(10000)
        .argParser(integer(0, 600000)),
    )
    .addOption(
      new Option(
        "--synchronous <mode>",
        "full: every acknowledged write is on disk (survives a machine crash); normal: fsync " +
          "at checkpoints only (survives a crash of hms-mcp, may lose the last writes on power loss)",
      )
        .env("HMS_MCP_SYNCHRONOUS")
        .choices([...SYNCHRONOUS_MODES])
        .default("full"),
    )
    .addOption(
      new Option(
        "--model-dir <dir>",
        "hybrid recall: the embedding model's directory, as `hms-mcp fetch-model` prints it " +
          "(default: none, lexical recall)",
      ).env("HMS_MCP_MODEL_DIR"),
    )
    .addOption(
      new Option(
        "--model <id>",
        "hybrid recall: the embedding model --model-dir must hold, as `hms-mcp fetch-model " +
          "--model <id>` fetched it (default: whichever model the directory holds)",
      ).env("HMS_MCP_MODEL"),
    )
    .addOption(
      new Option(
        "--reembed",
        "hybrid recall: replace the vectors of a store made by another embedding model, " +
          "re-embedding every memory, instead of refusing the store (env: HMS_MCP_REEMBED=1)",
      ),
    )
    .addOption(
      new Option(
        "--embed-workers <n>",
        "hybrid recall: embedding threads run side by side, each with its own copy of the " +
          "model; 2 embed about a fifth faster than 1 on 2 cores for about 220 MiB more " +
          "memory (default: 1)",
      )
        .env("HMS_MCP_EMBED_WORKERS")
        .argParser(integer(1, 16)),
    )
    .addOption(
      new Option(
        "--embed-threads <n>",
        "hybrid recall: CPU threads each embedding worker's model uses (default: the " +
          "available cores, at most 4, shared out between the workers)",
      )
        .env("HMS_MCP_EMBED_THREADS")
        .argParser(integer(1, 64)),
    )
    .addOption(
      new Option(
        "--embed-runtime <runtime>",
        "hybrid recall: the ONNX Runtime the model runs on: wasm (bundled with @hms/embedder), " +
          "native (onnxruntime-node, about 4x faster, if installed next to it), or auto: " +
          "native when installed, else wasm",
      )
        .env("HMS_MCP_EMBED_RUNTIME")
        .choices(["auto", "native", "wasm"])
        .default("auto"),
    )
    .addOption(
      new Option(
        "--recall-wait <ms>",
        "hybrid recall: longest a recall waits for the memories its own connection (stdio " +
          "pipe or HTTP session) wrote just before it to be embedded, never for others' " +
          "writes or a backlog; memories still waiting are ranked lexically",
      )
        .env("HMS_MCP_RECALL_WAIT")
        .default(DEFAULT_RECALL_WAIT_MS)
        .argParser(integer(0, 60000)),
    )
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
    )
    .addOption(
      new Option("--log-level <level>", "log level (logs go to stderr)")
        .env("HMS_MCP_LOG_LEVEL")
        .choices([...LOG_LEVELS])
        .default("info"),
    )
    .addOption(
      new Option(
        "--allow-remote",
        "HTTP: allow a non-loopback --host (also needs HMS_MCP_TOKEN of at least 32 bytes or " +
          "--tokens-file) (env: HMS_MCP_ALLOW_REMOTE=1)",
      ),
    )
    .addOption(
      new Option(
        "--ui",
        "HTTP: serve the web inspector at /ui, behind the same token (env: HMS_MCP_UI=1)",
      ),
    )
    .addOption(
      new Option(
        "--tokens-file <file>",
        "HTTP: named tokens, each limited to some namespaces and read-only or read-write (JSON " +
          "Lines; `hms-mcp token create` makes an entry); reloaded on change and on SIGHUP",
      ).env("HMS_MCP_TOKENS_FILE"),
    )
    .addOption(
      new Option(
        "--allowed-origins <list>",
        "HTTP: comma-separated Origin values to accept (browser clients); others get 403",
      )
        .env("HMS_MCP_ALLOWED_ORIGINS")
        .argParser(commaList),
    )
    .addOption(
      new Option(
        "--allowed-hosts <list>",
        "HTTP: comma-separated extra Host header values to accept (e.g. a DNS name)",
      )
        .env("HMS_MCP_ALLOWED_HOSTS")
        .argParser(commaList),
    )
    .addHelpText(
      "after",
      [
        "",
        "Commands:",
        "  hms-mcp [options]            serve (the default)",
        "  hms-mcp migrate              PostgreSQL: bring --database-url's schema up to date, then exit",
        "  hms-mcp copy                 copy every namespace between a data directory and a database",
        "  hms-mcp backup               back up a store while it serves, history included",
        "  hms-mcp restore              put a backup (or one namespace of it) back",
        "  hms-mcp namespaces           list the namespaces by name, with size and last change",
        "  hms-mcp fetch-model          install the embedding model of hybrid recall, print its directory",
        "  hms-mcp token create         make a token and print it once, with the line to add to --tokens-file",
        "  hms-mcp help [command]       print this help, or a command's",
      ].join("\n"),
    )
    .configureOutput({ outputError: oneLineError("hms-mcp", "hms-mcp --help lists every flag") })
    .allowExcessArguments(false)
    // A bad flag throws (cli.ts exits 2) instead of commander's exit 1.
    .exitOverride();
  return inHelpGroups(command);
}

/**
 * The sections of `hms-mcp --help`, in order, each with the prefix that marks its flags'
 * descriptions ("HTTP: ..."); every other flag is a common one. A new flag lands in its
 * section by its description alone.
 */
const HELP_GROUPS = [
  { prefix: "", heading: "Common options:" },
  { prefix: "HTTP: ", heading: "HTTP and tokens:" },
  { prefix: "hybrid recall: ", heading: "Hybrid recall:" },
  { prefix: "history: ", heading: "History:" },
  { prefix: "PostgreSQL: ", heading: "PostgreSQL:" },
] as const;

/** Puts each flag of `command` in its help section (without the prefix the heading now says). */
function inHelpGroups(command: Command): Command {
  const rank = (option: Option) => {
    const found = HELP_GROUPS.findIndex(
      ({ prefix }) => prefix !== "" && option.description.startsWith(prefix),
    );
    return Math.max(found, 0);
  };
  // Sections appear in the order of their first flag: sort the flags by section (stably).
  const options = command.options as Option[];
  options.sort((a, b) => rank(a) - rank(b));
  for (const option of options) {
    const group = HELP_GROUPS[rank(option)] ?? HELP_GROUPS[0];
    option.description = option.description.slice(group.prefix.length);
    option.helpGroup(group.heading);
  }
  return command.addHelpOption(
    new Option("-h, --help", "print this help and exit").helpGroup(HELP_GROUPS[0].heading),
  );
}

/** Options as commander parsed them. */
export interface ParsedOptions {
  dataDir?: string;
  databaseUrl?: string;
  pgPoolSize?: number;
  /** False with --no-migrate. */
  migrate: boolean;
  namespace: string;
  namespaceArg?: boolean;
  /** False with --no-create. */
  create: boolean;
  transport: "stdio" | "http";
  host: string;
  port: number;
  path: string;
  maxTextBytes: number;
  maxOpenNamespaces: number;
  maxSubscriptions: number;
  maxNamespaces?: number;
  busyTimeout: number;
  synchronous: SynchronousMode;
  logLevel: LogLevel;
  allowRemote?: boolean;
  allowedOrigins?: string[];
  allowedHosts?: string[];
  tokensFile?: string;
  modelDir?: string;
  model?: string;
  reembed?: boolean;
  embedWorkers?: number;
  embedThreads?: number;
  embedRuntime: EmbedRuntime;
  recallWait: number;
  maxSessions: number;
  maxSessionsPerToken: number;
  sessionIdleTimeout: number;
  maxInFlight: number;
  maxInFlightPerToken: number;
  maxNewSessionsPerSecond: number;
  maxUnreadBytes: number;
  headersTimeout: number;
  requestTimeout: number;
  maxConnectionsPerPeer: number;
  keepVersions: number;
  keepDays: number;
  keepMib: number;
  ui?: boolean;
}

/**
 * The configuration from parsed options and the environment (flags win over variables), with
 * the checks no single option can make. Throws ConfigError for a configuration that must not
 * run, such as a remote listener without a token.
 */
export function resolveConfig(options: ParsedOptions, env: NodeJS.ProcessEnv): Config {
  const namespaceArg = flagOrEnv(options.namespaceArg, env, "HMS_MCP_NAMESPACE_ARG");
  const noCreate = !options.create || flagOrEnv(undefined, env, "HMS_MCP_NO_CREATE");
  const allowRemote = flagOrEnv(options.allowRemote, env, "HMS_MCP_ALLOW_REMOTE");
  const reembed = flagOrEnv(options.reembed, env, "HMS_MCP_REEMBED");
  const ui = flagOrEnv(options.ui, env, "HMS_MCP_UI");
  if (ui && options.transport !== "http") {
    throw new ConfigError(
      "--ui (HMS_MCP_UI) serves the web inspector over HTTP; add --transport http",
    );
  }
  const modelDir = options.modelDir?.trim();
  if (modelDir === "") {
    throw new ConfigError(
      "--model-dir (HMS_MCP_MODEL_DIR) is empty; name the model's directory or unset it",
    );
  }
  const model = options.model?.trim();
  if (model !== undefined && !/^[\x21-\x7e]{1,128}$/.test(model)) {
    throw new ConfigError("--model (HMS_MCP_MODEL) is a model id: 1 to 128 printable characters");
  }
  if (model !== undefined && modelDir === undefined) {
    throw new ConfigError(
      `--model ${model} names the model --model-dir holds, and no --model-dir was given: ` +
        `add --model-dir "$(hms-mcp fetch-model --model ${model})"`,
    );
  }
  if (reembed && modelDir === undefined) {
    throw new ConfigError(
      "--reembed (HMS_MCP_REEMBED) replaces vectors with those of the model given by --model-dir, and no --model-dir was given",
    );
  }
  const database = databaseOf(options, env);
  const fromEnv = tokenFromEnv(env);
  if ("problem" in fromEnv) throw new ConfigError(fromEnv.problem);
  const { token } = fromEnv;
  if (token !== undefined && token.trim() === "") {
    throw new ConfigError("HMS_MCP_TOKEN is set but empty; set a real token or unset it");
  }
  const tokensFile = options.tokensFile?.trim();
  if (tokensFile === "") {
    throw new ConfigError(
      "--tokens-file (HMS_MCP_TOKENS_FILE) is empty; name the tokens file or unset it",
    );
  }
  if (tokensFile !== undefined && options.transport !== "http") {
    throw new ConfigError(
      "--tokens-file applies to HTTP only (--transport http): a stdio server is its parent's " +
        "own process and serves it every namespace",
    );
  }
  if (options.headersTimeout > options.requestTimeout) {
    throw new ConfigError(
      `--headers-timeout (${options.headersTimeout} s) is longer than --request-timeout ` +
        `(${options.requestTimeout} s), which also covers the headers: make it at most ` +
        `${options.requestTimeout}, or raise --request-timeout`,
    );
  }
  const host = options.host.trim();
  if (host === "") throw new ConfigError("--host must not be empty");
  const remote = options.transport === "http" && !isLoopback(host);
  if (remote && ((token === undefined && tokensFile === undefined) || !allowRemote)) {
    const missing = [
      token === undefined && tokensFile === undefined
        ? "a token (HMS_MCP_TOKEN or --tokens-file)"
        : undefined,
      allowRemote ? undefined : "--allow-remote",
    ].filter(Boolean);
    throw new ConfigError(
      `refusing to listen on ${host}: it is not a loopback address, and serving memories ` +
        `beyond this machine needs both a token (set HMS_MCP_TOKEN or --tokens-file; clients ` +
        `send Authorization: Bearer <token>) and --allow-remote. Missing: ${missing.join(" and ")}.`,
    );
  }
  if (remote && token !== undefined && Buffer.byteLength(token, "utf8") < MIN_REMOTE_TOKEN_BYTES) {
    throw new ConfigError(
      `refusing to listen on ${host} with a ${Buffer.byteLength(token, "utf8")}-byte ` +
        `HMS_MCP_TOKEN: beyond this machine a token must be at least ${MIN_REMOTE_TOKEN_BYTES} ` +
        "bytes so it cannot be guessed; make one with `hms-mcp token create`",
    );
  }
  return {
    dataDir: resolve(options.dataDir ?? defaultDataDir(env)),
    database,
    namespace: options.namespace,
    namespaceArg,
    noCreate,
    transport: options.transport,
    host,
    port: options.port,
    path: options.path,
    maxTextBytes: options.maxTextBytes,
    maxOpenNamespaces: options.maxOpenNamespaces,
    maxSubscriptions: options.maxSubscriptions,
    maxNamespaces: options.maxNamespaces,
    busyTimeoutMs: options.busyTimeout,
    synchronous: options.synchronous,
    logLevel: options.logLevel,
    allowRemote,
    allowedOrigins: options.allowedOrigins ?? [],
    allowedHosts: options.allowedHosts ?? [],
    token,
    tokensFile: tokensFile === undefined ? undefined : resolve(tokensFile),
    modelDir: modelDir === undefined ? undefined : resolve(modelDir),
    model,
    reembed,
    embedWorkers: options.embedWorkers,
    embedThreads: options.embedThreads,
    embedRuntime: options.embedRuntime,
    recallWaitMs: options.recallWait,
    http: {
      maxSessions: options.maxSessions,
      maxSessionsPerToken: options.maxSessionsPerToken,
      sessionIdleMs: options.sessionIdleTimeout * 1000,
      maxInFlight: options.maxInFlight,
      maxInFlightPerToken: options.maxInFlightPerToken,
      maxNewSessionsPerSecond: options.maxNewSessionsPerSecond,
      maxUnreadBytes: options.maxUnreadBytes,
      headersTimeoutMs: options.headersTimeout * 1000,
      requestTimeoutMs: options.requestTimeout * 1000,
      maxConnectionsPerPeer: options.maxConnectionsPerPeer,
    },
    keepVersions: options.keepVersions,
    keepDays: options.keepDays,
    keepMib: options.keepMib,
    ui,
  };
}

/** The PostgreSQL settings, with the checks between them and the other options. */
function databaseOf(options: ParsedOptions, env: NodeJS.ProcessEnv): DatabaseConfig | undefined {
  const noMigrate = !options.migrate || flagOrEnv(undefined, env, "HMS_MCP_NO_MIGRATE");
  const url = options.databaseUrl?.trim();
  if (url !== undefined) {
    const problem = databaseUrlProblem(url);
    if (problem !== undefined) {
      throw new ConfigError(`--database-url (HMS_MCP_DATABASE_URL) is not usable: ${problem}`);
    }
  }
  if (url === undefined) {
    const pgOnly = [
      options.pgPoolSize === undefined ? undefined : "--pg-pool-size",
      noMigrate ? "--no-migrate" : undefined,
    ].filter(Boolean);
    if (pgOnly.length > 0) {
      throw new ConfigError(
        `${pgOnly.join(" and ")} ${pgOnly.length === 1 ? "applies" : "apply"} to PostgreSQL only: add --database-url (HMS_MCP_DATABASE_URL) or drop ${pgOnly.length === 1 ? "it" : "them"}`,
      );
    }
    return undefined;
  }
  if (options.dataDir !== undefined) {
    throw new ConfigError(
      "--data-dir (HMS_MCP_DATA_DIR) and --database-url (HMS_MCP_DATABASE_URL) both say where " +
        "the memories live: drop --data-dir to serve the PostgreSQL database, or drop " +
        "--database-url to serve the SQLite files",
    );
  }
  return { url, poolSize: options.pgPoolSize ?? DEFAULT_PG_POOL_SIZE, migrate: !noMigrate };
}

/** Parses argv (without node and script) and the environment into a Config. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv, version: string) {
  const command = buildCommand(version);
  command.parse([...argv], { from: "user" });
  return resolveConfig(command.opts<ParsedOptions>(), env);
}
