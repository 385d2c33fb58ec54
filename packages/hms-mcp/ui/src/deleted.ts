/**
 * The memory files deleted and not written since, from the changes `history` gives under a
 * directory (newest first): each with the version a restore brings back.
 */

/** One change, as the `history` tool sends it (the fields this module reads). */
export interface Change {
  readonly seq: number;
  readonly key: string;
  readonly op: "create" | "update" | "move" | "delete";
  readonly from_key: string | null;
  readonly version: number;
  readonly bytes: number;
  readonly at: string;
  readonly actor: string | null;
  readonly command: string | null;
}

export interface DeletedFile {
  readonly key: string;
  /** The version the delete removed: restoring it brings the file back. */
  readonly version: number;
  readonly bytes: number;
  /** When it was deleted. */
  readonly at: string;
}

/**
 * The files whose latest change in `changes` (newest first) is a delete and which do not
 * exist now (`existing`). A file moved away is not deleted: it lives on at its new path.
 */
export function deletedFiles(
  changes: readonly Change[],
  existing: ReadonlySet<string>,
): DeletedFile[] {
  const seen = new Set<string>();
  const deleted: DeletedFile[] = [];
  for (const change of changes) {
    if (change.op === "move" && change.from_key !== null) seen.add(change.from_key);
    if (seen.has(change.key)) continue;
    seen.add(change.key);
    if (change.op === "delete" && !existing.has(change.key)) {
      deleted.push({
        key: change.key,
        version: change.version,
        bytes: change.bytes,
        at: change.at,
      });
    }
  }
  return deleted;
}
