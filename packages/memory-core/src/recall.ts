/**
 * The `memory_recall` companion tool: its definition, its input checks and its result text.
 * The engine runs it (`MemoryEngine.recall`) over a backend that can recall.
 * The Python package (`hms_memory_tool.recall`) is the reference for the format; both produce
 * the same characters for the same hits, pinned by `vectors/recall.json`.
 *
 * Result text, with `n` hits (best first):
 *
 * ```text
 * Found {n} memory file{s} matching the query, most relevant first. View a file with the memory tool to read all of it; view_range [start, end] shows just the lines given for a hit.
 *
 * 1. {path} (lines {line_start}-{line_end}, score {score})
 *     {excerpt line}
 *     {excerpt line}
 *
 * 2. ...
 * ```
 *
 * - `{s}` is empty for one file and `s` otherwise; `lines a-b` is `line a` when a = b.
 * - `{score}` is `score.toFixed(4)` (`-0` prints `0.0000`).
 * - The excerpt is split at LF only; one final LF adds no line; each line is written after 4
 *   spaces, unchanged otherwise (a CR stays). An empty excerpt has no lines.
 * - Hits are separated by one empty line; the text has no final newline.
 *
 * With no hits: `No memory files matched the query. View /memories to see every file.`
 */

import { utf8ByteLength } from "@hms/memory-paths";
import type { RecallHit } from "./backend.js";
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
  "it holds much of what was asked.";

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

/** A `memory_recall` call, checked. */
export interface RecallInput {
  readonly query: string;
  readonly k: number;
}

/**
 * The `query` and `k` of a `memory_recall` call, checked; throws `MemoryToolError`
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
  const { query, k } = input as { query?: unknown; k?: unknown };
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
  if (k === undefined || k === null) return { query, k: DEFAULT_RECALL_K };
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
  return { query, k };
}

/** `score` with exactly 4 decimals. */
export function formatScore(score: number): string {
  return (score === 0 ? 0 : score).toFixed(4);
}

/** The `memory_recall` result text for `hits` (see the module documentation). */
export function formatRecall(hits: readonly RecallHit[]): string {
  if (hits.length === 0) return NO_RECALL_HITS;
  const parts = [
    `Found ${hits.length} memory ${hits.length === 1 ? "file" : "files"} matching the query, ` +
      "most relevant first. View a file with the memory tool to read all of it; view_range " +
      "[start, end] shows just the lines given for a hit.",
  ];
  hits.forEach((hit, i) => {
    const lines =
      hit.lineStart === hit.lineEnd
        ? `line ${hit.lineStart}`
        : `lines ${hit.lineStart}-${hit.lineEnd}`;
    const block = [`${i + 1}. ${hit.path} (${lines}, score ${formatScore(hit.score)})`];
    const excerpt = hit.excerpt.split("\n");
    if (excerpt.at(-1) === "") excerpt.pop();
    for (const line of excerpt) block.push(`    ${line}`);
    parts.push(block.join("\n"));
  });
  return parts.join("\n\n");
}
