/**
 * @hms/store/internal: the building blocks that work on the store's SQLite connection (a
 * `SqliteDatabase`: `node:sqlite`'s `DatabaseSync`, or anything with the same few methods),
 * for tuning recall and for tests (hms-mcp's bench/tune-fusion.mjs builds a HybridRanker per
 * parameter set through `MemoryStore.open(file, { ranker })`). Not a stable API: it follows
 * the store's internals.
 */

// The engine-neutral pieces of the store's operations, for the PostgreSQL engine
// (@hms/store-postgres), which must check, refuse and answer exactly as the SQLite one does.
export {
  checkExpected,
  notFound,
  now,
  type StoreContext,
  selectionOf,
  versionConflict,
} from "./context.js";
export {
  applySplice,
  MAX_RUN,
  MAX_SPLICE_SHARE,
  type Splice,
  type StoredAs,
  type StoredText,
  spliceOf,
  type TextReads,
  textSteps,
} from "./history-delta.js";
export {
  checkInteger,
  checkKey,
  checkMetadata,
  checkPrefix,
  checkTag,
  checkTags,
  checkText,
  checkTime,
} from "./limits.js";
export { memoryAncestors, memoryFileKeyProblem } from "./memory-file.js";
export { indexText } from "./recall/cjk.js";
export { excerptOf, MATCH_CLOSE, MATCH_OPEN, type TermMatch } from "./recall/excerpt.js";
export { type Candidate, fuse, HybridRanker } from "./recall/hybrid.js";
export {
  bm25Ceiling,
  CANDIDATE_BUDGET,
  type CandidatePick,
  candidateExpression,
  informativeTerms,
  LexicalRanker,
  RANGE_TOP,
  shareOfCeiling,
  widenedPick,
} from "./recall/lexical.js";
export { foldCase, matchingLines } from "./recall/lines.js";
export { excerptTerms } from "./recall/query.js";
export type { RankContext, RankedId, Ranker } from "./recall/ranker.js";
export { checkSearch } from "./recall/search.js";
export { type DenseHit, VectorIndex } from "./recall/vector-index.js";
export {
  checkMovePrefixes,
  movePrefixSteps,
  moveSteps,
  moveTreeSteps,
  noKeyWithPrefix,
  type Rename,
} from "./rules/moves.js";
export {
  type CheckedRemember,
  type CurrentRecord,
  checkRememberInput,
  checkRememberOver,
  hashOf,
} from "./rules/remember.js";
export {
  applyRestoreSteps,
  type FileRestoreResult,
  type RestoreReads,
  type RestoreWrites,
  restoreTargetSteps,
  restoreTreeSteps,
} from "./rules/restore.js";
export { runAsync, runSync, type Steps, step } from "./rules/steps.js";
export {
  checkMemoryFile,
  pathConflict,
  type TreeConflict,
  type TreeLookup,
  type TreeRecord,
  treeConflictSteps,
  treeNotFound,
} from "./rules/tree-shape.js";
export {
  isDiskFull,
  openSqlite,
  pragma,
  type SqliteBinding,
  type SqliteDatabase,
  type SqliteInput,
  type SqliteOutput,
  type SqliteStatement,
  transaction,
} from "./sqlite/driver.js";
export {
  HISTORY_ROW_COST,
  MIGRATIONS,
  type Migration,
  migrate,
  schemaVersion,
} from "./sqlite/schema.js";
