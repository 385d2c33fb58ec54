import { MAX_QUERY_BYTES } from "@hms/protocol";
import { checkTimeRange, type RecallOptions, type RecallResult, type StoreApi } from "@hms/store";
import type { Semantic } from "../semantic/semantic.js";

/**
 * Recall as the server runs it: lexical, or hybrid when the server has an embedding model (the
 * query is embedded off the event loop, after waiting a bounded time for the memories the same
 * connection wrote just before). Shared by the recall tool and the recall prompt.
 */
export async function recallMemories(
  context: {
    readonly store: StoreApi;
    readonly semantic: Semantic | undefined;
    /** The connection recalling: only its own recent writes are waited for. */
    readonly caller: object;
  },
  query: string,
  options: Omit<RecallOptions, "vector">,
): Promise<RecallResult> {
  const { store, semantic, caller } = context;
  // A query or a time range the store would refuse is refused before any embedding work.
  checkTimeRange(options);
  const valid = typeof query === "string" && Buffer.byteLength(query, "utf8") <= MAX_QUERY_BYTES;
  const vector =
    semantic !== undefined && valid ? await semantic.queryVector(store, query, caller) : undefined;
  return await store.recall(query, { ...options, vector });
}
