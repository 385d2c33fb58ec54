import { checkMemoryPath, displayPath } from "@hms/memory-paths";
import { MemoryToolError } from "./errors.js";
import { messages } from "./messages.js";

// The command shapes of the Anthropic memory tool (`memory_20250818`), written here so this
// package does not depend on @anthropic-ai/sdk. Each is structurally compatible with the
// SDK's `BetaMemoryTool20250818*Command`: an SDK command can be passed wherever one of these
// is expected. Two fields are wider than the SDK's on purpose: `new_str` may be omitted
// (the replaced text is deleted) and `view_range` may be `null` (same as omitted).

/** `view`: show a directory listing or a file's numbered lines. */
export interface MemoryViewCommand {
  command: "view";
  path: string;
  /** `[start, end]` or `[start, -1]`, 1-based, inclusive. */
  view_range?: number[] | null;
}

/** `create`: write a new file; never overwrites. */
export interface MemoryCreateCommand {
  command: "create";
  path: string;
  file_text: string;
}

/** `str_replace`: replace the single occurrence of `old_str` with `new_str`. */
export interface MemoryStrReplaceCommand {
  command: "str_replace";
  path: string;
  old_str: string;
  /** Omitted or `null`: the occurrence is deleted. */
  new_str?: string | null;
}

/** `insert`: insert `insert_text` after line `insert_line` (0 is the top). */
export interface MemoryInsertCommand {
  command: "insert";
  path: string;
  insert_line: number;
  insert_text: string;
}

/** `delete`: delete a file, or a directory with everything under it. */
export interface MemoryDeleteCommand {
  command: "delete";
  path: string;
}

/** `rename`: move a file or a whole directory to a path that does not exist. */
export interface MemoryRenameCommand {
  command: "rename";
  old_path: string;
  new_path: string;
}

/** Any memory tool command. */
export type MemoryCommand =
  | MemoryViewCommand
  | MemoryCreateCommand
  | MemoryStrReplaceCommand
  | MemoryInsertCommand
  | MemoryDeleteCommand
  | MemoryRenameCommand;

/** The command names, in the order the tool documents them. */
export const MEMORY_COMMANDS = [
  "view",
  "create",
  "str_replace",
  "insert",
  "delete",
  "rename",
] as const;

/** A command name. */
export type MemoryCommandName = (typeof MEMORY_COMMANDS)[number];

// ---------------------------------------------------------------------------------------
// Run-time checks of command input. Commands come from a model through an SDK that does not
// validate them, so every field is checked here, before storage is touched.

/** How a JSON value is named in messages; identical words in the Python port. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "boolean") return "a boolean";
  if (typeof value === "number") {
    if (Number.isSafeInteger(value)) return "an integer";
    // Say why a number is not an integer here, so the caller knows what to change.
    if (Number.isInteger(value)) return "an integer too large to be exact";
    return Number.isFinite(value) ? "a fractional number" : "a number";
  }
  if (typeof value === "string") return "a string";
  return `a ${typeof value}`;
}

/** The command name of `input`, checked. */
function commandName(input: unknown): MemoryCommandName {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new MemoryToolError(
      "invalid_command",
      `Invalid memory command: expected an object with a "command" field, got ${describeValue(input)}.`,
    );
  }
  const name = (input as { command?: unknown }).command;
  if (typeof name !== "string") {
    throw new MemoryToolError(
      "invalid_command",
      `Invalid memory command: the "command" field must be one of ${MEMORY_COMMANDS.join(", ")}; got ${describeValue(name)}.`,
    );
  }
  if (!(MEMORY_COMMANDS as readonly string[]).includes(name)) {
    throw new MemoryToolError(
      "invalid_command",
      `Unknown memory command \`${displayPath(name)}\`. Use one of: ${MEMORY_COMMANDS.join(", ")}.`,
    );
  }
  return name as MemoryCommandName;
}

function field(input: object, name: string): unknown {
  return (input as Record<string, unknown>)[name];
}

function missing(command: string, name: string): MemoryToolError {
  return new MemoryToolError(
    "invalid_argument",
    `Missing required parameter \`${name}\` for the ${command} command.`,
  );
}

function wrongType(name: string, expected: string, value: unknown): MemoryToolError {
  return new MemoryToolError(
    "invalid_argument",
    `Invalid \`${name}\` parameter: expected ${expected}, got ${describeValue(value)}.`,
  );
}

/** A path parameter: present, a string, and a valid memory path. */
function pathParameter(input: object, command: string, name: string): string {
  const value = field(input, name);
  if (value === undefined) throw missing(command, name);
  if (typeof value !== "string") throw wrongType(name, "a string", value);
  // Only a name being created must meet the rules for new names (NFC, spaces): a file an
  // older version let in stays readable, editable and deletable.
  const creates = command === "create" || name === "new_path";
  const error = checkMemoryPath(value, { existing: !creates });
  if (error) {
    throw new MemoryToolError("invalid_path", error.message, {
      pathRule: error.rule,
      cause: error,
    });
  }
  return value;
}

/** A text parameter: present (unless `optional`), a string, and valid Unicode. */
function textParameter(
  input: object,
  command: string,
  name: string,
  optional = false,
): string | undefined {
  const value = field(input, name);
  if (value === undefined || (optional && value === null)) {
    if (optional) return undefined;
    throw missing(command, name);
  }
  if (typeof value !== "string") throw wrongType(name, "a string", value);
  const surrogate = firstUnpairedSurrogate(value);
  if (surrogate !== null) {
    throw new MemoryToolError(
      "invalid_argument",
      `Invalid \`${name}\` parameter: it contains an unpaired surrogate (U+${surrogate
        .toString(16)
        .toUpperCase()}), which is not valid Unicode text. Send complete characters only.`,
    );
  }
  return value;
}

