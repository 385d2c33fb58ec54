/**
 * What each tool does. Names, schemas and annotations are the contract's (`@hms/protocol`);
 * this module only runs a call whose arguments the tool's input schema has accepted.
 */
import {
  type Awaitable,
  EXPORT_PAGE_BYTES,
  type ExportPage,
  type MemoryRecord,
  type PageOptions,
  type StoreApi,
  type StoreStats,
} from "@hms/store";
import { ToolError, treeWithVersion } from "../errors.js";
import { HISTORY_RUNNERS } from "../history/tools.js";
import { after } from "../runtime/engines.js";
import { recallMemories } from "./recall.js";
import type { StoreToolName, ToolContext, ToolOutput, ToolRunner } from "./types.js";

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

/** How many of `memories`, from the first, fit {@link EXPORT_PAGE_BYTES} as JSON (at least one). */
function memoriesThatFit(memories: readonly MemoryRecord[]): number {
  let bytes = 0;
  for (let i = 0; i < memories.length; i++) {
    // What the transport will send for it: JSON escapes control characters up to 6 bytes each.
    bytes += Buffer.byteLength(JSON.stringify(memories[i])) + 1;
    if (bytes > EXPORT_PAGE_BYTES) return Math.max(i, 1);
  }
  return memories.length;
}

/**
 * An export page whose memories stay under {@link EXPORT_PAGE_BYTES} as encoded (a lone memory
 * over it is still under MAX_ANSWER_BYTES, see MAX_TEXT_BYTES_CAP): the store bounds a page's
 * raw bytes, which escaping can grow sixfold, so an over-budget page is asked for again with
 * fewer memories (the store then gives its own next_cursor).
 */
function exportWithinBudget(store: StoreApi, options: PageOptions): Awaitable<ExportPage> {
  return after(store.export(options), (page) => {
    const fit = memoriesThatFit(page.memories);
    return fit === page.memories.length
      ? page
      : exportWithinBudget(store, { ...options, limit: fit });
  });
}

/**
 * The runner of every tool of the contract, by name. Typed by the protocol's tool names, so a
 * tool the protocol gains without a runner here is a compile error.
 */
