import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import { HmsMcpError } from "@hms/memory-backend-hms";
import { MemoryToolError } from "@hms/memory-core";
import { errorBrand, hasBrand } from "@hms/memory-paths";

const BRAND = errorBrand("HolographicMemoryError");
/** HmsError's brand (this class cannot extend HmsError: it extends the SDK's ToolError). */
const BASE_BRAND = Symbol.for("hms.error");

/**
 * Why a memory command (or a recall) failed: the Anthropic SDK's `ToolError`, so the tool
 * runner sends Claude exactly `message` with `is_error: true` (a plain `Error` would reach
 * Claude as `Error: <message>`; the Python package sends the bare message too).
 *
 * `code` is the memory engine's code (`not_found`, `already_exists`, `invalid_path`,
 * `too_large`, `conflict`, ... see `MemoryToolErrorCode` of `@hms/memory-core`) or, when
 * hms-mcp or the connection failed, an hms-mcp code (`CONNECTION_CLOSED`, `TIMEOUT`,
 * `UNAVAILABLE`, `INTERNAL`, ...). The original error is `cause`.
 *
 * It extends the SDK's `ToolError` (so the runner sends its bare message), not `HmsError`,
 * but carries the same brands: `HmsError.isInstance` and `HolographicMemoryError.isInstance`
 * recognise it from any copy of the packages.
 */
export class HolographicMemoryError extends ToolError {
  readonly [BASE_BRAND] = true;
  readonly [BRAND] = true;
  readonly code: string;

  constructor(code: string, message: string, cause?: unknown) {
    super(message);
    this.name = "HolographicMemoryError";
    this.code = code;
    if (cause !== undefined) this.cause = cause;
  }

  /** Whether `error` is a HolographicMemoryError, from any copy of this package. */
  static isInstance(error: unknown): error is HolographicMemoryError {
    return hasBrand(error, BRAND);
  }
}

/**
 * The error to throw from a tool handler for `error`: the engine's refusals and hms-mcp's
 * failures become a {@link HolographicMemoryError} with the same message; anything else (a
 * bug) is left as it is.
 */
export function asToolError(error: unknown): unknown {
  if (MemoryToolError.isInstance(error) || HmsMcpError.isInstance(error)) {
    return new HolographicMemoryError(error.code, error.message, error);
  }
  return error;
}
