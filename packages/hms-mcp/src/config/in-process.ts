/**
 * The configuration of a server run in its host's own process (`connectInProcess`): typed
 * options, each one of the command's flags, checked by that flag's own parser, so an option
 * admits exactly what the flag admits and is refused with the same reason. The environment
 * plays no part: HMS_MCP_* variables are the command's, and a library's behaviour should not
 * change with its host's variables.
 */
import type { SynchronousMode } from "@hms/store";
import { InvalidArgumentError, type Option } from "commander";
import { SERVER_INFO } from "../version.js";
import {
  buildCommand,
  type Config,
  ConfigError,
  type LogLevel,
  type ParsedOptions,
  resolveConfig,
} from "./config.js";

/**
 * Options of a server in this process. Each is the `hms-mcp` flag named in its description,
 * with the same default and the same bounds; give `dataDir` (SQLite files) or `databaseUrl`
 * (PostgreSQL). There are no HTTP options (nothing listens) and no tokens: like a server a
 * client starts over stdio, it serves its host every namespace.
 */
export interface InProcessOptions {
  /** `--data-dir`: the directory of the SQLite stores, shared with any other process using it. */
  readonly dataDir?: string | undefined;
  /** `--database-url`: keep every namespace in this PostgreSQL database instead. */
  readonly databaseUrl?: string | undefined;
  /** `--pg-pool-size`: most database connections (PostgreSQL; default 10). */
  readonly pgPoolSize?: number | undefined;
  /** `false` is `--no-migrate`: refuse a database whose schema is not up to date. */
  readonly migrate?: boolean | undefined;
  /** `--namespace`: the namespace of calls that name none (default `default`). */
  readonly namespace?: string | undefined;
  /** `--namespace-arg`: let every call name its namespace. */
  readonly namespaceArg?: boolean | undefined;
  /** `--max-text-bytes`: the largest memory in UTF-8 bytes (default 32768). */
  readonly maxTextBytes?: number | undefined;
  /** `--max-open-namespaces`: most namespace stores kept open at once. */
  readonly maxOpenNamespaces?: number | undefined;
  /** `--max-namespaces`: most namespaces the data directory may hold (default: no bound). */
  readonly maxNamespaces?: number | undefined;
  /** `--busy-timeout`: how long a write waits for another process's lock, in ms (default 10000). */
  readonly busyTimeoutMs?: number | undefined;
  /** `--synchronous`: `full` (the default) fsyncs every commit; `normal` at checkpoints only. */
  readonly synchronous?: SynchronousMode | undefined;
  /** `--keep-versions`: versions of each memory file the history keeps (0: all; default 100). */
  readonly keepVersions?: number | undefined;
  /** `--keep-days`: days the history keeps a version (0, the default: no age limit). */
  readonly keepDays?: number | undefined;
  /** `--model-dir`: the embedding model's directory, for hybrid recall (default: lexical). */
  readonly modelDir?: string | undefined;
  /** `--reembed`: replace the vectors of a store made by another model. */
  readonly reembed?: boolean | undefined;
  /** `--embed-workers`: embedding threads (hybrid recall). */
  readonly embedWorkers?: number | undefined;
  /** `--embed-threads`: CPU threads of each embedding worker (hybrid recall). */
  readonly embedThreads?: number | undefined;
  /** `--recall-wait`: longest a recall waits for this connection's writes to be embedded, in ms. */
  readonly recallWaitMs?: number | undefined;
  /** `--log-level`: the server's log on this process's stderr (default `info`; `silent`: none). */
  readonly logLevel?: LogLevel | undefined;
  /** `--metrics-port`: serve Prometheus metrics at /metrics on this loopback port (0: any free one). */
  readonly metricsPort?: number | undefined;
}

type Kind = "string" | "number" | "boolean";

/** Each option: its flag, the type of its value, and where it goes among the parsed flags. */
const OPTIONS: { readonly [N in keyof Required<InProcessOptions>]: [string, Kind] } = {
  dataDir: ["--data-dir", "string"],
  databaseUrl: ["--database-url", "string"],
  pgPoolSize: ["--pg-pool-size", "number"],
  migrate: ["--no-migrate", "boolean"],
  namespace: ["--namespace", "string"],
  namespaceArg: ["--namespace-arg", "boolean"],
  maxTextBytes: ["--max-text-bytes", "number"],
  maxOpenNamespaces: ["--max-open-namespaces", "number"],
  maxNamespaces: ["--max-namespaces", "number"],
  busyTimeoutMs: ["--busy-timeout", "number"],
  synchronous: ["--synchronous", "string"],
  keepVersions: ["--keep-versions", "number"],
  keepDays: ["--keep-days", "number"],
  modelDir: ["--model-dir", "string"],
  reembed: ["--reembed", "boolean"],
  embedWorkers: ["--embed-workers", "number"],
  embedThreads: ["--embed-threads", "number"],
  recallWaitMs: ["--recall-wait", "number"],
  logLevel: ["--log-level", "string"],
  metricsPort: ["--metrics-port", "number"],
};

const NAMES = Object.keys(OPTIONS).join(", ");

/**
 * The configuration of an in-process server with `options`. Throws ConfigError, whose message
 * names the option, says why and what it admits, for an option that is unknown, of the wrong
 * type, out of its flag's bounds, or at odds with another (as the command refuses them).
 */
export function inProcessConfig(options: InProcessOptions): Config {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ConfigError(
      "the in-process server's options must be an object, such as { dataDir: '/path/to/data' }",
    );
  }
  const command = buildCommand(SERVER_INFO.version);
  // Every flag's default, as the command would start with no flag and no variable.
  const parsed: Record<string, unknown> = { ...command.opts(), transport: "stdio" };
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const known = OPTIONS[name as keyof InProcessOptions];
    if (known === undefined) {
      throw new ConfigError(`unknown in-process option ${JSON.stringify(name)}; known: ${NAMES}`);
    }
    const [flag, kind] = known;
    if (typeof value !== kind) {
      throw new ConfigError(
        `in-process option ${name} (the ${flag} flag) must be a ${kind}, got ${describe(value)}`,
      );
    }
    if (kind === "string" && (value as string).trim() === "") {
      throw new ConfigError(
        `in-process option ${name} (the ${flag} flag) is empty; give a value or leave it out`,
      );
    }
    const option = command.options.find((candidate) => candidate.long === flag) as Option;
    parsed[option.attributeName()] = kind === "boolean" ? value : checked(name, option, value);
  }
  if (parsed.dataDir === undefined && parsed.databaseUrl === undefined) {
    throw new ConfigError(
      "an in-process server needs dataDir (the directory of its SQLite stores) or databaseUrl " +
        "(a PostgreSQL database)",
    );
  }
  return { ...resolveConfig(parsed as unknown as ParsedOptions, {}), transport: "in-process" };
}

/** `value` as the flag's parser and choices admit it; refused with the flag's own reason. */
function checked(name: string, option: Option, value: unknown): unknown {
  const text = String(value);
  if (option.argChoices !== undefined && !option.argChoices.includes(text)) {
    throw new ConfigError(
      `in-process option ${name} (the ${option.long} flag) is ${JSON.stringify(text)}; ` +
        `choose one of ${option.argChoices.join(", ")}`,
    );
  }
  if (option.parseArg === undefined) return text;
  try {
    return option.parseArg(text, undefined);
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw error;
    throw new ConfigError(
      `in-process option ${name} (the ${option.long} flag) is ${JSON.stringify(text)}: ${error.message}`,
    );
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "object" || typeof value === "function") return `a ${typeof value}`;
  return `${typeof value} ${String(value)}`;
}
