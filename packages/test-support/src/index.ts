/**
 * Helpers for the tests that run hms-mcp (hms-mcp's own and the client packages'): the
 * program as a process, MCP clients of it (over stdio, HTTP, or linked in memory to a server
 * in the test's process), tools/list as the contract defines it, and memory files seeded
 * straight into a store, what the benchmarks read and measure with (BEIR files, nDCG@10,
 * quantiles, synthetic memories), better-sqlite3 in the store's driver shape (the driver
 * benchmark and the compatibility tests), and a server's Prometheus metrics (a scrape parsed,
 * a real Prometheus). Private; not published. The one place for such helpers: add new ones
 * here, not beside a suite.
 */

export { readJsonl, readQrels } from "./beir.js";
export {
  type BetterSqlite3Connection,
  type BetterSqlite3Statement,
  betterSqlite3Versions,
  openWithBetterSqlite3,
} from "./better-sqlite3.js";
export { type HmsRun, hmsCliBin, runHms, startHms } from "./cli-process.js";
export {
  type AckedWrite,
  type ConnectableServer,
  type Connection,
  call,
  connect,
  connectFresh,
  connectInMemory,
  exportAll,
  type HistoryChange,
  type HttpProcess,
  historyAll,
  ok,
  refused,
  startHttpProcess,
  startStdio,
  type TransportKind,
  until,
  writeLoad,
} from "./client.js";
export { PARAPHRASES, startHybridWithParaphrases, untilEmbedded } from "./hybrid.js";
export { ndcgAt10, quantile, seededUnitVector } from "./measures.js";
export { readMemoryFolder, writeMemoryFolder } from "./memory-folder.js";
export { parseExposition, type Sample, sampleValue, scrape } from "./metrics.js";
export { type Heard, type HeardChange, hear, memoryUri } from "./notifications.js";
export { freePort, type PostgresServer, postgresBinDir, startPostgres } from "./postgres.js";
export { type PrometheusServer, prometheusBin, startPrometheus } from "./prometheus.js";
export { backdateWrites, seedFilesIn, storeFile, writeSeedFiles } from "./seed-store.js";
export {
  cleanEnv,
  createToken,
  exited,
  type HttpServer,
  hmsMcpBin,
  hmsMcpCommand,
  hmsMcpOnPath,
  serverStore,
  startHttpServer,
  storeArgs,
  storeNamespaces,
  storeOptions,
  tempDir,
  testDatabaseUrl,
} from "./server-process.js";
export { type StoreBytes, storeBytes, testStoreBytes } from "./store-bytes.js";
export { holdWrites } from "./store-lock.js";
export { seededRandom, syntheticText, zipfVocabulary } from "./synthetic.js";
export { fillDisk, mountTmpfs } from "./tmpfs.js";
export { type ListedTool, protocolToolList, toolListAsSent } from "./tool-list.js";
