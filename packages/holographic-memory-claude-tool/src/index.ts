/**
 * holographic-memory-claude-tool: Claude's memory tool (`memory_20250818`) for the Anthropic
 * TypeScript SDK, served from a durable, searchable Holographic Memory store through hms-mcp,
 * with a companion `memory_recall` tool. SDK glue only: the commands run in `@hms/memory-core`,
 * the storage is `@hms/memory-backend-hms`.
 */
// What connect() can fail with: a server that cannot be found, started, reached or understood.
export {
  type HmsConnection,
  HmsConnectionError,
  HmsMcpError,
  HmsMcpNotFoundError,
  type HttpConnection,
  type InProcessConnection,
  type InProcessOptions,
  type StdioConnection,
} from "@hms/memory-backend-hms";
export type { RecallHit, RecallTimeRange } from "@hms/memory-core";
export { HolographicMemoryError } from "./errors.js";
export { type ConnectOptions, HolographicMemoryTool } from "./tool.js";
