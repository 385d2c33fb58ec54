import { DEFAULT_MAX_TEXT_BYTES } from "@hms/protocol";
import { StoreError } from "./errors.js";

/** Size limits of a store. All sizes are UTF-8 bytes. */
export interface Limits {
  /** Largest text of a memory (`max_text_bytes`). */
  readonly maxTextBytes: number;
  /** Largest key. */
  readonly maxKeyBytes: number;
  /** Most tags on one memory. */
  readonly maxTags: number;
  /** Largest tag. */
  readonly maxTagBytes: number;
  /** Largest metadata object, serialized as JSON. */
  readonly maxMetadataBytes: number;
  /** Deepest nesting of metadata: the object itself is level 1, a value inside it level 2. */
  readonly maxMetadataDepth: number;
}

/** The contract's defaults. Only `maxTextBytes` is configurable (`--max-text-bytes`). */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxTextBytes: DEFAULT_MAX_TEXT_BYTES,
  maxKeyBytes: 512,
  maxTags: 32,
  maxTagBytes: 64,
  maxMetadataBytes: 8192,
  // JSON parsers of clients stop at a nesting depth (pydantic-core, which the MCP Python SDK
  // reads every message with, at about 200 for the whole message): deeper metadata would make
  // the record unreadable to them.
  maxMetadataDepth: 32,
});

/** Largest `max_text_bytes` a store accepts (SQLite and MCP messages stay comfortable). */
export const MAX_TEXT_BYTES_CEILING = 16 * 1024 * 1024;

const CONTROL = /\p{Cc}/u;
// With the `u` flag a surrogate pair is one code point, so this matches only lone surrogates.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const TAG = /^[A-Za-z0-9._:-]+$/;

/** UTF-8 byte length of a string. */
export function utf8Bytes(value: string): number {
  return Buffer.byteLength(value, "utf8");
}

/**
 * A value quoted for a message, cut to `max` characters. JSON.stringify escapes C0 controls
 * but not DEL and the C1 controls, so those are escaped here: a message never carries a raw
 * control character, and the one a refusal is about is visible.
 */
function describe(value: string, max = 80): string {
  const shown = value.length > max ? `${value.slice(0, max)}…` : value;
  return JSON.stringify(shown).replace(
    /[\u007f-\u009f]/g,
    (char) => `\\u${(char.codePointAt(0) as number).toString(16).padStart(4, "0")}`,
  );
}

/** Throws INVALID_ARGUMENT unless `value` is a well-formed string (no lone surrogates). */
function requireString(value: unknown, what: string): asserts value is string {
  if (typeof value !== "string") {
    throw new StoreError("INVALID_ARGUMENT", `${what} must be a string`);
  }
  if (LONE_SURROGATE.test(value)) {
    throw new StoreError("INVALID_ARGUMENT", `${what} contains a lone UTF-16 surrogate`);
  }
}

/** Checks a key: 1 to `maxKeyBytes` UTF-8 bytes, no control characters. */
export function checkKey(key: unknown, limits: Limits, what = "key"): string {
  requireString(key, what);
  if (key.length === 0) throw new StoreError("INVALID_ARGUMENT", `${what} must not be empty`);
  const bytes = utf8Bytes(key);
  if (bytes > limits.maxKeyBytes) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `${what} ${describe(key)} is ${bytes} bytes, over the limit of ${limits.maxKeyBytes} bytes`,
    );
  }
  if (CONTROL.test(key)) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `${what} ${describe(key)} contains a control character`,
    );
  }
  return key;
}

/**
 * Checks a key prefix: the rules of a key, except that an empty prefix is allowed when
 * `allowEmpty` (it then selects every key).
 */
export function checkPrefix(prefix: unknown, limits: Limits, what = "prefix", allowEmpty = true) {
  requireString(prefix, what);
  if (prefix.length === 0) {
    if (allowEmpty) return prefix;
    throw new StoreError("INVALID_ARGUMENT", `${what} must not be empty`);
  }
  return checkKey(prefix, limits, what);
}

/** Checks a text against `maxTextBytes`; TOO_LARGE names the size, the limit and what to do. */
export function checkText(text: unknown, limits: Limits): { text: string; bytes: number } {
  requireString(text, "text");
  const bytes = utf8Bytes(text);
  if (bytes > limits.maxTextBytes) {
    throw new StoreError(
      "TOO_LARGE",
      `text is ${bytes} bytes, over the limit of ${limits.maxTextBytes} bytes (max_text_bytes); split the content into smaller memories`,
      { bytes, limit: limits.maxTextBytes },
    );
  }
  return { text, bytes };
}

