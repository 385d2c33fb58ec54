// Every result and error string the engine produces, in one place: the templates live in
// messages.json at the package root, which the Python port reads too (a copy in its wheel,
// kept identical by a Python test), so both languages word everything from one file. This
// module only fills them; plurals and other choices are made here, from the file's `words`.
// The wording follows the Anthropic TypeScript SDK's BetaLocalFilesystemMemoryTool where it
// has one; the rest is ours, and vectors/commands.json pins every string.
import data from "../messages.json" with { type: "json" };

type Template = keyof typeof data.messages;
type Word = keyof typeof data.words;
type Values = Readonly<Record<string, string | number>>;

/** A template of messages.json with every `{name}` replaced by `values[name]`, filled once. */
function fill(template: Template, values: Values = {}): string {
  const text = data.messages[template];
  return text.replace(/\{([a-z_]+)\}/g, (_match, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new Error(`messages.json: no value for {${name}} in ${template}`);
    return String(value);
  });
}

/** The form of `word` for `count` things (`one` for exactly 1, else `other`). */
function word(name: Word, count: number): string {
  const forms = data.words[name];
  return count === 1 ? forms.one : forms.other;
}

export const messages = {
  // ----- results
  directoryHeader: (path: string) => fill("directory_header", { path }),
  fileHeader: (path: string) => fill("file_header", { path }),
  emptyFile: data.messages.empty_file,
  emptiedFile: data.messages.emptied_file,
  fileTruncated: (path: string, lastShown: number, total: number, max: number, end: number) =>
    fill("file_truncated", { path, last_shown: lastShown, total, max, next: lastShown + 1, end }),
  directoryTruncated: (path: string, shown: number, total: number, max: number) =>
    fill("directory_truncated", { path, shown, total, max }),
  created: (path: string) => fill("created", { path }),
  replaced: data.messages.replaced,
  inserted: (path: string) => fill("inserted", { path }),
  deleted: (path: string) => fill("deleted", { path }),
  renamed: (from: string, to: string) => fill("renamed", { from, to }),

  // ----- errors: existence and kind
  notFound: (path: string) => fill("not_found", { path }),
  deleteNotFound: (path: string) => fill("delete_not_found", { path }),
  renameNotFound: (path: string) => fill("rename_not_found", { path }),
  notAFile: (path: string) => fill("not_a_file", { path }),
  alreadyExists: (path: string) => fill("already_exists", { path }),
  destinationExists: (path: string) => fill("destination_exists", { path }),
  createDirectory: (path: string) => fill("create_directory", { path }),
  createUnderFile: (path: string, file: string) => fill("create_under_file", { path, file }),
  renameUnderFile: (from: string, to: string, file: string) =>
    fill("rename_under_file", { from, to, file }),
  viewRangeOnDirectory: (path: string) => fill("view_range_on_directory", { path }),

  // ----- errors: forbidden operations
  deleteRoot: data.messages.delete_root,
  renameRoot: data.messages.rename_root,
  renameIntoItself: (from: string, to: string) => fill("rename_into_itself", { from, to }),
  renameInvalidDestination: (from: string, to: string, reason: string) =>
    fill("rename_invalid_destination", { from, to, reason }),

  // ----- errors: ranges
  viewRange: (start: number, end: number, path: string, lines: number) =>
    lines === 0
      ? fill("view_range_of_empty_file", { start, end, path })
      : fill("view_range", { start, end, path, lines, lines_word: word("lines_word", lines) }),
  insertLine: (line: number, lines: number) => fill("insert_line", { line, lines }),

  // ----- errors: str_replace
  emptyOldStr: (path: string) => fill("empty_old_str", { path }),
  noMatch: (oldStr: string, path: string) => fill("no_match", { old_str: echo(oldStr), path }),
  multipleMatches: (oldStr: string, lines: number[]) =>
    fill("multiple_matches", { old_str: echo(oldStr), lines: listLines(lines) }),

  // ----- errors: size and concurrency
  tooLarge: (path: string, bytes: number, limit: number) =>
    fill("too_large", { path, bytes, limit }),
  conflict: (path: string, attempts: number) => fill("conflict", { path, attempts }),
  recallUnsupported: data.messages.recall_unsupported,
  renamePartial: (from: string, to: string, left: string[]) =>
    fill("rename_partial", {
      from,
      to,
      count: left.length,
      files_word: word("files_word", left.length),
      left: left.join(", "),
      them_word: word("them_word", left.length),
    }),
} as const;

/** At most this many line numbers are listed for several matches. */
export const MAX_LISTED_MATCHES: number = data.max_listed_matches;

/** At most this many code points of the caller's own text (old_str) are echoed in a message. */
export const MAX_ECHOED_CODE_POINTS: number = data.max_echoed_code_points;

/**
 * The caller's text as a message shows it: whole up to {@link MAX_ECHOED_CODE_POINTS} code
 * points, else cut there with a count of the rest, so a huge argument never comes back whole.
 */
function echo(text: string): string {
  // UTF-16 code units are at least as many as code points: a short string is shown whole.
  if (text.length <= MAX_ECHOED_CODE_POINTS) return text;
  let shown = "";
  let count = 0;
  for (const ch of text) {
    if (count < MAX_ECHOED_CODE_POINTS) shown += ch;
    count++;
  }
  if (count <= MAX_ECHOED_CODE_POINTS) return text;
  return fill("echo_cut", { shown, more: count - MAX_ECHOED_CODE_POINTS });
}

function listLines(lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED_MATCHES).join(", ");
  const more = lines.length - MAX_LISTED_MATCHES;
  return more > 0 ? fill("listed_lines_and_more", { shown, more }) : shown;
}
