/**
 * @hms/store-postgres: the Holographic Memory store on PostgreSQL. Every namespace of a server
 * in one database, behaving as @hms/store's SQLite engine does (the same calls, answers,
 * refusals and limits), so that many hms-mcp replicas can serve one store.
 */
export { PgChanges } from "./changes.js";
export { callerError, isUnreachable } from "./connection.js";
export { PgEngine, type PgEngineOptions } from "./engine.js";
export { announce, CHANGE_CHANNEL, ChangeChannel } from "./notify.js";
export type { ClaimedMemory, ClaimOptions } from "./queue.js";
export {
  MIGRATIONS,
  migrate,
  type PgMigration,
  type PgUpgradeEvent,
  SCHEMA_VERSION,
  schemaStatus,
} from "./schema.js";
export { PgStore } from "./store.js";
/** What the full-text index reads of a text (its `index_text`), for loaders that write rows. */
export { wordsOf } from "./text.js";
export { DEFAULT_KEEP_CHANGES } from "./vector-changes.js";
export { type DenseChoice, PgEmbeddings, type SavedVectors } from "./vectors.js";
export { type DenseIndex, type DenseResult, DenseSearch } from "./vectors-dense.js";
export {
  enablePgvector,
  PgvectorSearch,
  pgvectorAvailable,
  type Queryable,
} from "./vectors-pgvector.js";