/** Checks one tag: 1 to `maxTagBytes` bytes of `[A-Za-z0-9._:-]`. */
export function checkTag(tag: unknown, limits: Limits): string {
  requireString(tag, "tag");
  if (tag.length === 0) throw new StoreError("INVALID_ARGUMENT", "a tag must not be empty");
  if (!TAG.test(tag)) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `tag ${describe(tag)} may only contain letters, digits, '.', '_', ':' and '-'`,
    );
  }
  if (tag.length > limits.maxTagBytes) {
    throw new StoreError(
      "TOO_LARGE",
      `tag ${describe(tag)} is ${tag.length} bytes, over the limit of ${limits.maxTagBytes} bytes`,
      { bytes: tag.length, limit: limits.maxTagBytes },
    );
  }
  return tag;
}

/** Checks a tag list and removes repeats (first occurrence kept, order preserved). */
export function checkTags(tags: unknown, limits: Limits): string[] {
  if (!Array.isArray(tags)) throw new StoreError("INVALID_ARGUMENT", "tags must be an array");
  const unique = [...new Set(tags.map((tag) => checkTag(tag, limits)))];
  if (unique.length > limits.maxTags) {
    throw new StoreError(
      "TOO_LARGE",
      `${unique.length} tags, over the limit of ${limits.maxTags} tags per memory`,
      { count: unique.length, limit: limits.maxTags },
    );
  }
  return unique;
}

/**
 * Walks metadata (without recursion, so no depth overflows the stack) and refuses nesting
 * deeper than `maxMetadataDepth` and strings (keys or values) with a lone surrogate, which
 * JSON.stringify would write as an escape that strict JSON readers refuse.
 */
function checkMetadataShape(metadata: object, limits: Limits): void {
  const pending: [value: unknown, depth: number][] = [[metadata, 1]];
  // Every key and value takes at least a byte of JSON, so a walk longer than the byte limit
  // stops early (an in-process caller's object may share inner objects many times over).
  let visited = 0;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (++visited > limits.maxMetadataBytes) {
      throw new StoreError(
        "TOO_LARGE",
        `metadata holds more than ${limits.maxMetadataBytes} keys and values, over the limit of ${limits.maxMetadataBytes} bytes as JSON`,
        { limit: limits.maxMetadataBytes },
      );
    }
    const [value, depth] = next;
    if (typeof value === "string") {
      if (LONE_SURROGATE.test(value)) {
        throw new StoreError("INVALID_ARGUMENT", "metadata contains a lone UTF-16 surrogate");
      }
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (depth > limits.maxMetadataDepth) {
      throw new StoreError(
        "TOO_LARGE",
        `metadata nests deeper than ${limits.maxMetadataDepth} levels`,
        { limit: limits.maxMetadataDepth },
      );
    }
    for (const [name, inner] of Object.entries(value)) {
      pending.push([name, depth], [inner, depth + 1]);
    }
  }
}

/**
 * Checks metadata: a JSON object of at most `maxMetadataBytes` serialized and
 * `maxMetadataDepth` levels deep, without lone surrogates. Returns the JSON.
 */
export function checkMetadata(metadata: unknown, limits: Limits): string {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw new StoreError("INVALID_ARGUMENT", "metadata must be a JSON object");
  }
  checkMetadataShape(metadata, limits);
  let json: string;
  try {
    json = JSON.stringify(metadata);
  } catch (error) {
    throw new StoreError("INVALID_ARGUMENT", `metadata is not serializable as JSON: ${error}`);
  }
  const bytes = utf8Bytes(json);
  if (bytes > limits.maxMetadataBytes) {
    throw new StoreError(
      "TOO_LARGE",
      `metadata is ${bytes} bytes as JSON, over the limit of ${limits.maxMetadataBytes} bytes`,
      { bytes, limit: limits.maxMetadataBytes },
    );
  }
  return json;
}

/** Checks an integer option within [min, max]. */
export function checkInteger(value: unknown, what: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new StoreError("INVALID_ARGUMENT", `${what} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** An ISO 8601 time, normalized to the form the store writes (UTC, milliseconds). */
export function checkTime(value: unknown, what: string): string {
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      `${what} must be an ISO 8601 time such as 2026-12-01T09:30:00Z, got ${JSON.stringify(String(value).slice(0, 100))}`,
    );
  }
  return new Date(ms).toISOString();
}
