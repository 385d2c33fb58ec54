/** Helpers shared by the store's tests. Not part of the package's build. */
import { StoreError } from "./errors.js";

/** Runs `action` and returns the StoreError it throws (failing if it does not throw one). */
export function refusal(action: () => unknown): StoreError {
  try {
    action();
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error("expected a StoreError");
}
