import {
  DEFAULT_PAGE,
  DEFAULT_RECALL_K,
  MAX_PAGE,
  MAX_QUERY_BYTES,
  MAX_RECALL_K,
  type MemoryRecord,
  type MemoryStore,
  type RecallResult,
  type Selection,
} from "@hms/store";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ToolError } from "./errors.js";
import type { Semantic } from "./semantic/semantic.js";

/** What a tool call runs against. */
export interface ToolContext {
  /** The store of the call's namespace. */
  readonly store: MemoryStore;
  readonly namespace: string;
  readonly server: { readonly name: string; readonly version: string };
  /** The embedding model's side of recall, when the server runs with one. */
  readonly semantic: Semantic | undefined;
}

/** A tool's successful result: structured content and a short text for people and models. */
export interface ToolOutput {
  readonly structured: Record<string, unknown>;
  readonly text: string;
}

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  readonly annotations: ToolAnnotations;
  readonly run: (
    args: Record<string, unknown>,
    context: ToolContext,
  ) => ToolOutput | Promise<ToolOutput>;
}

/**
 * Recall as the server runs it: lexical, or hybrid when the server has an embedding model (the
 * query is embedded off the event loop, after waiting a bounded time for the memories written
 * just before). Shared by the recall tool and the recall prompt.
 */
export async function recallMemories(
  context: Pick<ToolContext, "store" | "semantic">,
  query: string,
  options: Selection & { k?: number | undefined },
): Promise<RecallResult> {
  const { store, semantic } = context;
  // A query the store would refuse is refused before any embedding work.
  const valid = typeof query === "string" && Buffer.byteLength(query, "utf8") <= MAX_QUERY_BYTES;
  const vector =
    semantic !== undefined && valid ? await semantic.queryVector(store, query) : undefined;
  return store.recall(query, { ...options, vector });
}

const key = z.string().describe("The memory's key: 1 to 512 UTF-8 bytes, no control characters.");
const prefix = (what: string) =>
  z.string().describe(`Only ${what} whose key starts with this string.`);
const tag = (what: string) => z.string().describe(`Only ${what} that carry this tag.`);
const expectedVersion = z
  .number()
  .int()
  .min(1)
  .describe("Compare-and-set: act only if the memory is at exactly this version.");
const cursor = z.string().describe("The next_cursor of the previous page.");
const limit = z
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE)
  .describe(`Page size, 1 to ${MAX_PAGE} (default ${DEFAULT_PAGE}).`);
const timestamp = z.string().describe("ISO 8601 UTC with milliseconds.");
const nextCursor = z
  .string()
  .nullable()
  .describe("Pass back as cursor for the next page; null on the last page.");

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

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function describeRecord(memory: MemoryRecord): string {
  const tags = memory.tags.length > 0 ? `, tags: ${memory.tags.join(", ")}` : "";
  return `${memory.key} (version ${memory.version}, ${plural(memory.bytes, "byte")}${tags})`;
}

function pageNote(next: string | null): string {
  return next === null ? "" : `\nMore on the next page: cursor ${next}`;
}

/** forget and move refuse `tree` with `expected_version` alike. */
function treeWithVersion(): ToolError {
  return new ToolError(
    "INVALID_ARGUMENT",
    "tree and expected_version are mutually exclusive: a tree of memories has no one version",
  );
}

const remember: ToolDefinition = {
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
  run(args, { store, semantic }) {
    const result = store.remember({
      key: args.key as string,
      text: args.text as string,
      tags: args.tags as string[] | undefined,
      metadata: args.metadata as Record<string, unknown> | undefined,
      expectedVersion: args.expected_version as number | undefined,
      ifAbsent: args.if_absent as boolean | undefined,
    });
    semantic?.written();
    const verb = result.created ? "Created" : "Replaced";
    return {
      structured: { ...result },
      text: `${verb} ${result.key} (version ${result.version}, ${plural(result.bytes, "byte")})`,
    };
  },
};

