/** The limits both sides of the contract rely on. The store enforces them; clients check early. */

/** Hits a `recall` returns when `k` is not given. */
export const DEFAULT_RECALL_K = 5;
/** Most hits one `recall` may ask for. */
export const MAX_RECALL_K = 50;
/** Longest `recall` query, in UTF-8 bytes. */
export const MAX_QUERY_BYTES = 16_384;
/** Items a `list` or `export` page holds when `limit` is not given. */
export const DEFAULT_PAGE = 100;
/** Most items one `list` or `export` page may ask for. */
export const MAX_PAGE = 1000;
/** A server's `max_text_bytes` when it is not configured (32 KiB). */
export const DEFAULT_MAX_TEXT_BYTES = 32_768;
