/**
 * @hms/protocol: the contract between hms-mcp and its clients, in one place. The server and
 * `@hms/memory-backend-hms` both import it, and `protocol.json` carries it to the Python
 * package, so a change to the contract is one edit here and drift is a compile or test error.
 */
export {
  ERROR_CODES,
  ERROR_META_KEY,
  type ErrorCode,
  type ErrorDetails,
  isErrorCode,
} from "./errors.js";
export { MAX_HISTORY_PAGE } from "./history-tools.js";
export { protocolJson, protocolJsonText } from "./json.js";
export {
  DEFAULT_MAX_TEXT_BYTES,
  DEFAULT_PAGE,
  DEFAULT_RECALL_K,
  MAX_ANSWER_BYTES,
  MAX_JSON_BYTES_PER_BYTE,
  MAX_PAGE,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
  MAX_TEXT_BYTES_CAP,
} from "./limits.js";
export { MEMORY_FILE_TAG, MEMORY_ROOT } from "./memory-files.js";
export { CHANGE_META_KEY, type ChangeMeta } from "./notifications.js";
export {
  type MemoryRecordWire,
  NAMESPACE_ARGUMENT,
  NAMESPACE_META_KEY,
  type RecallHitWire,
  TOOL_NAMES,
  TOOL_SCHEMAS,
  TOOLS,
  type ToolAnnotations,
  type ToolArguments,
  type ToolName,
  type ToolResult,
  type ToolSchema,
  type ToolSchemas,
  toolJsonSchemas,
} from "./tools.js";
export {
  CAPABILITY_KEY,
  experimentalCapabilities,
  type HmsCapability,
  PROTOCOL_VERSION,
  statedProtocolVersion,
} from "./version.js";
