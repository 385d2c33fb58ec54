/**
 * @hms/memory-core/testing: suites another backend runs against itself.
 *
 * - `runBackendConformance(factory, { describe, it })`: the MemoryBackend contract.
 * - `runCommandVectors(factory, { describe, it })`: every case of the shared vectors
 *   (`vectors/commands.json`) through a MemoryEngine over the backend.
 *
 * Both take the framework's `describe` and `it`, so they need no test framework of their
 * own. This entry reads the vectors file with `node:fs`; the main entry has no Node imports.
 */
export { type BackendFactory, runBackendConformance, type TestApi } from "./conformance.js";
export {
  type CommandVector,
  type CommandVectors,
  compareOutcome,
  createFiles,
  readCommandVectors,
  runCommandVector,
  runCommandVectors,
  type SeedFiles,
  type VectorOutcome,
  vectorEngineOptions,
} from "./vectors.js";
