/**
 * @hms/store: the Holographic Memory store. SQLite (WAL) records with versions, tags and
 * metadata; compare-and-set writes; atomic prefix deletes and moves; BM25 recall with excerpts;
 * one isolated file per namespace.
 *
 * SQLite is Node's own `node:sqlite`: nothing to build or download at install. What works on
 * the store's SQLite connection (the rankers, the vector index, the migrations) is in
 * `@hms/store/internal`.
 */
export type { StoreAccess, UnusedFile } from "./access.js";
export {
  backupNamespace,
  type NamespaceCopy,
  restoreNamespace,
  storeFilePath,
} from "./backup.js";
export { Changes } from "./changes.js";
export { MAX_CHANGES_PAGE, type MemoryChange } from "./changes-types.js";
export { defaultDataDir } from "./data-dir.js";
export {
  type EmbeddingModel,
  EmbeddingModelMismatchError,
  Embeddings,
  type MemoryVectors,
  type ModelChange,
  type PassageSpan,
  type PendingMemory,
} from "./embeddings.js";
export type {
  AccessApi,
  Awaitable,
  ChangesApi,
  EngineKind,
  HistoryApi,
  NamespaceSummary,
  StoreApi,
  StoreEngine,
} from "./engine.js";
export { isStoreError, StoreError, type StoreErrorCode } from "./errors.js";
export type {
  Attribution,
  DropReason,
  HistoryDrop,
  HistoryDropEvent,
  HistoryEntry,
  HistoryOp,
  HistoryPage,
  HistoryVersion,
  PruneOptions,
  StoreHistory,
  TreeRestoreResult,
} from "./history.js";
export { DEFAULT_HISTORY_BYTES } from "./history-types.js";
export { compareKeys, decodeCursor, encodeCursor, prefixSuccessor } from "./keys.js";
export { DEFAULT_LIMITS, type Limits, MAX_TEXT_BYTES_CEILING, utf8Bytes } from "./limits.js";
export { isMemoryFile, MEMORY_FILE_TAG, MEMORY_ROOT } from "./memory-file.js";
export {
  checkNamespace,
  DEFAULT_MAX_OPEN,
  DEFAULT_NAMESPACE,
  NAMESPACE_PATTERN,
  Namespaces,
  type NamespacesOptions,
  storeFileName,
} from "./namespaces.js";
export { EXCERPT_CHARS, EXCERPT_LINES } from "./recall/excerpt.js";
export { type Candidate, DEFAULT_FUSION, type FusionParams, fuse } from "./recall/hybrid.js";
export { SNIPPET_CHARS } from "./recall/lines.js";
export { EXCERPT_STOPWORDS, matchExpression, queryTerms, STOPWORDS } from "./recall/query.js";
export type { RecallBuild, RecallFilter } from "./recall/ranker.js";
export { checkTimeRange, type TimeRange } from "./recall/time-range.js";
export type { DenseHit } from "./recall/vector-index.js";
export type { FileRestoreResult } from "./rules/restore.js";
export { isBusy } from "./sqlite/driver.js";
export { SCHEMA_VERSION } from "./sqlite/schema.js";
export { MemoryStore } from "./store.js";
export {
  DEFAULT_PAGE,
  DEFAULT_RECALL_K,
  type EmbeddingOptions,
  EXPORT_PAGE_BYTES,
  type ExportPage,
  type ListItem,
  type ListPage,
  MAX_PAGE,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
  MAX_SEARCH_CHARS,
  type MemoryRecord,
  type PageOptions,
  type RecallHit,
  type RecallOptions,
  type RecallResult,
  type RememberInput,
  type RememberResult,
  type SearchHit,
  type SearchOptions,
  type Selection,
  type StoreOptions,
  type StoreStats,
  SYNCHRONOUS_MODES,
  type SynchronousMode,
  type UpgradeEvent,
} from "./types.js";
