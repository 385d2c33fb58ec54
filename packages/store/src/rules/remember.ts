/**
 * The rules of one write (`remember`), for every engine: the checks of its input before any
 * transaction, and the refusals that depend on the record now at its key, in the order the
 * conformance suite pins. The engine does the lookups and the writing.
 */
import { createHash } from "node:crypto";
import { checkExpected, versionConflict } from "../context.js";
import { StoreError } from "../errors.js";
import { checkKey, checkMetadata, checkTags, checkText, type Limits } from "../limits.js";
import type { RememberInput } from "../types.js";
import { checkMemoryFile } from "./tree-shape.js";

/** The content hash a record keeps (`sha256:` and the hex digest of its UTF-8 text). */
export function hashOf(text: string): string {
  return `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
}

/** A write whose input has passed its checks. */
export interface CheckedRemember {
  readonly key: string;
  readonly text: string;
  /** The text's size in UTF-8 bytes. */
  readonly bytes: number;
  /** The new tags, or undefined to keep the existing ones (none on a create). */
  readonly tags: string[] | undefined;
  /** The new metadata as JSON, or undefined to keep the existing object (`{}` on a create). */
  readonly metadata: string | undefined;
  readonly expected: number | undefined;
  readonly ifAbsent: boolean;
  readonly hash: string;
}

/** Checks a write's input (key, text, tags, metadata, its preconditions) and hashes its text. */
export function checkRememberInput(input: RememberInput, limits: Limits): CheckedRemember {
  const key = checkKey(input.key, limits);
  const { text, bytes } = checkText(input.text, limits);
  const tags = input.tags === undefined ? undefined : checkTags(input.tags, limits);
  const metadata = input.metadata === undefined ? undefined : checkMetadata(input.metadata, limits);
  const expected = checkExpected(input.expectedVersion);
  if (expected !== undefined && input.ifAbsent) {
    throw new StoreError(
      "INVALID_ARGUMENT",
      "expected_version and if_absent are mutually exclusive: a key cannot both exist at a version and not exist",
    );
  }
  return {
    key,
    text,
    bytes,
    tags,
    metadata,
    expected,
    ifAbsent: Boolean(input.ifAbsent),
    hash: hashOf(text),
  };
}

/** The record a write finds at its key: its version, and its tags when the write keeps them. */
export interface CurrentRecord {
  readonly version: number;
  /** Read only when the write keeps the tags (an engine may have to decode them). */
  tags(): string[];
}

/**
 * The refusals of a checked write against the record now at its key (undefined: none), inside
 * the write's transaction. Returns the tags the written record will have. A create of a
 * memory file must still be checked against the tree (`treeConflict`) by the engine.
 */
export function checkRememberOver(
  write: CheckedRemember,
  current: CurrentRecord | undefined,
): string[] {
  const { key, expected } = write;
  if (current === undefined) {
    if (expected !== undefined) {
      throw new StoreError(
        "NOT_FOUND",
        `${key} does not exist, so it cannot be at the expected version ${expected}`,
        { key, expected_version: expected },
      );
    }
    const tags = write.tags ?? [];
    checkMemoryFile(key, tags);
    return tags;
  }
  if (write.ifAbsent) {
    throw new StoreError("EXISTS", `${key} already exists (at version ${current.version})`, {
      key,
      current_version: current.version,
    });
  }
  if (expected !== undefined && current.version !== expected) {
    throw versionConflict(key, current.version, expected);
  }
  const tags = write.tags ?? current.tags();
  // A write over a key that already holds a record keeps its name: a file an older version let
  // in under a look-alike name (not NFC, a compatibility character, a space) stays editable.
  checkMemoryFile(key, tags, true);
  return tags;
}
