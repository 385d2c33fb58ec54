/**
 * The base of every error class of these packages. Each class carries a brand, a property keyed
 * by `Symbol.for(...)`, and a static `isInstance` that checks it. Unlike `instanceof`, the check
 * works across copies of a package loaded side by side (an ESM and a CJS build, or two bundled
 * versions), because `Symbol.for` gives every copy the same symbol.
 */
const BASE_BRAND = Symbol.for("hms.error");

export class HmsError extends Error {
  readonly [BASE_BRAND] = true;

  /** Whether `error` is an error of these packages, from any copy of them. */
  static isInstance(error: unknown): error is HmsError {
    return hasBrand(error, BASE_BRAND);
  }
}

/** The brand symbol of the error class named `name` (e.g. `MemoryToolError`). */
export function errorBrand(name: string): symbol {
  return Symbol.for(`hms.error.${name}`);
}

/** Whether `error` is an object that carries `brand`. */
export function hasBrand(error: unknown, brand: symbol): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[brand] === true
  );
}
