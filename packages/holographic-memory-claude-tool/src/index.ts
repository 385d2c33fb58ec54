/**
 * holographic-memory-claude-tool: Claude's memory tool (`memory_20250818`) for the Anthropic
 * TypeScript SDK, served from a durable, searchable Holographic Memory store through hms-mcp,
 * with a companion `memory_recall` tool.
 */
export type {
  HmsConnection,
  HttpConnection,
  RecallHit,
  StdioConnection,
} from "@hms/memory-backend-hms";
export { HolographicMemoryError } from "./errors.js";
export {
  DEFAULT_RECALL_K,
  formatRecall,
  formatScore,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
  NO_RECALL_HITS,
  parseRecallInput,
  RECALL_INPUT_SCHEMA,
  RECALL_TOOL_DESCRIPTION,
  RECALL_TOOL_NAME,
  recallToolDefinition,
} from "./recall.js";
export { type ConnectOptions, HolographicMemoryTool } from "./tool.js";
