/**
 * Helpers for the tests that run hms-mcp (hms-mcp's own and the client packages'): the
 * program as a process, MCP clients of it (over stdio, HTTP, or linked in memory to a server
 * in the test's process), and memory files seeded straight into a store. Private; not
 * published. The one place for such helpers: add new ones here, not beside a suite.
 */
import { fileURLToPath } from "node:url";
import { hmsMcpCommand } from "./server-process.js";

export {
  type ConnectableServer,
  type Connection,
  call,
  connect,
  connectFresh,
  connectInMemory,
  type HttpProcess,
  ok,
  refused,
  startHttpProcess,
  startStdio,
  type TransportKind,
} from "./client.js";
export { seedFilesIn, storeFile, writeSeedFiles } from "./seed-store.js";
export {
  cleanEnv,
  exited,
  type HttpServer,
  hmsMcpBin,
  hmsMcpCommand,
  hmsMcpOnPath,
  startHttpServer,
  tempDir,
} from "./server-process.js";
export { type ListedTool, protocolToolList, toolListAsSent } from "./tool-list.js";

/**
 * How to start hms-mcp behind a proxy that hides `hidden` (tool names such as `move`, or
 * `tool.argument` such as `forget.prefix`) from tools/list and refuses them: a real server
 * that lacks those capabilities. See hiding-proxy.ts.
 */
export function hidingProxyCommand(
  hidden: string[],
  serverArgs: string[],
): { command: string; args: string[] } {
  const proxy = fileURLToPath(new URL("./hiding-proxy.js", import.meta.url));
  const server = hmsMcpCommand(serverArgs);
  return {
    command: process.execPath,
    args: [proxy, ...hidden.flatMap((h) => ["--hide", h]), "--", server.command, ...server.args],
  };
}
