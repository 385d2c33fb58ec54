/**
 * @hms/store/internal: the building blocks that work on a better-sqlite3 `Database` handle,
 * for tuning recall and for tests (hms-mcp's bench/tune-fusion.mjs builds a HybridRanker per
 * parameter set through `MemoryStore.open(file, { ranker })`). Not a stable API: it follows
 * the store's internals, and its types need `@types/better-sqlite3` (the main entry's do not).
 */
export { type Candidate, fuse, HybridRanker } from "./recall/hybrid.js";
export { LexicalRanker } from "./recall/lexical.js";
export type { RankContext, RankedId, Ranker } from "./recall/ranker.js";
export { type DenseHit, VectorIndex } from "./recall/vector-index.js";
export { MIGRATIONS, type Migration, migrate, schemaVersion } from "./sqlite/schema.js";
