/**
 * The changes of a namespace's memory files, read forward from a mark: what hms-mcp's change
 * notifications are made of. Its own module so that both engines and `engine.ts` share it.
 */
import type { HistoryOp } from "./history-types.js";

/** One change of a memory file (a key under /memories/), as the history recorded it. */
export interface MemoryChange {
  /** Orders the changes of one namespace: a later change has a larger seq. */
  readonly seq: number;
  /** The file the change left behind (a move's destination). */
  readonly key: string;
  readonly op: HistoryOp;
  /** A move's source; null for any other change. */
  readonly from_key: string | null;
}

/** Most changes one `after` call returns. */
export const MAX_CHANGES_PAGE = 1000;
