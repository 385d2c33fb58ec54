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

import { errorBrand, HmsError, hasBrand } from "@hms/memory-paths";

const MCP_ERROR = errorBrand("HmsMcpError");
const CONNECTION_ERROR = errorBrand("HmsConnectionError");
const NOT_FOUND_ERROR = errorBrand("HmsMcpNotFoundError");

/**
 * Why an hms-mcp call failed, when it is not a refusal the engine handles: an hms-mcp error
 * code (`INVALID_ARGUMENT`, `NAMESPACE_DISABLED`, `STORAGE_FULL` (the disk holding the store is
 * full; deleting still works), `UNAVAILABLE`, `INTERNAL`, ...) or one of this
 * package's: `CONNECTION_CLOSED` (the server or the connection is gone), `TIMEOUT` (no answer in
 * time), `PROTOCOL` (an answer that is not what hms-mcp sends).
 */
export class HmsMcpError extends HmsError {
  override readonly name: string = "HmsMcpError";
  readonly [MCP_ERROR] = true;
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  /** Whether `error` is an HmsMcpError (a connection error included), from any copy. */
  static override isInstance(error: unknown): error is HmsMcpError {
    return hasBrand(error, MCP_ERROR);
  }
}

/**
 * The connection to hms-mcp is gone (the server process exited, the network dropped, or the
 * backend was closed) or the server stopped answering. Every later call fails at once with
 * the same message; connect again to go on.
 */
export class HmsConnectionError extends HmsMcpError {
  override readonly name: string = "HmsConnectionError";
  readonly [CONNECTION_ERROR] = true;

  /** Whether `error` is an HmsConnectionError, from any copy of this package. */
  static override isInstance(error: unknown): error is HmsConnectionError {
    return hasBrand(error, CONNECTION_ERROR);
  }
}

/**
 * There is no hms-mcp to start: no connection was given (or the bare command `hms-mcp`),
 * `HMS_MCP_BIN` is not set (or names a file that does not exist), and there is no `hms-mcp` in
 * node_modules nor on PATH. The message says where it looked and how to get one.
 */
export class HmsMcpNotFoundError extends HmsError {
  override readonly name = "HmsMcpNotFoundError";
  readonly [NOT_FOUND_ERROR] = true;

  /** Whether `error` is an HmsMcpNotFoundError, from any copy of this package. */
  static override isInstance(error: unknown): error is HmsMcpNotFoundError {
    return hasBrand(error, NOT_FOUND_ERROR);
  }
}
