/**
 * The history tools: `history`, `diff` and `restore`, for people and programs that inspect
 * and correct what Claude's memory tool wrote (not commands of the memory tool itself).
 * Every create, edit, move and delete of a memory file is kept as a version; `unused` finds
 * the files nobody has read or written for long.
 */
import { z } from "zod";
import { expectedVersion, key, readOnly, timestamp } from "./fields.js";
import type { ToolSchema } from "./tool-schema.js";

/** The most changes one `history` page returns. */
export const MAX_HISTORY_PAGE = 1000;

const version = z.number().int().min(1);
const change = z.object({
  seq: z.number().int().min(1).describe("Orders the store's changes; pass as before to page."),
  key: z.string().describe("The file the change left behind (a move's destination)."),
  op: z.enum(["create", "update", "move", "delete"]),
  from_key: z.string().nullable().describe("A move's source; null otherwise."),
  version: version.describe("The version the change made (a delete: the version it deleted)."),
  hash: z.string(),
  bytes: z.number().int().min(0),
  at: timestamp,
  actor: z.string().nullable().describe("Who made it (the caller's token name), when known."),
  command: z
    .string()
    .nullable()
    .describe(
      "What made it: the tool (remember, forget, move, restore) or the command a client named.",
    ),
});

const drop = z.object({
  reason: z
    .enum(["bytes", "disk_full", "versions", "days"])
    .describe(
      "bytes: to keep the history within its size (--keep-mib), oldest first; disk_full: to make " +
        "room for a write on a full disk, oldest first; versions: beyond the versions kept of " +
        "each file (--keep-versions); days: older than the days kept (--keep-days).",
    ),
  changes: z.number().int().min(0).describe("How many changes were dropped for this reason."),
  through: timestamp.describe("When the newest of them was made: older changes may be missing."),
  at: timestamp.describe("When the last of them were dropped."),
});

export const history = {
  name: "history",
  title: "History of memory files",
  description:
    "The changes of one memory file (key: its versions, moves into and out of it included) " +
    "or of every file under a directory (prefix, e.g. '/memories/notes/', optionally since " +
    "a time), newest first, a page at a time. Every create, edit, move and delete of a " +
    "memory file is kept for as long as the server's retention allows; dropped says what the " +
    "namespace's history has dropped and why (older changes may be missing).",
  input: z.strictObject({
    key: key.describe("A memory file's path, e.g. /memories/notes.md.").optional(),
    prefix: z
      .string()
      .describe("Every file whose path starts with this, e.g. /memories/notes/.")
      .optional(),
    since: z
      .string()
      .describe("With prefix: only changes at or after this ISO 8601 time.")
      .optional(),
    before: z.number().int().min(1).describe("The next_before of the previous page.").optional(),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_HISTORY_PAGE)
      .describe(`Page size, 1 to ${MAX_HISTORY_PAGE} (default 100).`)
      .optional(),
  }),
  output: z.object({
    changes: z.array(change),
    next_before: z
      .number()
      .int()
      .nullable()
      .describe("Pass back as before; null on the last page."),
    dropped: z
      .array(drop)
      .describe(
        "What the namespace's history has dropped, one entry per reason, most recent first " +
          "(empty: nothing). Servers before this field omit it.",
      )
      .optional(),
  }),
  annotations: readOnly,
} as const satisfies ToolSchema;

export const diff = {
  name: "diff",
  title: "Compare two versions of a memory file",
  description:
    "A unified diff between two versions of a memory file (from its history), or between a " +
    "version and the file as it is now (to_version omitted).",
  input: z.strictObject({
    key: key.describe("A memory file's path."),
    from_version: version.describe("The older version."),
    to_version: version.describe("The newer version (default: the file now).").optional(),
  }),
  output: z.object({
    key: z.string(),
    from_version: version,
    to_version: version,
    unified: z.string().describe("The unified diff; empty when the texts are the same."),
    added: z.number().int().min(0).describe("Lines added."),
    removed: z.number().int().min(0).describe("Lines removed."),
  }),
  annotations: readOnly,
} as const satisfies ToolSchema;

export const restore = {
  name: "restore",
  title: "Restore a memory file or directory",
  description:
    "Bring a memory file back to a version of it (version) or to how it was at a time (at; " +
    "deleted if it did not exist then), or, with tree, every file under a directory back to " +
    "a time, in one transaction. The result is recorded as new versions (command restore); " +
    "a file that already holds what it would get back is left alone (no new version). " +
    "expected_version makes a file restore a compare-and-set: VERSION_CONFLICT if the file " +
    "changed meanwhile. A version or time the history does not reach is NOT_FOUND.",
  input: z.strictObject({
    key: key.describe("A memory file's path, or a directory's with tree."),
    version: version.describe("The version to bring back.").optional(),
    at: z.string().describe("An ISO 8601 time to bring the file (or tree) back to.").optional(),
    tree: z
      .boolean()
      .describe("Restore every file under the directory key to its state at `at`.")
      .optional(),
    expected_version: expectedVersion.optional(),
  }),
  output: z.object({
    restored: z.array(z.object({ key: z.string(), version })),
    deleted: z.array(z.string()).describe("Files deleted because they did not exist then."),
    unknown: z
      .array(z.string())
      .describe("Files left as they are: the history does not reach back that far."),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
} as const satisfies ToolSchema;

export const unused = {
  name: "unused",
  title: "Memory files unused since a time",
  description:
    "Memory files (under prefix, default /memories/) that nobody has written or read (with " +
    "get, as the memory tool's view does) since `before`, oldest use first. Reads are known " +
    "to the day. For clearing what has gone stale, as the memory tool's docs advise.",
  input: z.strictObject({
    before: z.string().describe("An ISO 8601 time: files last used before it."),
    prefix: z.string().describe("Only files whose path starts with this.").optional(),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_HISTORY_PAGE)
      .describe(`At most this many, 1 to ${MAX_HISTORY_PAGE} (default 1000).`)
      .optional(),
  }),
  output: z.object({
    files: z.array(
      z.object({
        key: z.string(),
        version,
        bytes: z.number().int().min(0),
        last_used: timestamp.describe(
          "Its last write, or its last read's day (as that day's end).",
        ),
      }),
    ),
  }),
  annotations: readOnly,
} as const satisfies ToolSchema;