/**
 * An integer parameter. Integers are numbers with no fractional part and a magnitude of at
 * most 2^53 - 1 (so every port prints them the same way); JSON `3.0` counts as 3.
 */
function integerParameter(input: object, command: string, name: string): number {
  const value = field(input, name);
  if (value === undefined) throw missing(command, name);
  if (!isInteger(value)) throw wrongType(name, "an integer", value);
  return value;
}

/** Whether `value` is an integer in the sense above: a number with no fraction, |n| <= 2^53 - 1. */
export function isInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value);
}

/** `view_range`: absent/null, or exactly two integers. Range against the file is checked later. */
function viewRangeParameter(input: object): [number, number] | undefined {
  const value = field(input, "view_range");
  if (value === undefined || value === null) return undefined;
  const expected = "[start, end] or [start, -1] (two integers)";
  if (!Array.isArray(value)) throw wrongType("view_range", expected, value);
  if (value.length !== 2) {
    throw new MemoryToolError(
      "invalid_argument",
      `Invalid \`view_range\` parameter: expected ${expected}, got an array of ${value.length} item${
        value.length === 1 ? "" : "s"
      }.`,
    );
  }
  const [start, end] = value as unknown[];
  for (const item of [start, end]) {
    if (!isInteger(item)) {
      throw new MemoryToolError(
        "invalid_argument",
        `Invalid \`view_range\` parameter: expected ${expected}, got an array holding ${describeValue(item)}.`,
      );
    }
  }
  return [start as number, end as number];
}

/** The code point of the first unpaired surrogate in `text`, or null if it is valid Unicode. */
export function firstUnpairedSurrogate(text: string): number | null {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    return unit;
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// Parsing: a raw command (as Claude sent it) checked in full, once, into a typed command.
// Fields are checked in the order the tool documents them, so the first problem is reported.

/** A `view` command, checked. */
export interface ViewCommand {
  readonly command: "view";
  readonly path: string;
  /** `[start, end]` as given; checked against the file when it is read. */
  readonly viewRange: readonly [number, number] | undefined;
}

/** A `create` command, checked. */
export interface CreateCommand {
  readonly command: "create";
  readonly path: string;
  readonly fileText: string;
}

/** A `str_replace` command, checked (`oldStr` is not empty; `newStr` "" when omitted). */
export interface StrReplaceCommand {
  readonly command: "str_replace";
  readonly path: string;
  readonly oldStr: string;
  readonly newStr: string;
}

/** An `insert` command, checked (`insertLine` is an integer; its range is checked later). */
export interface InsertCommand {
  readonly command: "insert";
  readonly path: string;
  readonly insertLine: number;
  readonly insertText: string;
}

/** A `delete` command, checked. */
export interface DeleteCommand {
  readonly command: "delete";
  readonly path: string;
}

/** A `rename` command, checked. */
export interface RenameCommand {
  readonly command: "rename";
  readonly oldPath: string;
  readonly newPath: string;
}

/** A memory command whose every field has been checked: what the engine's handlers take. */
export type ParsedCommand =
  | ViewCommand
  | CreateCommand
  | StrReplaceCommand
  | InsertCommand
  | DeleteCommand
  | RenameCommand;

const parsers: { readonly [N in MemoryCommandName]: (input: object) => ParsedCommand } = {
  view: (input) => ({
    command: "view",
    path: pathParameter(input, "view", "path"),
    viewRange: viewRangeParameter(input),
  }),
  create: (input) => ({
    command: "create",
    path: pathParameter(input, "create", "path"),
    fileText: textParameter(input, "create", "file_text") as string,
  }),
  str_replace: (input) => {
    const path = pathParameter(input, "str_replace", "path");
    const oldStr = textParameter(input, "str_replace", "old_str") as string;
    const newStr = textParameter(input, "str_replace", "new_str", true) ?? "";
    if (oldStr === "") throw new MemoryToolError("invalid_argument", messages.emptyOldStr(path));
    return { command: "str_replace", path, oldStr, newStr };
  },
  insert: (input) => ({
    command: "insert",
    path: pathParameter(input, "insert", "path"),
    insertLine: integerParameter(input, "insert", "insert_line"),
    insertText: textParameter(input, "insert", "insert_text") as string,
  }),
  delete: (input) => ({ command: "delete", path: pathParameter(input, "delete", "path") }),
  rename: (input) => ({
    command: "rename",
    oldPath: pathParameter(input, "rename", "old_path"),
    newPath: pathParameter(input, "rename", "new_path"),
  }),
};

/**
 * Checks a raw command in full and returns it typed: its `command` names one of the six
 * commands and every field is present, of the right type and valid (paths by
 * `@hms/memory-paths`, texts as Unicode). Throws the {@link MemoryToolError} of the first
 * problem, before any storage is touched.
 */
export function parseCommand(input: unknown): ParsedCommand {
  return parsers[commandName(input)](input as object);
}

/**
 * Checks `input` as a `name` command, whatever its own `command` field says (the SDK's
 * per-command handlers have already dispatched on it). Throws like {@link parseCommand}.
 */
export function parseCommandAs<N extends MemoryCommandName>(
  name: N,
  input: unknown,
): Extract<ParsedCommand, { command: N }> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    commandName(input); // throws the invalid_command error
  }
  return parsers[name](input as object) as Extract<ParsedCommand, { command: N }>;
}
