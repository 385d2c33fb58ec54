/**
 * How hms-mcp reports a refused call: `isError: true`, one text block `CODE: message`, and the
 * same under `_meta["hms-mcp/error"]` as `{ code, message, ...details }`.
 */

/** Every error code a tool call can fail with. */
export const ERROR_CODES = [
  /** An argument is missing, malformed or out of range; `reason` may say which check. */
  "INVALID_ARGUMENT",
  /** The key (or for a tree operation, the key and everything under it) does not exist. */
  "NOT_FOUND",
  /** A create-if-absent or a move found its destination taken. */
  "EXISTS",
  /** A memory file would land onto a directory or under a file (`conflict`, `path`). */
  "PATH_CONFLICT",
  /** A compare-and-set found another version (`current`, `expected`). */
  "VERSION_CONFLICT",
  /** The text is over the server's `max_text_bytes` (`limit`); nothing was stored. */
  "TOO_LARGE",
  /** A call named a namespace on a server started without `--namespace-arg`. */
  "NAMESPACE_DISABLED",
  /** The caller's token may not do this: a write with a read-only token. */
  "FORBIDDEN",
  /** A server-wide bound is reached (`limit`), such as `--max-namespaces`; nothing was done. */
  "LIMIT_REACHED",
  /**
   * The disk holding the store is full: nothing was written. Deleting still works (the store
   * keeps a little space in reserve for it), so delete memories or free space on the disk,
   * then retry.
   */
  "STORAGE_FULL",
  /** The server cannot serve the call now (shutting down, store locked); retry. */
  "UNAVAILABLE",
  /** The server failed; its log says why. */
  "INTERNAL",
] as const;

/** An error code of the hms-mcp contract. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The `_meta` key that carries `{ code, message, ...details }` on a failed tool call. */
export const ERROR_META_KEY = "hms-mcp/error";

/**
 * Details some refusals carry beside `code` and `message`, which a client acts on:
 *
 * - `TOO_LARGE`: `limit`, the server's limit in UTF-8 bytes.
 * - `LIMIT_REACHED`: `limit`, the bound that was reached (e.g. the most namespaces).
 * - `PATH_CONFLICT`: `conflict` is `"directory"` (files lie under the key) or `"file"` (`path`,
 *   the shortest ancestor that is a file).
 * - `INVALID_ARGUMENT` of a tree move: `reason` is `"into_itself"`, or `"invalid_key"` with
 *   `key`, the first new key (in code point order) that is not a valid memory path.
 */
export interface ErrorDetails {
  readonly limit?: number;
  readonly conflict?: "directory" | "file";
  readonly path?: string;
  readonly reason?: string;
  readonly key?: string;
  readonly [detail: string]: unknown;
}

/** Whether `value` is one of {@link ERROR_CODES}. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && (ERROR_CODES as readonly string[]).includes(value);
}