const get: ToolDefinition = {
  name: "get",
  title: "Get a memory",
  description: "Read one memory: its text, tags, metadata, version, hash, size and times.",
  input: z.strictObject({ key }),
  output: record,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  run(args, { store }) {
    const memory = store.get(args.key as string);
    if (memory === undefined) {
      throw new ToolError("NOT_FOUND", `${args.key} does not exist`, { key: args.key });
    }
    return { structured: { ...memory }, text: `${describeRecord(memory)}\n\n${memory.text}` };
  },
};

const list: ToolDefinition = {
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
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  run(args, { store }) {
    const page = store.list({
      prefix: args.prefix as string | undefined,
      tag: args.tag as string | undefined,
      cursor: args.cursor as string | undefined,
      limit: args.limit as number | undefined,
    });
    const lines = page.items.map((item) => `${item.key}\t${item.bytes}\tv${item.version}`);
    return {
      structured: { ...page },
      text: `${plural(page.items.length, "memory", "memories")}${lines.length ? `\n${lines.join("\n")}` : ""}${pageNote(page.next_cursor)}`,
    };
  },
};

const forget: ToolDefinition = {
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
  run(args, { store }) {
    const hasKey = args.key !== undefined;
    const hasPrefix = args.prefix !== undefined;
    if (hasKey === hasPrefix) {
      throw new ToolError("INVALID_ARGUMENT", "give exactly one of key or prefix");
    }
    if (hasPrefix && args.expected_version !== undefined) {
      throw new ToolError("INVALID_ARGUMENT", "expected_version applies to key, not to prefix");
    }
    const tree = args.tree === true;
    if (tree && hasPrefix) {
      throw new ToolError("INVALID_ARGUMENT", "tree applies to key, not to prefix");
    }
    if (tree && args.expected_version !== undefined) throw treeWithVersion();
    const result = !hasKey
      ? store.forgetPrefix(args.prefix as string)
      : tree
        ? store.forgetTree(args.key as string)
        : store.forget(args.key as string, { expectedVersion: args.expected_version as number });
    return {
      structured: { ...result },
      text: `Deleted ${plural(result.deleted, "memory", "memories")}`,
    };
  },
};

const move: ToolDefinition = {
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
  run(args, { store }) {
    const single = args.from !== undefined || args.to !== undefined;
    const many = args.from_prefix !== undefined || args.to_prefix !== undefined;
    if (single === many) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        "give either from and to, or from_prefix and to_prefix",
      );
    }
    const tree = args.tree === true;
    let result: { moved: number };
    if (single) {
      if (args.from === undefined || args.to === undefined) {
        throw new ToolError("INVALID_ARGUMENT", "a move needs both from and to");
      }
      if (tree && args.expected_version !== undefined) throw treeWithVersion();
      result = tree
        ? store.moveTree(args.from as string, args.to as string)
        : store.move(args.from as string, args.to as string, {
            expectedVersion: args.expected_version as number | undefined,
          });
    } else {
      if (tree) {
        throw new ToolError(
          "INVALID_ARGUMENT",
          "tree applies to from and to, not to from_prefix and to_prefix",
        );
      }
      if (args.from_prefix === undefined || args.to_prefix === undefined) {
        throw new ToolError(
          "INVALID_ARGUMENT",
          "a prefix move needs both from_prefix and to_prefix",
        );
      }
      if (args.expected_version !== undefined) {
        throw new ToolError(
          "INVALID_ARGUMENT",
          "expected_version applies to from, not to from_prefix",
        );
      }
      result = store.movePrefix(args.from_prefix as string, args.to_prefix as string);
    }
    return {
      structured: { ...result },
      text: `Moved ${plural(result.moved, "memory", "memories")}`,
    };
  },
};

