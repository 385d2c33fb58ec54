/**
 * hms-mcp's server running in the test's own process, from its TypeScript source, with a client
 * linked to it in memory: a test of tool, resource or prompt behaviour needs no build and no
 * process. The store is a real SQLite file in a temporary directory.
 *
 * This is the one test helper that lives here rather than in @hms/test-support: it builds the
 * server from hms-mcp's internals (openRuntime, createMcpServer), which that package cannot
 * import without a dependency cycle.
 */
import { type Connection, connectInMemory, tempDir } from "@hms/test-support";
import { pino } from "pino";
import { parseConfig } from "../src/config/config.js";
import { createMcpServer } from "../src/mcp/server.js";
import { closeRuntime, openRuntime } from "../src/runtime/runtime.js";
import { SERVER_INFO } from "../src/version.js";

/** A connection to an in-process server, and what the server logged. */
export interface InProcessConnection extends Connection {
  /** The server's log so far: JSON lines, at level warn unless `--log-level` says otherwise. */
  log(): string;
}

/**
 * The configuration of `hms-mcp --data-dir DIR --log-level warn ...args`, without this
 * process's HMS_MCP_* variables (commander reads them from process.env), as a spawned test
 * server would get from a clean environment.
 */
function configFor(dataDir: string, args: readonly string[]) {
  const saved = Object.entries(process.env).filter(([name]) => name.startsWith("HMS_MCP_"));
  for (const [name] of saved) delete process.env[name];
  try {
    return parseConfig(
      ["--data-dir", dataDir, "--log-level", "warn", ...args],
      {},
      SERVER_INFO.version,
    );
  } finally {
    for (const [name, value] of saved) process.env[name] = value;
  }
}

/**
 * Starts the server on `dataDir` (default: a new temporary directory, removed by `close`) with
 * the command's flags `args`, and connects one client. Serves no transport: only the client.
 */
export async function connectInProcess(
  options: { dataDir?: string; args?: readonly string[] } = {},
): Promise<InProcessConnection> {
  const data = options.dataDir === undefined ? tempDir() : undefined;
  const config = configFor(options.dataDir ?? (data?.dir as string), options.args ?? []);
  let log = "";
  const destination = {
    write(line: string) {
      log += line;
    },
  };
  const logger = pino({ name: "hms-mcp", level: config.logLevel }, destination);
  try {
    const runtime = await openRuntime(config, logger);
    const client = await connectInMemory(createMcpServer(runtime));
    return {
      client,
      log: () => log,
      async close() {
        // As the server shuts down: calls in flight finish, then the link and the stores close.
        await runtime.calls.stop();
        await client.close();
        await closeRuntime(runtime);
        data?.remove();
      },
    };
  } catch (error) {
    data?.remove();
    throw error;
  }
}
