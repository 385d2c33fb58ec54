import { errorBrand, HmsError, hasBrand } from "@hms/memory-paths";
import type { ErrorCode } from "@hms/protocol";

/**
 * The ways a store operation can be refused: the error codes of the hms-mcp contract
 * (`@hms/protocol`) that a store decides, so a caller can act on one without parsing the
 * message.
 */
export type StoreErrorCode = Extract<
  ErrorCode,
  | "INVALID_ARGUMENT"
  | "NOT_FOUND"
  | "EXISTS"
  | "PATH_CONFLICT"
  | "VERSION_CONFLICT"
  | "TOO_LARGE"
  | "LIMIT_REACHED"
  | "STORAGE_FULL"
  // PostgreSQL only: the database cannot be reached (@hms/store-postgres).
  | "UNAVAILABLE"
>;

const BRAND = errorBrand("StoreError");

/** A refusal with a stable code, a message a person can act on, and optional details. */
export class StoreError extends HmsError {
  override readonly name = "StoreError";
  readonly [BRAND] = true;

  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** Whether `error` is a StoreError (with `code`, if given), from any copy of this package. */
  static override isInstance(error: unknown, code?: StoreErrorCode): error is StoreError {
    return hasBrand(error, BRAND) && (code === undefined || (error as StoreError).code === code);
  }
}

/** True when `error` is a {@link StoreError}, optionally with the given code. */
export function isStoreError(error: unknown, code?: StoreErrorCode): error is StoreError {
  return StoreError.isInstance(error, code);
}
