/**
 * The `memory_recall` companion tool: its definition, its input checks and its result text.
 * The engine runs it (`MemoryEngine.recall`) over a backend that can recall.
 * The Python package (`hms_memory_tool.recall`) is the reference for the format; both produce
 * the same characters for the same hits, pinned by `vectors/recall.json`.
 *
 * Result text, with `n` hits (best first):
 *
 * ```text
 * Found {n} memory file{s}{range} matching the query, most relevant first. View a file with the memory tool to read all of it; view_range [start, end] shows just the lines given for a hit.
 *
 * 1. {path} (lines {line_start}-{line_end}, score {score}, modified {updated_at})
 *     {excerpt line}
 *     {excerpt line}
 *
 * 2. ...
 * ```
 *
 * - `{s}` is empty for one file and `s` otherwise; `lines a-b` is `line a` when a = b.
 * - `{score}` is `score.toFixed(4)` (`-0` prints `0.0000`).
 * - `, modified {updated_at}` is the hit's `updatedAt` as the backend gave it (hms-mcp: UTC
 *   with milliseconds, `2026-07-01T09:30:00.000Z`); it is left out when the hit has none.
 * - `{range}` is empty without a time range, else ` modified at or after {after}`,
 *   ` modified before {before}` or ` modified at or after {after} and before {before}`, each
 *   time as `parseRecallInput` normalized it (UTC with milliseconds).
 * - The excerpt is split at LF only; one final LF adds no line; each line is written after 4
 *   spaces, unchanged otherwise (a CR stays). An empty excerpt has no lines.
 * - Hits are separated by one empty line; the text has no final newline.
 *
 * With no hits: `No memory files matched the query. View /memories to see every file.`, or
 * with a time range: `No memory files{range} matched the query. Leave out modified_after and
 * modified_before to search every file.`
 */

import { checkIsoTime, utf8ByteLength } from "@hms/memory-paths";
import type { RecallHit, RecallTimeRange } from "./backend.js";
import { describeValue, firstUnpairedSurrogate, isInteger } from "./commands.js";
import { MemoryToolError } from "./errors.js";

/** The companion tool's name. */
export const RECALL_TOOL_NAME = "memory_recall";
/** Hits returned when `k` is not given. */
export const DEFAULT_RECALL_K = 5;
/** Most hits one call may ask for (hms-mcp's limit too: its backend checks they agree). */
export const MAX_RECALL_K = 50;
/** Longest query, in UTF-8 bytes (hms-mcp's limit too: its backend checks they agree). */
export const MAX_QUERY_BYTES = 16_384;

/** What Claude is told the tool does. */
export const RECALL_TOOL_DESCRIPTION =
  "Search the memory directory (/memories) by meaning and keywords. Returns the memory files " +
  "most relevant to the query, best first, each with its path, a relevance score, the line " +
  "range of the best-matching passage and that passage. Use it to find what you stored " +
  "earlier when you do not know which file holds it; then read the file with the memory " +
  "tool's view command. Scores run from 0 to 1 (higher is more relevant) and do not depend " +
  "on the other hits: below 0.1 a file likely has little to do with the query, from 0.3 up " +
  "it holds much of what was asked. Each hit also says when its file last changed (UTC). To " +
  "ask what changed in a period (this week, since a date), give modified_after and/or " +
  "modified_before: only files last changed in that range are searched.";

/** The tool's input schema, as sent to the Messages API. */
export const RECALL_INPUT_SCHEMA = {
  type: "object",
  properties: {
    query: {
      type: "string",
      description: "What to look for: words, a question or a description.",
    },
    k: {
      type: "integer",
      minimum: 1,
      maximum: MAX_RECALL_K,
      description: `How many files to return, 1 to ${MAX_RECALL_K} (default ${DEFAULT_RECALL_K}).`,
    },
    modified_after: {
      type: "string",
      description:
        "Only files last changed at or after this time: ISO 8601 with a timezone, such as " +
        "2026-07-01T00:00:00Z or 2026-07-01T09:30:00+02:00.",
    },
    modified_before: {
      type: "string",
      description:
        "Only files last changed before this time: ISO 8601 with a timezone, such as " +
        "2026-07-08T00:00:00Z.",
    },
  },
  required: ["query"],
  additionalProperties: false,
} as const;

