/**
 * The ways a store operation can be refused. Each code is part of the hms-mcp contract
 * (docs/design/hms-mcp-protocol.md), so a caller can act on it without parsing the message.
 */
export type StoreErrorCode =
  | "INVALID_ARGUMENT"
  | "NOT_FOUND"
  | "EXISTS"
  | "PATH_CONFLICT"
  | "VERSION_CONFLICT"
  | "TOO_LARGE";

/** A refusal with a stable code, a message a person can act on, and optional details. */
export class StoreError extends Error {
  override readonly name = "StoreError";

  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** True when `error` is a {@link StoreError}, optionally with the given code. */
export function isStoreError(error: unknown, code?: StoreErrorCode): error is StoreError {
  return error instanceof StoreError && (code === undefined || error.code === code);
}
