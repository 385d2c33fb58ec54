/**
 * Errors of hms-mcp and of the connection to it. Refusals the memory engine acts on
 * (`NOT_FOUND`, `EXISTS`, `VERSION_CONFLICT`, `TOO_LARGE`, `PATH_CONFLICT`, and a tree move's
 * `INVALID_ARGUMENT` with a `reason`) are `MemoryBackendError`s of `@hms/memory-core` instead;
 * these are everything else.
 */

/** Why every call fails once the connection is lost (a failed call adds what it failed with). */
export const CONNECTION_LOST =
  "The connection to the hms-mcp memory server is closed (the server process exited, the " +
  "network connection dropped, or the memory tool was closed), so memory commands cannot " +
  "run; connect again to go on.";

/** Why every call fails after the backend was closed. */
export const CLOSED =
  "The memory tool is closed: its connection to hms-mcp was shut down. Connect again to go on.";

/**
 * Why an hms-mcp call failed, when it is not a refusal the engine handles: an hms-mcp error
 * code (`INVALID_ARGUMENT`, `NAMESPACE_DISABLED`, `UNAVAILABLE`, `INTERNAL`, ...) or one of this
 * package's: `CONNECTION_CLOSED` (the server or the connection is gone), `TIMEOUT` (no answer in
 * time), `PROTOCOL` (an answer that is not what hms-mcp sends).
 */
export class HmsMcpError extends Error {
  override readonly name: string = "HmsMcpError";
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * The connection to hms-mcp is gone (the server process exited, the network dropped, or the
 * backend was closed) or the server stopped answering. Every later call fails at once with
 * the same message; connect again to go on.
 */
export class HmsConnectionError extends HmsMcpError {
  override readonly name: string = "HmsConnectionError";
}

/**
 * There is no hms-mcp to start: no connection was given, `HMS_MCP_BIN` is not set (or names a
 * file that does not exist), and there is no `hms-mcp` on PATH. The message says how to get one.
 */
export class HmsMcpNotFoundError extends Error {
  override readonly name = "HmsMcpNotFoundError";
}

/** Whether `error` is an {@link HmsMcpError} (by shape, so another copy of this package counts). */
export function isHmsMcpError(error: unknown): error is HmsMcpError {
  if (!(error instanceof Error)) return false;
  const { name, code } = error as { name: string; code?: unknown };
  return (name === "HmsMcpError" || name === "HmsConnectionError") && typeof code === "string";
}