/** The tool definition sent to the Messages API (the same object, key for key, as Python's). */
export function recallToolDefinition(): {
  name: typeof RECALL_TOOL_NAME;
  description: string;
  input_schema: typeof RECALL_INPUT_SCHEMA;
} {
  return {
    name: RECALL_TOOL_NAME,
    description: RECALL_TOOL_DESCRIPTION,
    input_schema: RECALL_INPUT_SCHEMA,
  };
}

/** The text when nothing matched. */
export const NO_RECALL_HITS =
  "No memory files matched the query. View /memories to see every file.";

/**
 * The error of a recall by time over a backend that cannot filter by time (its hits lack
 * `updatedAt`, or lie outside the range: it ignored it).
 */
export const RECALL_BY_TIME_UNSUPPORTED =
  "memory_recall cannot filter by time with this memory backend: it does not report when " +
  "files changed. Recall without modified_after and modified_before.";

/** A `memory_recall` call, checked. */
export interface RecallInput extends RecallTimeRange {
  readonly query: string;
  readonly k: number;
  /** At or after this time: UTC with milliseconds (`2026-07-01T00:00:00.000Z`), if given. */
  readonly modifiedAfter?: string;
  /** Before this time, in the same form, if given. */
  readonly modifiedBefore?: string;
}

const TIME_EXAMPLE = "such as 2026-07-01T00:00:00Z or 2026-07-01T09:30:00+02:00";

/**
 * A time parameter of `memory_recall` (`modified_after`, `modified_before`), checked: absent
 * or null gives undefined; otherwise an ISO 8601 time with a timezone (`checkIsoTime`).
 */
function parseTime(value: unknown, name: string): { utc: string; ms: number } | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw new MemoryToolError(
      "invalid_argument",
      `Invalid \`${name}\` parameter: expected a string, got ${describeValue(value)}.`,
    );
  }
  const check = checkIsoTime(value);
  if (check.ok) return check;
  // A string of a time's form is ASCII and short, so it is safe to repeat.
  const message = {
    "not-a-time": `expected an ISO 8601 time with a timezone, ${TIME_EXAMPLE}.`,
    "no-timezone": `${value} has no timezone. Add Z for UTC (2026-07-01T00:00:00Z) or an offset such as +02:00.`,
    "no-such-time": `${value} is not a real time: a month, day, hour, minute, second or offset is out of range.`,
    "out-of-range": `${value} falls outside the years 0000 to 9999 in UTC.`,
  }[check.problem];
  throw new MemoryToolError("invalid_argument", `Invalid \`${name}\` parameter: ${message}`);
}

/**
 * The `query`, `k`, `modified_after` and `modified_before` of a `memory_recall` call, checked
 * in that order, the times normalized to UTC with milliseconds; throws `MemoryToolError`
 * (`invalid_command` for a non-object, else `invalid_argument`) with the same messages as the
 * Python package.
 */
