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
/**
 * Most bytes one answer (its whole JSON-RPC message) may take. The smallest reader among the
 * official MCP clients is the TypeScript SDK's stdio transport: it closes the connection for
 * good once its read buffer passes 10 MiB (`STDIO_DEFAULT_MAX_BUFFER_SIZE`). The Python SDK
 * reads stdio lines and JSON HTTP answers (hms-mcp sends no SSE) without a limit. 512 KiB under
 * 10 MiB leaves room for the first chunk of the next message in that buffer.
 */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024 - 512 * 1024;
/** Most bytes JSON spends on one byte of text: a control character is written `\u00XX`. */
export const MAX_JSON_BYTES_PER_BYTE = 6;
/**
 * The highest `max_text_bytes` a server may be configured with (1.5 MiB): a memory that size,
 * all control characters, with the longest key and the largest metadata, still fits in
 * {@link MAX_ANSWER_BYTES} as a `get` answer or a one-memory `export` page (9 MiB of escaped
 * text plus a few KiB), and so does the `remember` request that stores it.
 */
export const MAX_TEXT_BYTES_CAP = 1536 * 1024;
