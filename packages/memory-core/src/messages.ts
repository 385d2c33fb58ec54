// Every result and error string the engine produces, in one place. The wording follows the
// Anthropic TypeScript SDK's BetaLocalFilesystemMemoryTool where it has one; the rest is ours
// and is pinned, with the SDK's, by vectors/commands.json. The Python port mirrors this file.

export const messages = {
  // ----- results
  directoryHeader: (path: string) =>
    `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:`,
  fileHeader: (path: string) => `Here's the content of ${path} with line numbers:`,
  emptyFile: "(this file is empty)",
  emptiedFile: "(the file is now empty)",
  fileTruncated: (path: string, lastShown: number, total: number, max: number, end: number) =>
    `[Output truncated after line ${lastShown} of ${total} to stay within ${max} characters. To continue, view ${path} with view_range [${lastShown + 1}, ${end}].]`,
  directoryTruncated: (path: string, shown: number, total: number, max: number) =>
    `[Output truncated after ${shown} of ${total} entries to stay within ${max} characters. To see the rest, view a subdirectory of ${path}.]`,
  created: (path: string) => `File created successfully at: ${path}`,
  replaced:
    "The memory file has been edited. Here is the snippet showing the change (with line numbers):",
  inserted: (path: string) => `The file ${path} has been edited.`,
  deleted: (path: string) => `Successfully deleted ${path}`,
  renamed: (from: string, to: string) => `Successfully renamed ${from} to ${to}`,

  // ----- errors: existence and kind
  notFound: (path: string) => `The path ${path} does not exist. Please provide a valid path.`,
  deleteNotFound: (path: string) => `The path ${path} does not exist`,
  renameNotFound: (path: string) => `The path ${path} does not exist`,
  notAFile: (path: string) => `The path ${path} is not a file.`,
  alreadyExists: (path: string) => `File ${path} already exists`,
  destinationExists: (path: string) => `The destination ${path} already exists`,
  createDirectory: (path: string) =>
    `Cannot create ${path} because it is a directory. Create a file inside it instead (a path starting with ${path}/).`,
  createUnderFile: (path: string, file: string) =>
    `Cannot create ${path} because ${file} is a file, not a directory. Choose a path that is not inside ${file}.`,
  renameUnderFile: (from: string, to: string, file: string) =>
    `Cannot rename ${from} to ${to} because ${file} is a file, not a directory. Choose a destination that is not inside ${file}.`,
  viewRangeOnDirectory: (path: string) =>
    `The \`view_range\` parameter only applies to files, and ${path} is a directory. View it without view_range.`,

  // ----- errors: forbidden operations
  deleteRoot: "Cannot delete the /memories directory itself",
  renameRoot: "Cannot rename the /memories directory itself",
  renameIntoItself: (from: string, to: string) =>
    `Cannot rename ${from} to ${to}: a directory cannot be moved inside itself.`,
  renameInvalidDestination: (from: string, to: string, reason: string) =>
    `Cannot rename ${from} to ${to}: ${reason}`,

  // ----- errors: ranges
  viewRange: (start: number, end: number, path: string, lines: number) =>
    lines === 0
      ? `Invalid \`view_range\` parameter: [${start}, ${end}]. The file ${path} is empty, so it has no lines to show; view it without view_range.`
      : `Invalid \`view_range\` parameter: [${start}, ${end}]. It should be [start, end] with 1 <= start <= end <= ${lines}, or [start, -1] with 1 <= start <= ${lines} to read to the end; ${path} has ${lines} line${lines === 1 ? "" : "s"}.`,
  insertLine: (line: number, lines: number) =>
    `Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lines}]`,

  // ----- errors: str_replace
  emptyOldStr: (path: string) =>
    `Invalid \`old_str\` parameter: it is empty. Give the exact text to replace, with enough surrounding text to appear only once in ${path}.`,
  noMatch: (oldStr: string, path: string) =>
    `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`,
  multipleMatches: (oldStr: string, lines: number[]) =>
    `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${listLines(lines)}. Please ensure it is unique`,

  // ----- errors: size and concurrency
  tooLarge: (path: string, bytes: number, limit: number) =>
    `Cannot write ${path}: the new content would be ${bytes} bytes, over the ${limit}-byte limit for a memory file. Split the content across several smaller files.`,
  conflict: (path: string, attempts: number) =>
    `Could not change ${path}: other writers changed it at the same time, and all ${attempts} attempts to apply this change lost the race. Nothing was changed; view it and try again.`,
  recallUnsupported:
    "memory_recall is not available: this memory backend cannot search its files. Use the memory tool's view command to find what you stored.",
  renamePartial: (from: string, to: string, left: string[]) =>
    `Renamed ${from} to ${to} except ${left.length} file${left.length === 1 ? "" : "s"} that other writers kept changing, left in place: ${left.join(", ")}. View and rename ${left.length === 1 ? "it" : "them"} again.`,
} as const;

/** At most this many line numbers are listed for several matches. */
export const MAX_LISTED_MATCHES = 50;

function listLines(lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED_MATCHES).join(", ");
  const more = lines.length - MAX_LISTED_MATCHES;
  return more > 0 ? `${shown}, and ${more} more` : shown;
}
