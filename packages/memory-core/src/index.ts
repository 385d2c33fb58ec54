/**
 * @hms/memory-core: the command engine of Claude's memory tool over any storage.
 *
 * `new MemoryEngine(backend)` runs `view`, `create`, `str_replace`, `insert`, `delete` and
 * `rename`, and the companion `memory_recall`, against a {@link MemoryBackend}.
 * `InMemoryBackend` is the reference backend; the conformance suite and the shared vectors
 * are in `@hms/memory-core/testing`.
 */
export {
  type FileChange,
  type FileEntry,
  type HistoryOperations,
  type MemoryBackend,
  MemoryBackendError,
  type MemoryBackendErrorCode,
  type MemoryBackendErrorDetails,
  type MemoryVersion,
  type RecallHit,
  type RecallTimeRange,
  type StoredFile,
  type TreeOperations,
} from "./backend.js";
export {
  type CreateCommand,
  type DeleteCommand,
  type InsertCommand,
  MEMORY_COMMANDS,
  type MemoryCommand,
  type MemoryCommandName,
  type MemoryCreateCommand,
  type MemoryDeleteCommand,
  type MemoryInsertCommand,
  type MemoryRenameCommand,
  type MemoryStrReplaceCommand,
  type MemoryViewCommand,
  type ParsedCommand,
  parseCommand,
  type RenameCommand,
  type StrReplaceCommand,
  type ViewCommand,
} from "./commands.js";
export {
  DEFAULT_CAS_ATTEMPTS,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_VIEW_CHARS,
  MemoryEngine,
  type MemoryEngineOptions,
} from "./engine.js";
export { MemoryToolError, type MemoryToolErrorCode } from "./errors.js";
export {
  type BackendOperation,
  InMemoryBackend,
  type InMemoryBackendOptions,
} from "./in-memory-backend.js";
export {
  DEFAULT_RECALL_K,
  formatRecall,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
  NO_RECALL_HITS,
  parseRecallInput,
  RECALL_BY_TIME_UNSUPPORTED,
  RECALL_INPUT_SCHEMA,
  RECALL_TOOL_DESCRIPTION,
  RECALL_TOOL_NAME,
  type RecallInput,
  recallToolDefinition,
} from "./recall.js";
export type { RetryPolicy } from "./retry.js";
