/**
 * Memory files: records that back Claude's `/memories` directory. Their keys must also pass
 * the shared path rules of `@hms/memory-paths`, so a client that skips validation gains nothing.
 */
import { checkMemoryPath } from "@hms/memory-paths";

/** The tag the Claude memory tool puts on every memory file. */
export const MEMORY_FILE_TAG = "memory-file";

/** The root of the memory tool's directory. */
export const MEMORY_ROOT = "/memories";

/** True when a record with this key and these tags is a memory file. */
export function isMemoryFile(key: string, tags: readonly string[]): boolean {
  return key === MEMORY_ROOT || key.startsWith(`${MEMORY_ROOT}/`) || tags.includes(MEMORY_FILE_TAG);
}

/**
 * Checks a memory-file key against the memory-path rules of `@hms/memory-paths` (the one
 * place those rules live). Returns why the key is refused, or `undefined` when it is accepted.
 */
export function memoryFileKeyProblem(key: string): string | undefined {
  return checkMemoryPath(key)?.message;
}
