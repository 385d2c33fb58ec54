/**
 * @hms/memory-backend-hms: a `MemoryBackend` of `@hms/memory-core` over an MCP client of
 * hms-mcp, the Holographic Memory server. `connectHmsBackend()` starts the server (stdio),
 * reaches it (streamable HTTP) or runs it in this process (the SDK's in-memory transport),
 * checks its protocol version and returns an
 * {@link HmsMemoryBackend}.
 */

export type { MemoryChange } from "@hms/memory-core";
export type { HmsMemoryBackend, HmsStats } from "./backend.js";
export { COMMAND_META_KEY, runAsCommand } from "./command-context.js";
export {
  type ConnectHmsBackendOptions,
  connectHmsBackend,
  DEFAULT_TIMEOUT_MS,
  type HmsConnection,
  type HttpConnection,
  type InProcessConnection,
  type StdioConnection,
} from "./connect.js";
export { HmsConnectionError, HmsMcpError, HmsMcpNotFoundError } from "./errors.js";
export type { InProcessOptions } from "./in-process.js";
export { memoryUri } from "./watch.js";
