/**
 * Memory files: records that back Claude's `/memories` directory. Their keys must also pass
 * the shared path rules of `@hms/memory-paths`, so a client that skips validation gains nothing.
 */
import { checkMemoryPath } from "@hms/memory-paths";
import { MEMORY_FILE_TAG, MEMORY_ROOT } from "@hms/protocol";

// The tag and the root are the contract's: clients put the tag on and look under the root.
export { MEMORY_FILE_TAG, MEMORY_ROOT };

/** True when a record with this key and these tags is a memory file. */
export function isMemoryFile(key: string, tags: readonly string[]): boolean {
  return key === MEMORY_ROOT || key.startsWith(`${MEMORY_ROOT}/`) || tags.includes(MEMORY_FILE_TAG);
}

/**
 * Checks a memory-file key against the memory-path rules of `@hms/memory-paths` (the one
 * place those rules live). Returns why the key is refused, or `undefined` when it is accepted.
 * `existing`: the key is already a memory file's (a write over it), so the rules for new names
 * only (NFC, compatibility characters, spaces) are left out, and a file an older version let
 * in under such a name stays editable; a new key (a create, a move's target) meets them all.
 */
export function memoryFileKeyProblem(key: string, existing = false): string | undefined {
  return checkMemoryPath(key, { existing })?.message;
}

/**
 * The proper ancestors of `key` below {@link MEMORY_ROOT}, shortest first, read from the key's
 * slashes: `/memories/a/b/c.md` gives `["/memories/a", "/memories/a/b"]`; a key outside
 * `/memories/` has none. These are the keys that, if they exist, would make `key` lie under a
 * file.
 */
export function memoryAncestors(key: string): string[] {
  const out: string[] = [];
  if (!key.startsWith(`${MEMORY_ROOT}/`)) return out;
  for (
    let at = key.indexOf("/", MEMORY_ROOT.length + 1);
    at !== -1;
    at = key.indexOf("/", at + 1)
  ) {
    out.push(key.slice(0, at));
  }
  return out;
}