const recall: ToolDefinition = {
  name: "recall",
  title: "Recall relevant memories",
  description:
    "Find the memories most relevant to a free-text query, best first. Each hit has the key, " +
    "a relevance score in [0, 1] (higher is better; it compares the hits of this query only), " +
    "an excerpt and the excerpt's 1-based inclusive line range. Any query text is accepted. " +
    "build says how ranking was done: lexical (BM25, scored relative to the best hit, which " +
    "scores 1) or hybrid (BM25 fused with an embedding model's similarity).",
  input: z.strictObject({
    query: z.string().describe("What to look for, in plain words."),
    k: z
      .number()
      .int()
      .min(1)
      .max(MAX_RECALL_K)
      .describe(`How many hits, 1 to ${MAX_RECALL_K} (default ${DEFAULT_RECALL_K}).`)
      .optional(),
    tag: tag("memories").optional(),
    prefix: prefix("memories").optional(),
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
            "Relevance in [0, 1], higher is better, comparable within one query only: BM25 " +
              "relative to the best hit (lexical) or the fused score (hybrid).",
          ),
        excerpt: z.string(),
        line_start: z.number().int().min(1),
        line_end: z.number().int().min(1),
      }),
    ),
    build: z.enum(["lexical", "hybrid"]),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(args, context) {
    const result = await recallMemories(context, args.query as string, {
      k: args.k as number | undefined,
      tag: args.tag as string | undefined,
      prefix: args.prefix as string | undefined,
    });
    const text =
      result.hits.length === 0
        ? "No relevant memories."
        : result.hits
            .map(
              (hit, i) =>
                `${i + 1}. ${hit.key} (lines ${hit.line_start}-${hit.line_end}, score ${hit.score.toFixed(3)})\n${hit.excerpt}`,
            )
            .join("\n\n");
    return { structured: { ...result }, text };
  },
};

const search: ToolDefinition = {
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
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  run(args, { store }) {
    const result = store.search(args.text as string, {
      prefix: args.prefix as string | undefined,
      tag: args.tag as string | undefined,
      limit: args.limit as number | undefined,
    });
    const lines = result.hits.map((hit) => `${hit.key}:${hit.line}: ${hit.snippet}`);
    return {
      structured: { ...result },
      text: lines.length === 0 ? "No matches." : lines.join("\n"),
    };
  },
};

const stats: ToolDefinition = {
  name: "stats",
  title: "Store statistics",
  description:
    "Describe the store: namespace, number of memories and bytes, the limits clients must " +
    "respect, the recall build and model, the schema version and the server version.",
  input: z.strictObject({}),
  output: z.object({
    namespace: z.string(),
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
        .describe("Memories waiting to be embedded (0 in the lexical build)."),
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
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  run(_args, { store, namespace, server, semantic }) {
    const counts = store.stats();
    // The store knows its configured build; only the server knows the worker has stopped.
    const failure = semantic?.failure ?? null;
    const recall = {
      ...counts.recall,
      ...(failure === null ? {} : { build: "lexical" as const }),
      failure,
    };
    const { limits } = store;
    const structured = {
      namespace,
      memories: counts.memories,
      bytes: counts.bytes,
      max_text_bytes: limits.maxTextBytes,
      limits: {
        max_key_bytes: limits.maxKeyBytes,
        max_tags: limits.maxTags,
        max_tag_bytes: limits.maxTagBytes,
        max_metadata_bytes: limits.maxMetadataBytes,
      },
      recall,
      schema_version: counts.schema_version,
      server,
    };
    return {
      structured,
      text:
        `Namespace ${namespace}: ${plural(counts.memories, "memory", "memories")}, ` +
        `${plural(counts.bytes, "byte")}; max_text_bytes ${limits.maxTextBytes}; ` +
        `recall ${recall.build}${recall.model ? ` (${recall.model}, ${recall.pending} pending)` : ""}` +
        `${failure === null ? "" : ` because ${failure}`}; ` +
        `${server.name} ${server.version}, schema ${counts.schema_version}`,
    };
  },
};

const exportTool: ToolDefinition = {
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
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  run(args, { store }) {
    const page = store.export({
      prefix: args.prefix as string | undefined,
      tag: args.tag as string | undefined,
      cursor: args.cursor as string | undefined,
      limit: args.limit as number | undefined,
    });
    return {
      structured: { ...page },
      text: `Exported ${plural(page.memories.length, "memory", "memories")}${pageNote(page.next_cursor)}`,
    };
  },
};

/** Every tool, in the order tools/list shows them. */
export const TOOLS: readonly ToolDefinition[] = [
  remember,
  recall,
  search,
  get,
  list,
  forget,
  move,
  stats,
  exportTool,
];
