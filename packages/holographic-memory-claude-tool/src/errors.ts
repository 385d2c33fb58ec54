import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";

/**
 * Why a memory command (or a recall) failed: the Anthropic SDK's `ToolError`, so the tool
 * runner sends Claude exactly `message` with `is_error: true` (a plain `Error` would reach
 * Claude as `Error: <message>`; the Python package sends the bare message too).
 *
 * `code` is the memory engine's code (`not_found`, `already_exists`, `invalid_path`,
 * `too_large`, `conflict`, ... see `MemoryToolErrorCode` of `@hms/memory-core`) or, when
 * hms-mcp or the connection failed, an hms-mcp code (`CONNECTION_CLOSED`, `TIMEOUT`,
 * `UNAVAILABLE`, `INTERNAL`, ...). The original error is `cause`.
 */
export class HolographicMemoryError extends ToolError {
  readonly code: string;

  constructor(code: string, message: string, cause?: unknown) {
    super(message);
    this.name = "HolographicMemoryError";
    this.code = code;
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * The error to throw from a tool handler for `error`: the engine's refusals and hms-mcp's
 * failures become a {@link HolographicMemoryError} with the same message; anything else (a
 * bug) is left as it is.
 */
export function asToolError(error: unknown): unknown {
  if (error instanceof HolographicMemoryError || !(error instanceof Error)) return error;
  const { name, code } = error as { name: string; code?: unknown };
  const known =
    name === "MemoryToolError" || name === "HmsMcpError" || name === "HmsConnectionError";
  if (!known || typeof code !== "string") return error;
  return new HolographicMemoryError(code, error.message, error);
}
