import { StoreError } from "./errors.js";

/**
 * The smallest string greater than every string that starts with `prefix`, or `undefined`
 * when there is none. With it, "starts with prefix" is the index-friendly range
 * `key >= prefix AND key < successor` (no LIKE or GLOB, so no wildcard surprises).
 *
 * SQLite's BINARY collation compares UTF-8 bytes, which orders strings by code point, so the
 * successor is the prefix with its last code point incremented (dropping trailing U+10FFFF,
 * and stepping over the surrogate block, which cannot occur in a well-formed string).
 */
export function prefixSuccessor(prefix: string): string | undefined {
  const points = Array.from(prefix, (char) => char.codePointAt(0) as number);
  while (points.length > 0) {
    const last = points.pop() as number;
    if (last < 0x10ffff) {
      points.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  return undefined;
}

/** Compares two strings by code point, the order of keys in the store. */
export function compareKeys(a: string, b: string): number {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return Buffer.compare(left, right);
}

const CURSOR_PREFIX = "k1.";

/** An opaque page cursor: the last key of the page, which the next page starts after. */
export function encodeCursor(lastKey: string): string {
  return CURSOR_PREFIX + Buffer.from(lastKey, "utf8").toString("base64url");
}

/** Reads a cursor made by {@link encodeCursor}; INVALID_ARGUMENT for anything else. */
export function decodeCursor(cursor: string): string {
  const body = cursor.startsWith(CURSOR_PREFIX) ? cursor.slice(CURSOR_PREFIX.length) : undefined;
  if (body !== undefined && /^[A-Za-z0-9_-]+$/.test(body)) {
    const key = Buffer.from(body, "base64url").toString("utf8");
    if (encodeCursor(key) === cursor) return key;
  }
  throw new StoreError(
    "INVALID_ARGUMENT",
    "cursor is not one this server returned; pass back next_cursor unchanged",
  );
}
