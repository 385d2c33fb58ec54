/**
 * @hms/memory-paths: validation and helpers for the paths of Claude's memory tool.
 *
 * A memory path is `/memories` or `/memories/<name>/.../<name>`; see the README for every
 * rule. Everything here is pure and synchronous, with no runtime dependencies.
 */
export { INVISIBLE_RANGES, LOOKALIKES } from "./characters.js";
export { MEMORY_PATH_RULES, MemoryPathError, type MemoryPathRule } from "./errors.js";
export {
  ancestorPaths,
  baseName,
  isSameOrUnder,
  isUnder,
  joinPath,
  parentPath,
  pathDepth,
  pathNames,
  rebasePath,
} from "./helpers.js";
export { errorBrand, HmsError, hasBrand } from "./hms-error.js";
export { compareCodePoints, displayPath, utf8ByteLength } from "./text.js";
export { checkIsoTime, type IsoTimeCheck, type IsoTimeProblem } from "./times.js";
export {
  type CheckOptions,
  checkMemoryPath,
  isValidMemoryPath,
  MAX_DEPTH,
  MAX_NAME_BYTES,
  MAX_PATH_BYTES,
  MEMORY_ROOT,
  validateMemoryPath,
} from "./validate.js";
