#!/usr/bin/env node
import { CommanderError } from "commander";
import { fetchModelCommand } from "./commands/fetch-model.js";
import { tokenCommand } from "./commands/token.js";
import { buildCommand, ConfigError, parseConfig } from "./config/config.js";
import { redactUrl } from "./config/database-url.js";
import { createLogger } from "./log.js";
import { startServer } from "./main.js";
import { SERVER_INFO } from "./version.js";

/**
 * The hms-mcp command. Logs go to stderr; under stdio, stdout carries only the protocol, so
 * console.log is pointed at stderr too in case any dependency writes to it.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "help") {
    // `hms-mcp help [command]`: the same as `hms-mcp [command] --help`.
    const [topic] = argv.slice(1);
    if (topic === undefined) {
      buildCommand(SERVER_INFO.version).outputHelp();
      return;
    }
    argv.splice(0, 2, topic, ...(topic === "token" ? ["create"] : []), "--help");
  }
  if (argv[0] === "fetch-model") {
    process.exitCode = await fetchModelCommand(argv.slice(1), SERVER_INFO.version);
    return;
  }
  // The subcommands' code is loaded only when they run: a server starts without it.
  if (argv[0] === "copy") {
    const { copyCommand } = await import("./commands/copy.js");
    process.exitCode = await copyCommand(argv.slice(1), SERVER_INFO.version);
    return;
  }
  if (argv[0] === "backup") {
    const { backupCommand } = await import("./commands/backup.js");
    process.exitCode = await backupCommand(argv.slice(1), SERVER_INFO.version);
    return;
  }
  if (argv[0] === "restore") {
    const { restoreCommand } = await import("./commands/restore.js");
    process.exitCode = await restoreCommand(argv.slice(1), SERVER_INFO.version);
    return;
  }
  if (argv[0] === "namespaces") {
    const { namespacesCommand } = await import("./commands/namespaces.js");
    process.exitCode = await namespacesCommand(argv.slice(1), SERVER_INFO.version);
    return;
  }
  if (argv[0] === "migrate") {
    const { migrateCommand } = await import("./commands/migrate.js");
    process.exitCode = await migrateCommand(argv.slice(1), SERVER_INFO.version);
    return;
  }
  if (argv[0] === "token") {
    process.exitCode = tokenCommand(argv.slice(1), SERVER_INFO.version);
    return;
  }
  let config: ReturnType<typeof parseConfig>;
  try {
    config = parseConfig(argv, process.env, SERVER_INFO.version);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander printed the help or version (0), or its one-line refusal: a usage error.
      process.exit(error.exitCode === 0 ? 0 : 2);
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`hms-mcp: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (config.transport === "stdio") console.log = console.error;
  const log = createLogger(config.logLevel);
  // Signals are taken from here on, before the server says it is listening: a SIGTERM that
  // follows that line at once must stop it cleanly, not kill it (Node's default). One that
  // comes while it starts is acted on once it has started.
  let stopRequested: string | undefined;
  let shutdown = (reason: string) => {
    stopRequested ??= reason;
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer(config, log);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`hms-mcp: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  log.info(
    {
      transport: config.transport,
      url: running.url,
      ...(running.uiUrl === undefined ? {} : { inspector: running.uiUrl }),
      ...(config.database === undefined
        ? { dataDir: config.dataDir }
        : { database: redactUrl(config.database.url) }),
      namespace: config.namespace,
      namespaceArg: config.namespaceArg,
      auth: authOf(config),
      metrics: running.metricsUrl ?? false,
      // startServer has loaded the model when there is one, or refused to start.
      recall: config.modelDir === undefined ? "lexical" : "hybrid",
      version: SERVER_INFO.version,
    },
    running.url ? `hms-mcp listening on ${running.url}` : "hms-mcp serving on stdio",
  );
  if (running.uiUrl !== undefined) {
    // For the person who started it: a plain line among the JSON logs, saying where to go.
    process.stderr.write(`inspector: ${running.uiUrl} (${signIn(config)})\n`);
  }

  shutdown = (reason: string) => {
    log.info({ reason }, "shutting down");
    running.close().then(
      () => {
        log.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  if (stopRequested !== undefined) shutdown(stopRequested);
  if (config.transport === "stdio") {
    // The client closing our stdin is the end of the session, once what it sent is answered:
    // a write it sent just before closing is carried out, and its answer must reach it.
    process.stdin.once("end", () => {
      void running.answered().then(() => shutdown("stdin closed"));
    });
  }
}

/**
 * Which tokens the server asks for: HMS_MCP_TOKEN, a tokens file, both, or none (stdio never
 * takes one: its client is the process that started it).
 */
function authOf(
  config: ReturnType<typeof parseConfig>,
): "token" | "tokens-file" | "token+tokens-file" | "none" {
  if (config.transport !== "http") return "none";
  if (config.token !== undefined && config.tokensFile !== undefined) return "token+tokens-file";
  if (config.tokensFile !== undefined) return "tokens-file";
  return config.token === undefined ? "none" : "token";
}

/** How a person signs in to the inspector of a server started with `config`. */
function signIn(config: ReturnType<typeof parseConfig>): string {
  if (config.token !== undefined) return "sign in with the token in HMS_MCP_TOKEN";
  if (config.tokensFile !== undefined) return "sign in with a token of --tokens-file";
  return "no token set: anyone on this machine may open it";
}

main().catch((error: unknown) => {
  // One line; the stack only when asked for (HMS_MCP_DEBUG=1), as for a bug report.
  const detail =
    process.env.HMS_MCP_DEBUG === "1"
      ? `\n${(error as Error)?.stack}`
      : " (HMS_MCP_DEBUG=1 shows where)";
  process.stderr.write(
    `hms-mcp: failed to start: ${(error as Error)?.message ?? error}${detail}\n`,
  );
  process.exit(1);
});
