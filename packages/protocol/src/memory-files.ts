/**
 * Memory files: the memories a memory-tool client keeps. Each is stored under its path as key
 * (`/memories/...`) with this tag, so recall over memory files ignores other memories in the
 * same store, and the server keeps them a well-formed tree.
 */

/** The tag every memory file carries. */
export const MEMORY_FILE_TAG = "memory-file";

/** The directory every memory file lies under. */
export const MEMORY_ROOT = "/memories";
