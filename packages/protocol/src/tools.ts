/**
 * hms-mcp's tools as the contract defines them: name, title, description, input and output
 * schemas (zod) and MCP annotations. The server runs them; clients check answers against the
 * output schemas. `tools/list` shows exactly these, in this order.
 */
import { z } from "zod";
import { DEFAULT_PAGE, DEFAULT_RECALL_K, MAX_PAGE, MAX_RECALL_K } from "./limits.js";

import type { ToolAnnotations, ToolSchema } from "./tool-schema.js";

export type { ToolAnnotations, ToolSchema };

import {
  cursor,
  expectedVersion,
  key,
  limit,
  nextCursor,
  prefix,
  readOnly,
  tag,
  timestamp,
} from "./fields.js";
import { diff, history, restore, unused } from "./history-tools.js";

/** A whole memory, as `get` and `export` return it. */
const record = z.object({
  key: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  version: z.number().int().min(1),
  hash: z.string().describe("sha256: + lowercase hex of the UTF-8 text."),
  bytes: z.number().int().min(0),
  created_at: timestamp,
  updated_at: timestamp,
});

export const remember = {
  name: "remember",
  title: "Remember",
  description:
    "Store a memory under a key, creating it or replacing the existing one. Omitted tags or " +
    "metadata keep the existing ones. Every write gives the memory a new version, never one " +
    "the key had before. Preconditions make it safe under concurrent writers: if_absent " +
    "fails with EXISTS when the key exists; expected_version fails with VERSION_CONFLICT " +
    "unless the memory is at that version. Creating a memory file (a key under /memories) " +
    "fails with PATH_CONFLICT where a directory of that name exists or a file lies above it. " +
    "Text over max_text_bytes fails with TOO_LARGE and stores nothing.",
  input: z.strictObject({
    key,
    text: z.string().describe("The memory's text (UTF-8, at most max_text_bytes)."),
    tags: z
      .array(z.string())
      .describe("Replaces the tags: at most 32, each 1 to 64 bytes of [A-Za-z0-9._:-].")
      .optional(),
    metadata: z
      .record(z.string(), z.unknown())
      .describe("Replaces the metadata: a JSON object of at most 8192 bytes.")
      .optional(),
    expected_version: expectedVersion.optional(),
    if_absent: z.boolean().describe("Create only: fail with EXISTS if the key exists.").optional(),
  }),
  output: z.object({
    key: z.string(),
    version: z.number().int().min(1),
    bytes: z.number().int().min(0),
    hash: z.string(),
    created: z
      .boolean()
      .describe("True if this call created the memory, false if it replaced one."),
    updated_at: timestamp,
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
} as const satisfies ToolSchema;

export const recall = {
  name: "recall",
  title: "Recall relevant memories",
  description:
    "Find the memories most relevant to a free-text query, best first. Each hit has the key, " +
    "a relevance score in (0, 1] (higher is better), " +
    "an excerpt and a 1-based inclusive line range that holds the excerpt and the lines around " +
    "it most likely to answer (up to 8 lines). Any query text is accepted. " +
    "build says how ranking was done: lexical (BM25) or hybrid (BM25 fused with an embedding " +
    "model's similarity). Scores are absolute, never scaled against the other hits. Lexical: " +
    "the hit's BM25 as a share of the most any memory could score for the query (0.45 for a " +
    "memory of average length holding every query word once; above 0.2 a match on much of " +
    "the query, below 0.1 likely noise; 0.001 for a hit holding only words most memories " +
    "hold). Hybrid: 0.6 times that share plus 0.4 times the similarity (above 0.3 a strong " +
    "match, below 0.2 likely noise). The two builds' scores are on different scales. " +
    "modified_after and modified_before keep only memories last changed in that time range " +
    "(at or after, and before), applied before the best k are taken; each hit has updated_at, " +
    "its memory's last change.",
  input: z.strictObject({
    query: z.string().describe("What to look for, in plain words."),
    k: z
      .number()
      .int()
      .min(1)
      .max(MAX_RECALL_K)
      .describe(
        `How many hits, 1 to ${MAX_RECALL_K} (default ${DEFAULT_RECALL_K}; null: the default).`,
      )
      // null is "not given" for k and the time bounds, as in the memory tool's memory_recall
      // (pinned by packages/memory-core/vectors/recall.json).
      .nullish(),
    tag: tag("memories").optional(),
    prefix: prefix("memories").optional(),
    modified_after: z
      .string()
      .describe(
        "Only memories last changed at or after this time: ISO 8601 with a timezone, such as " +
          "2026-07-01T00:00:00Z or 2026-07-01T09:30:00+02:00 (seconds optional; a fraction " +
          "finer than a millisecond counts as the next millisecond); null: no bound.",
      )
      .nullish(),
    modified_before: z
      .string()
      .describe(
        "Only memories last changed before this time (ISO 8601 with a timezone); not earlier " +
          "than modified_after; null: no bound.",
      )
      .nullish(),
  }),
  output: z.object({
    hits: z.array(
      z.object({
        key: z.string(),
        score: z
          .number()
          .min(0)
          .max(1)
          .describe(
            "Relevance in (0, 1], higher is better, absolute (comparable across queries of " +
              "one build): the hit's share of the query's BM25 ceiling, at least 0.001 " +
              "(lexical), or 0.6 × that share + 0.4 × the calibrated similarity (hybrid).",
          ),
        excerpt: z.string(),
        line_start: z.number().int().min(1),
        line_end: z.number().int().min(1),
        updated_at: timestamp
          .describe(
            "The memory's last change (ISO 8601 UTC with milliseconds). Absent from servers " +
              "before recall by time.",
          )
          .optional(),
      }),
    ),
    build: z.enum(["lexical", "hybrid"]),
  }),
  annotations: readOnly,
} as const satisfies ToolSchema;

export const search = {
  name: "search",
  title: "Search memories for text",
  description:
    "Find lines that contain a literal text, ignoring case, in key order then line order. " +
    "Each hit has the key, the 1-based line number and a snippet of the line.",
  input: z.strictObject({
    text: z.string().describe("The literal text to find (one line, case-insensitive)."),
    prefix: prefix("memories").optional(),
    tag: tag("memories").optional(),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_PAGE)
      .describe(`Most lines to return, 1 to ${MAX_PAGE} (default ${DEFAULT_PAGE}).`)
      .optional(),
  }),
  output: z.object({
    hits: z.array(
      z.object({ key: z.string(), line: z.number().int().min(1), snippet: z.string() }),
    ),
  }),
  annotations: readOnly,
} as const satisfies ToolSchema;

export const get = {
  name: "get",
  title: "Get a memory",
  description: "Read one memory: its text, tags, metadata, version, hash, size and times.",
  input: z.strictObject({ key }),
  output: record,
  annotations: readOnly,
} as const satisfies ToolSchema;

export const list = {
  name: "list",
  title: "List memories",
  description:
    "List keys in key order (Unicode code point order) with their sizes, versions, tags and " +
    "update times, a page at a time. prefix is a plain string prefix: the children of " +
    "'/memories/a' are listed with prefix '/memories/a/'.",
  input: z.strictObject({
    prefix: prefix("memories").optional(),
    tag: tag("memories").optional(),
    cursor: cursor.optional(),
    limit: limit.optional(),
  }),
  output: z.object({
    items: z.array(
      z.object({
        key: z.string(),
        bytes: z.number().int().min(0),
        version: z.number().int().min(1),
        tags: z.array(z.string()),
        updated_at: timestamp,
      }),
    ),
    next_cursor: nextCursor,
  }),
  annotations: readOnly,
} as const satisfies ToolSchema;

export const forget = {
  name: "forget",
  title: "Forget memories",
  description:
    "Delete one memory (key, optionally with expected_version), a file or directory (key " +
    "with tree: the key and every memory under key/), or every memory whose key starts with " +
    "prefix, in one transaction. A missing key (or tree) is NOT_FOUND; a prefix that " +
    "matches nothing deletes 0.",
  input: z.strictObject({
    key: key.optional(),
    expected_version: expectedVersion.optional(),
    prefix: z
      .string()
      .describe("Delete every memory whose key starts with this (non-empty) string.")
      .optional(),
    tree: z
      .boolean()
      .describe(
        "With key: also delete every memory whose key starts with key + '/' (a directory), " +
          "in one transaction. Not with expected_version or prefix.",
      )
      .optional(),
  }),
  output: z.object({ deleted: z.number().int().min(0) }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
} as const satisfies ToolSchema;

export const move = {
  name: "move",
  title: "Move memories",
  description:
    "Rename one memory (from, to, optionally expected_version), a file or directory (from, " +
    "to, tree: from and every memory under from/ move to to and to/...), or every memory " +
    "under a prefix (from_prefix, to_prefix: each key becomes to_prefix + the rest), in one " +
    "transaction: all or nothing. Fails with NOT_FOUND if there is nothing to move, EXISTS " +
    "if a destination exists, PATH_CONFLICT if a memory file would land under a file or onto " +
    "a directory. Text, tags, metadata and created_at are kept; each moved memory gets a new " +
    "version.",
  input: z.strictObject({
    from: key.describe("The key to rename.").optional(),
    to: key.describe("Its new key; must not exist.").optional(),
    expected_version: expectedVersion.optional(),
    tree: z
      .boolean()
      .describe(
        "Move from and every memory whose key starts with from + '/' (a directory) to to and " +
          "to + '/' + the rest. Not with expected_version or the prefix form.",
      )
      .optional(),
    from_prefix: z.string().describe("Rename every key that starts with this.").optional(),
    to_prefix: z
      .string()
      .describe("Replaces from_prefix in each key; must not start with from_prefix.")
      .optional(),
  }),
  output: z.object({ moved: z.number().int().min(0) }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
} as const satisfies ToolSchema;

export const stats = {
  name: "stats",
  title: "Store statistics",
  description:
    "Describe the store: namespace, number of memories and bytes, the limits clients must " +
    "respect, the recall build and model, the schema version, the server version and which " +
    "data directory or database it is.",
  input: z.strictObject({}),
  output: z.object({
    namespace: z.string(),
    exists: z
      .boolean()
      .optional()
      .describe(
        "Whether the namespace has a store: false for one nothing was ever written to, which " +
          "reads as empty until its first write creates it. Absent from servers before it was " +
          "added.",
      ),
    memories: z.number().int().min(0),
    bytes: z.number().int().min(0),
    max_text_bytes: z.number().int().min(1),
    limits: z.object({
      max_key_bytes: z.number().int(),
      max_tags: z.number().int(),
      max_tag_bytes: z.number().int(),
      max_metadata_bytes: z.number().int(),
    }),
    recall: z.object({
      build: z.enum(["lexical", "hybrid"]),
      model: z.string().nullable(),
      pending: z
        .number()
        .int()
        .min(0)
        .describe(
          "Memories waiting to be embedded (0 in the lexical build): the indexing backlog. " +
            "Recall does not wait for it; it ranks memories not yet embedded lexically.",
        ),
      embedded: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(
          "Memories that have vectors (0 in the lexical build). With `pending`, indexing " +
            "progress: embedded / (embedded + pending). Absent from servers before it was added.",
        ),
      // No minimum: with one, the JSON Schema would be an anyOf, which the Python client's
      // schema subset does not read.
      embedded_per_second: z
        .number()
        .nullable()
        .optional()
        .describe(
          "Memories this server embedded per second in this namespace over the last 30 s; " +
            "null when it embedded fewer than two batches in that time (idle, or lexical). " +
            "pending / embedded_per_second estimates the seconds left. Absent from servers " +
            "before it was added.",
        ),
      replacing: z
        .string()
        .nullable()
        .optional()
        .describe(
          "While the namespace re-embeds after its model changed (an upgrade, or --reembed): " +
            "the model whose vectors are being replaced, and `pending` counts what is left; " +
            "null otherwise. Recall answers meanwhile, ranking memories not re-embedded yet " +
            "lexically. Absent from servers before it was added.",
        ),
      failure: z
        .string()
        .nullable()
        .describe(
          "Why a server started with a model recalls lexically after all (its embedding " +
            "worker stopped); null otherwise.",
        ),
    }),
    schema_version: z.number().int(),
    server: z.object({ name: z.string(), version: z.string() }),
    store: z
      .object({
        engine: z.enum(["sqlite", "postgresql"]),
        name: z
          .string()
          .describe("The data directory's own name (SQLite), or the database's (PostgreSQL)."),
        location: z
          .string()
          .describe(
            "Where it is: the data directory's absolute path, or the database's URL without " +
              "user, password and parameters. Told only to the server's own token " +
              "(HMS_MCP_TOKEN, or none); a token of --tokens-file is told the name alone.",
          )
          .optional(),
      })
      .describe(
        "Which store the server serves, so that a person sees which one they look at. " +
          "Absent from servers before it was added.",
      )
      .optional(),
  }),
  annotations: readOnly,
} as const satisfies ToolSchema;

export const exportTool = {
  name: "export",
  title: "Export memories",
  description:
    "Return whole memories (text, tags, metadata, version, hash, times) in key order, a page " +
    "at a time, for backup or migration.",
  input: z.strictObject({
    prefix: prefix("memories").optional(),
    tag: tag("memories").optional(),
    cursor: cursor.optional(),
    limit: limit.optional(),
  }),
  output: z.object({ memories: z.array(record), next_cursor: nextCursor }),
  annotations: readOnly,
} as const satisfies ToolSchema;

export const namespaces = {
  name: "namespaces",
  title: "Namespaces this caller may use",
  description:
    "The namespaces (stores) the caller's token may use: those that exist and the server's " +
    "default, in name order. namespace_arg says whether " +
    "calls may name one (the server runs with --namespace-arg); otherwise every call uses " +
    "default. access says whether the token may write. A token granted a pattern (user-*) " +
    "may also create namespaces not listed yet.",
  input: z.strictObject({}),
  output: z.object({
    namespaces: z.array(z.object({ name: z.string() })),
    default: z.string().describe("The namespace of calls that name none."),
    namespace_arg: z.boolean().describe("Whether calls may name a namespace."),
    access: z.enum(["read-only", "read-write"]),
  }),
  annotations: readOnly,
} as const satisfies ToolSchema;

/** Every tool, in the order `tools/list` shows them. */
export const TOOL_SCHEMAS = [
  remember,
  recall,
  search,
  get,
  list,
  forget,
  move,
  stats,
  exportTool,
  history,
  diff,
  restore,
  unused,
  namespaces,
] as const;

/** A tool name. */
export type ToolName = (typeof TOOL_SCHEMAS)[number]["name"];

/** The tool names, in `tools/list` order. */
export const TOOL_NAMES: readonly ToolName[] = TOOL_SCHEMAS.map((tool) => tool.name);

/** The schemas of each tool, by name. */
export type ToolSchemas = { readonly [T in (typeof TOOL_SCHEMAS)[number] as T["name"]]: T };

/** Each tool's schemas by name. */
export const TOOLS: ToolSchemas = Object.fromEntries(
  TOOL_SCHEMAS.map((tool) => [tool.name, tool]),
) as unknown as ToolSchemas;

/** The arguments a tool takes (what a client sends). */
export type ToolArguments<T extends ToolName> = z.input<ToolSchemas[T]["input"]>;
/** The structured content a tool answers with. */
export type ToolResult<T extends ToolName> = z.output<ToolSchemas[T]["output"]>;

/** One recall hit as hms-mcp sends it. */
export type RecallHitWire = ToolResult<"recall">["hits"][number];
/** A whole memory as `get` and `export` send it. */
export type MemoryRecordWire = ToolResult<"get">;

/** The argument every tool takes on a server started with `--namespace-arg`. */
export const NAMESPACE_ARGUMENT = {
  name: "namespace",
  schema: z
    .string()
    .describe("The namespace (store) to use; default: the server's --namespace.")
    .optional(),
} as const;

/**
 * The `_meta` key by which a `resources/list` request names its namespace on a server started
 * with `--namespace-arg` (its params have no room for arguments); the recall prompt takes a
 * `namespace` argument, and `resources/read` the namespace of its URI.
 */
export const NAMESPACE_META_KEY = "hms-mcp/namespace";

/**
 * A tool's schemas as JSON Schema (draft 2020-12 without `$schema`), as `tools/list` shows
 * them: `input` with the `namespace` argument when `namespaceArg` is set.
 */
export function toolJsonSchemas(
  tool: ToolSchema,
  namespaceArg = false,
): { input: Record<string, unknown>; output: Record<string, unknown> } {
  const input = namespaceArg
    ? tool.input.extend({ [NAMESPACE_ARGUMENT.name]: NAMESPACE_ARGUMENT.schema })
    : tool.input;
  return { input: jsonSchema(input, "input"), output: jsonSchema(tool.output, "output") };
}

function jsonSchema(schema: z.ZodObject, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  return rest;
}
