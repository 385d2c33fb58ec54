/**
 * @hms/memory-core: the command engine of Claude's memory tool over any storage.
 *
 * `new MemoryEngine(backend)` runs `view`, `create`, `str_replace`, `insert`, `delete` and
 * `rename` against a {@link MemoryBackend}. `InMemoryBackend` is the reference backend; the
 * conformance suite and the shared vectors are in `@hms/memory-core/testing`.
 */
export {
  type FileEntry,
  isMemoryBackendError,
  type MemoryBackend,
  MemoryBackendError,
  type MemoryBackendErrorCode,
  type MemoryBackendErrorDetails,
  type MemoryVersion,
  type StoredFile,
} from "./backend.js";
export {
  describeValue,
  firstUnpairedSurrogate,
  isInteger,
  MEMORY_COMMANDS,
  type MemoryCommand,
  type MemoryCommandName,
  type MemoryCreateCommand,
  type MemoryDeleteCommand,
  type MemoryInsertCommand,
  type MemoryRenameCommand,
  type MemoryStrReplaceCommand,
  type MemoryViewCommand,
} from "./commands.js";
export {
  DEFAULT_CAS_ATTEMPTS,
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_VIEW_CHARS,
  MemoryEngine,
  type MemoryEngineOptions,
} from "./engine.js";
export { MemoryToolError, type MemoryToolErrorCode } from "./errors.js";
export { humanSize, splitLines } from "./format.js";
export {
  type BackendOperation,
  InMemoryBackend,
  type InMemoryBackendOptions,
} from "./in-memory-backend.js";
export type { RetryPolicy } from "./retry.js";
