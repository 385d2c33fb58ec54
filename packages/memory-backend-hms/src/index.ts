/**
 * @hms/memory-backend-hms: a `MemoryBackend` of `@hms/memory-core` over an MCP client of
 * hms-mcp, the Holographic Memory server. `connectHmsBackend()` starts the server (stdio) or
 * reaches it (streamable HTTP) and returns an {@link HmsMemoryBackend}.
 */
export {
  HmsMemoryBackend,
  type HmsSession,
  type HmsStats,
  MEMORY_FILE_TAG,
  type RecallHit,
} from "./backend.js";
export {
  type ConnectHmsBackendOptions,
  connectHmsBackend,
  DEFAULT_TIMEOUT_MS,
  type HmsConnection,
  type HttpConnection,
  type StdioConnection,
} from "./connect.js";
export { HmsConnectionError, HmsMcpError, HmsMcpNotFoundError, isHmsMcpError } from "./errors.js";
export { findHmsMcp, type ServerCommand, serverEnvironment } from "./find-server.js";
