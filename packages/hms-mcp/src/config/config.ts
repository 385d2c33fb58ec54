/**
 * The server's configuration: what it runs with (`Config`), the command that parses it (each
 * concern's flags in a module of its own: flags-*.ts), and the checks no single flag can make.
 */
import { resolve } from "node:path";
import { defaultDataDir, type SynchronousMode } from "@hms/store";
import { Command, Option } from "commander";
import type { EmbedRuntime } from "../semantic/protocol.js";
import { databaseUrlProblem } from "./database-url.js";
import { addCommonFlags } from "./flags-common.js";
import { addHistoryFlags } from "./flags-history.js";
import { addHttpFlags } from "./flags-http.js";
import { addPostgresFlags, DEFAULT_PG_POOL_SIZE } from "./flags-postgres.js";
import { addRecallFlags } from "./flags-recall.js";
import {
  addOperationsFlags,
  type MetricsConfig,
  type MetricsOptions,
  resolveMetrics,
} from "./operations-flags.js";
import { ConfigError, flagOrEnv, isLoopback, type LogLevel, oneLineError } from "./parse.js";
import { tokenFromEnv } from "./token-file.js";

export { DEFAULT_KEEP_MIB, DEFAULT_KEEP_VERSIONS } from "./flags-history.js";
export { DEFAULT_PG_POOL_SIZE } from "./flags-postgres.js";
export { DEFAULT_RECALL_WAIT_MS } from "./flags-recall.js";
export { ConfigError, isLoopback, LOG_LEVELS, type LogLevel, oneLineError } from "./parse.js";

/** Where a server keeps its namespaces when it runs on PostgreSQL (`--database-url`). */
export interface DatabaseConfig {
  readonly url: string;
  /** Most connections the server holds open (`--pg-pool-size`). */
  readonly poolSize: number;
  /** Run the schema's migrations at start (false with `--no-migrate`). */
  readonly migrate: boolean;
}

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
  /** The metrics: whether they are on and where they are served (absent: as by default). */
  readonly metrics?: MetricsConfig | undefined;
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

/** Shortest token a server listening beyond loopback accepts, in bytes. */
export const MIN_REMOTE_TOKEN_BYTES = 32;

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
    .helpOption("-h, --help", "print this help and exit");
  addCommonFlags(command);
  addHttpFlags(command);
  addRecallFlags(command);
  addHistoryFlags(command);
  addPostgresFlags(command);
  addOperationsFlags(command);
  command
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
  { prefix: "metrics: ", heading: "Metrics:" },
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
export interface ParsedOptions extends MetricsOptions {
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
    metrics: resolveMetrics(options, env, options.transport, allowRemote),
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
