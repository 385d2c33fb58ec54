import { ERROR_META_KEY, type ErrorCode } from "@hms/protocol";
import { isBusy, isStoreError } from "@hms/store";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** A refusal a tool reports to its caller as a tool error. */
export class ToolError extends Error {
  override readonly name = "ToolError";

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/**
 * The tool result of a failure: `isError`, one text block `CODE: message`, the same in
 * `_meta["hms-mcp/error"]`, and no structuredContent (MCP clients validate structuredContent
 * against the output schema even on errors).
 */
export function errorResult(error: ToolError): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${error.code}: ${error.message}` }],
    _meta: {
      [ERROR_META_KEY]: { code: error.code, message: error.message, ...error.details },
    },
  };
}

/** Maps anything thrown by a tool to a ToolError; unexpected errors become INTERNAL. */
export function toToolError(error: unknown): { error: ToolError; unexpected: boolean } {
  if (error instanceof ToolError) return { error, unexpected: false };
  if (isStoreError(error)) {
    return { error: new ToolError(error.code, error.message, error.details), unexpected: false };
  }
  if (isBusy(error)) {
    return {
      error: new ToolError(
        "UNAVAILABLE",
        "the store stayed locked by another process past the busy timeout; retry the call",
      ),
      unexpected: false,
    };
  }
  return {
    error: new ToolError("INTERNAL", "the server failed to carry out the call; see its log"),
    unexpected: true,
  };
}

/** forget, move and restore refuse `tree` with `expected_version` alike. */
export function treeWithVersion(): ToolError {
  return new ToolError(
    "INVALID_ARGUMENT",
    "tree and expected_version are mutually exclusive: a tree of memories has no one version",
  );
}