export function parseRecallInput(input: unknown): RecallInput {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new MemoryToolError(
      "invalid_command",
      `Invalid memory_recall input: expected an object with a "query" field, got ${describeValue(input)}.`,
    );
  }
  const { query, k, modified_after, modified_before } = input as {
    query?: unknown;
    k?: unknown;
    modified_after?: unknown;
    modified_before?: unknown;
  };
  if (query === undefined) {
    throw new MemoryToolError(
      "invalid_argument",
      "Missing required parameter `query` for the memory_recall tool.",
    );
  }
  if (typeof query !== "string") {
    throw new MemoryToolError(
      "invalid_argument",
      `Invalid \`query\` parameter: expected a string, got ${describeValue(query)}.`,
    );
  }
  if (query === "") {
    throw new MemoryToolError(
      "invalid_argument",
      "Invalid `query` parameter: it is empty. Give words or a question to search the memory files for.",
    );
  }
  const surrogate = firstUnpairedSurrogate(query);
  if (surrogate !== null) {
    throw new MemoryToolError(
      "invalid_argument",
      `Invalid \`query\` parameter: it contains an unpaired surrogate (U+${surrogate
        .toString(16)
        .toUpperCase()}), which is not valid Unicode text. Send complete characters only.`,
    );
  }
  const bytes = utf8ByteLength(query);
  if (bytes > MAX_QUERY_BYTES) {
    throw new MemoryToolError(
      "invalid_argument",
      `Invalid \`query\` parameter: it is ${bytes} bytes long, over the limit of ${MAX_QUERY_BYTES} bytes. Use a shorter query.`,
    );
  }
  let count = DEFAULT_RECALL_K;
  if (k !== undefined && k !== null) {
    if (!isInteger(k)) {
      throw new MemoryToolError(
        "invalid_argument",
        `Invalid \`k\` parameter: expected an integer, got ${describeValue(k)}.`,
      );
    }
    if (k < 1 || k > MAX_RECALL_K) {
      throw new MemoryToolError(
        "invalid_argument",
        `Invalid \`k\` parameter: ${k}. It should be from 1 to ${MAX_RECALL_K}.`,
      );
    }
    count = k;
  }
  const after = parseTime(modified_after, "modified_after");
  const before = parseTime(modified_before, "modified_before");
  if (after !== undefined && before !== undefined && after.ms > before.ms) {
    throw new MemoryToolError(
      "invalid_argument",
      `Invalid \`modified_after\` and \`modified_before\` parameters: ${String(modified_after)} ` +
        `is later than ${String(modified_before)}, so no file could match. Give an earlier ` +
        "modified_after or a later modified_before.",
    );
  }
  return {
    query,
    k: count,
    ...(after === undefined ? {} : { modifiedAfter: after.utc }),
    ...(before === undefined ? {} : { modifiedBefore: before.utc }),
  };
}

/** Whether `hit` lies in `range` by its `updatedAt` (false when it has none to compare). */
export function hitInRange(hit: RecallHit, range: RecallTimeRange): boolean {
  if (range.modifiedAfter === undefined && range.modifiedBefore === undefined) return true;
  const at = hit.updatedAt === undefined ? undefined : checkIsoTime(hit.updatedAt);
  if (at === undefined || !at.ok) return false;
  const after = range.modifiedAfter === undefined ? undefined : checkIsoTime(range.modifiedAfter);
  const before =
    range.modifiedBefore === undefined ? undefined : checkIsoTime(range.modifiedBefore);
  return (
    (after === undefined || (after.ok && at.ms >= after.ms)) &&
    (before === undefined || (before.ok && at.ms < before.ms))
  );
}

/** ` modified at or after {after} and before {before}` (or one bound), or "" without a range. */
function rangePhrase(range: RecallTimeRange): string {
  const { modifiedAfter: after, modifiedBefore: before } = range;
  if (after !== undefined && before !== undefined) {
    return ` modified at or after ${after} and before ${before}`;
  }
  if (after !== undefined) return ` modified at or after ${after}`;
  if (before !== undefined) return ` modified before ${before}`;
  return "";
}

/** `score` with exactly 4 decimals. */
export function formatScore(score: number): string {
  return (score === 0 ? 0 : score).toFixed(4);
}

/**
 * The `memory_recall` result text for `hits`, found within `range` when one was given (see the
 * module documentation).
 */
export function formatRecall(hits: readonly RecallHit[], range: RecallTimeRange = {}): string {
  const among = rangePhrase(range);
  if (hits.length === 0) {
    return among === ""
      ? NO_RECALL_HITS
      : `No memory files${among} matched the query. Leave out modified_after and ` +
          "modified_before to search every file.";
  }
  const parts = [
    `Found ${hits.length} memory ${hits.length === 1 ? "file" : "files"}${among} matching the ` +
      "query, most relevant first. View a file with the memory tool to read all of it; " +
      "view_range [start, end] shows just the lines given for a hit.",
  ];
  hits.forEach((hit, i) => {
    const lines =
      hit.lineStart === hit.lineEnd
        ? `line ${hit.lineStart}`
        : `lines ${hit.lineStart}-${hit.lineEnd}`;
    const modified = hit.updatedAt === undefined ? "" : `, modified ${hit.updatedAt}`;
    const block = [`${i + 1}. ${hit.path} (${lines}, score ${formatScore(hit.score)}${modified})`];
    const excerpt = hit.excerpt.split("\n");
    if (excerpt.at(-1) === "") excerpt.pop();
    for (const line of excerpt) block.push(`    ${line}`);
    parts.push(block.join("\n"));
  });
  return parts.join("\n\n");
}