export const RUNNERS: { readonly [T in StoreToolName]: ToolRunner<T> } = {
  remember(args, { store, semantic, caller }) {
    const written = store.remember({
      key: args.key,
      text: args.text,
      tags: args.tags,
      metadata: args.metadata,
      expectedVersion: args.expected_version,
      ifAbsent: args.if_absent,
    });
    return after(written, (result) => {
      semantic?.written(store, result.key, caller);
      const verb = result.created ? "Created" : "Replaced";
      return {
        structured: { ...result },
        text: `${verb} ${result.key} (version ${result.version}, ${plural(result.bytes, "byte")})`,
      };
    });
  },

  async recall(args, context) {
    // null is "not given", as in the memory tool's memory_recall.
    const result = await recallMemories(context, args.query, {
      k: args.k ?? undefined,
      tag: args.tag,
      prefix: args.prefix,
      modifiedAfter: args.modified_after ?? undefined,
      modifiedBefore: args.modified_before ?? undefined,
    });
    const text =
      result.hits.length === 0
        ? "No relevant memories."
        : result.hits
            .map(
              (hit, i) =>
                `${i + 1}. ${hit.key} (lines ${hit.line_start}-${hit.line_end}, score ${hit.score.toFixed(3)}, modified ${hit.updated_at})\n${hit.excerpt}`,
            )
            .join("\n\n");
    return { structured: { ...result }, text };
  },

  search(args, { store }) {
    const found = store.search(args.text, {
      prefix: args.prefix,
      tag: args.tag,
      limit: args.limit,
    });
    return after(found, (result) => {
      const lines = result.hits.map((hit) => `${hit.key}:${hit.line}: ${hit.snippet}`);
      return {
        structured: { ...result },
        text: lines.length === 0 ? "No matches." : lines.join("\n"),
      };
    });
  },

  get(args, { store }) {
    return after(store.get(args.key), (memory) => {
      if (memory === undefined) {
        throw new ToolError("NOT_FOUND", `${args.key} does not exist`, { key: args.key });
      }
      // For `unused`: a read to the day, written in batches (see read-log.ts).
      store.access.noteRead(memory.key);
      // The text travels once, in the structured content: twice, a large memory's answer would
      // pass what MCP clients read (see MAX_ANSWER_BYTES).
      return {
        structured: { ...memory },
        text: `${describeRecord(memory)}; its text is the structured content's text field`,
      };
    });
  },

  list(args, { store }) {
    const listed = store.list({
      prefix: args.prefix,
      tag: args.tag,
      cursor: args.cursor,
      limit: args.limit,
    });
    return after(listed, (page) => {
      const lines = page.items.map((item) => `${item.key}\t${item.bytes}\tv${item.version}`);
      return {
        structured: { ...page },
        text: `${plural(page.items.length, "memory", "memories")}${lines.length ? `\n${lines.join("\n")}` : ""}${pageNote(page.next_cursor)}`,
      };
    });
  },

  forget(args, { store }) {
    const { key, prefix, expected_version: expectedVersion } = args;
    if ((key === undefined) === (prefix === undefined)) {
      throw new ToolError("INVALID_ARGUMENT", "give exactly one of key or prefix");
    }
    if (prefix !== undefined && expectedVersion !== undefined) {
      throw new ToolError("INVALID_ARGUMENT", "expected_version applies to key, not to prefix");
    }
    const tree = args.tree === true;
    if (tree && prefix !== undefined) {
      throw new ToolError("INVALID_ARGUMENT", "tree applies to key, not to prefix");
    }
    if (tree && expectedVersion !== undefined) throw treeWithVersion();
    const deleted =
      key === undefined
        ? store.forgetPrefix(prefix as string)
        : tree
          ? store.forgetTree(key)
          : store.forget(key, { expectedVersion });
    return after(deleted, (result) => ({
      structured: { ...result },
      text: `Deleted ${plural(result.deleted, "memory", "memories")}`,
    }));
  },

  move(args, { store }) {
    const single = args.from !== undefined || args.to !== undefined;
    const many = args.from_prefix !== undefined || args.to_prefix !== undefined;
    if (single === many) {
      throw new ToolError(
        "INVALID_ARGUMENT",
        "give either from and to, or from_prefix and to_prefix",
      );
    }
    const tree = args.tree === true;
    let moved: Awaitable<{ moved: number }>;
    if (single) {
      if (args.from === undefined || args.to === undefined) {
        throw new ToolError("INVALID_ARGUMENT", "a move needs both from and to");
      }
      if (tree && args.expected_version !== undefined) throw treeWithVersion();
      moved = tree
        ? store.moveTree(args.from, args.to)
        : store.move(args.from, args.to, { expectedVersion: args.expected_version });
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
      moved = store.movePrefix(args.from_prefix, args.to_prefix);
    }
    return after(moved, (result) => ({
      structured: { ...result },
      text: `Moved ${plural(result.moved, "memory", "memories")}`,
    }));
  },

  stats(_args, context) {
    return after(context.store.stats(), (counts) =>
      after(context.semantic?.progress(context.store) ?? NO_PROGRESS, (progress) =>
        after(context.exists(), (exists) => statsOutput(counts, progress, exists, context)),
      ),
    );
  },

  export(args, { store }) {
    const exported = exportWithinBudget(store, {
      prefix: args.prefix,
      tag: args.tag,
      cursor: args.cursor,
      limit: args.limit,
    });
    return after(exported, (page) => ({
      structured: { ...page },
      text: `Exported ${plural(page.memories.length, "memory", "memories")}${pageNote(page.next_cursor)}`,
    }));
  },

  ...HISTORY_RUNNERS,
};

/** The stats tool's answer from the store's counts and what only the server knows. */
const NO_PROGRESS = Object.freeze({ embedded: 0, perSecond: null });

function statsOutput(
  counts: StoreStats,
  progress: { embedded: number; perSecond: number | null },
  exists: boolean,
  context: ToolContext,
): ToolOutput {
  const { limits, namespace, server, semantic, place } = context;
  // The store knows its configured build; only the server knows the worker has stopped.
  const failure = semantic?.failure ?? null;
  const recall = {
    ...counts.recall,
    ...(failure === null ? {} : { build: "lexical" as const }),
    replacing: counts.recall.replacing ?? null,
    failure,
    embedded: progress.embedded,
    embedded_per_second: progress.perSecond,
  };
  const structured = {
    namespace,
    exists,
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
    store: place,
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
}
