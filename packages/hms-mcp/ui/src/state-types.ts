/**
 * The inspector's state, as the view reads it, and what the action modules (editing.ts,
 * history-actions.ts) are given of the inspector to change it. Types only: state.ts and the
 * action modules share them without importing each other.
 */
import type { HistoryChange, MemoryApi, MemoryRecord, RecallHit, Stats } from "./api.js";
import type { DeletedFile } from "./deleted.js";
import type { ServerInfo } from "./mcp.js";
import type { Route } from "./route.js";
import type { FileEntry, FolderNode } from "./tree.js";

/** A message shown beside what it concerns. */
export interface Notice {
  readonly kind: "error" | "info" | "success";
  readonly text: string;
}

/** A save refused because someone changed the file after the editor's text was read. */
export interface Conflict {
  /** The version stored now (theirs). */
  readonly theirs: number;
  /** What they changed: the diff from the editor's version to theirs. */
  readonly diff: string;
  /** Said inside the conflict (a copy made, a second conflict). */
  readonly notice?: Notice;
}

export interface Editing {
  /** The version the editor's text started from: the save is a compare-and-set on it. */
  readonly from: number;
  /** The text the editor started with (the file at `from`). */
  readonly text: string;
  /** Where the cursor starts: an offset into `text`. */
  readonly caret: number;
  /** Changes when the editor is to start again from another text (on top of theirs). */
  readonly round: number;
  readonly conflict?: Conflict;
  /** The person's own text, kept aside when they chose to edit on top of someone's change. */
  readonly mine?: string;
}

/** The text of the selected version, rebuilt here, or why it is not shown. */
export type VersionText =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "unavailable"; readonly reason: string };

export interface HistoryState {
  readonly changes: HistoryChange[];
  /** More (older) changes exist: pass as before. */
  readonly nextBefore: number | null;
  readonly selected?: number;
  readonly diff?: string;
  /** The selected version's whole text: what Restore brings back. */
  readonly text?: VersionText;
  /** The selected change is the oldest kept of the file: there is nothing to compare with. */
  readonly first?: boolean;
  readonly notice?: Notice;
}

export type Dialog = "new" | "rename" | "delete" | "goto" | "help" | undefined;

/** Which list the sidebar shows under the recall field. */
export type SidebarList = "files" | "deleted";

export interface State {
  readonly phase: "starting" | "login" | "ready";
  readonly busy: boolean;
  readonly loginNotice?: Notice;
  readonly server?: ServerInfo;
  readonly api?: MemoryApi;
  readonly stats?: Stats;
  readonly files?: FileEntry[];
  readonly tree?: FolderNode;
  readonly collapsed: ReadonlySet<string>;
  /** The quick-open filter: only files whose path holds it are listed. */
  readonly filter: string;
  readonly list: SidebarList;
  readonly filesNotice?: Notice;
  readonly deleted?: DeletedFile[];
  readonly deletedNotice?: Notice;
  readonly query: string;
  /** The query the hits answer (the field may have changed since). */
  readonly asked?: string;
  readonly hits?: RecallHit[];
  /** The main pane shows the recall results rather than the open file. */
  readonly showHits: boolean;
  readonly searchNotice?: Notice;
  readonly route: Route;
  readonly file?: MemoryRecord;
  /** The open file changed on the server since it was read (while being edited). */
  readonly stale: boolean;
  readonly fileNotice?: Notice;
  readonly editing?: Editing;
  readonly history?: HistoryState;
  readonly dialog: Dialog;
  readonly dialogNotice?: Notice;
}

/** What an action module is given of the inspector. */
export interface Core {
  readonly state: State;
  set(patch: Partial<State>): void;
  /** Runs `action`, showing a failure at `where` (see Inspector's guard). */
  guard(where: keyof State, action: () => Promise<void>, quiet?: boolean): Promise<boolean>;
  /** The signed-in namespace's tools (throws when signed out). */
  api(): MemoryApi;
  /** Reads `key` into the file view. */
  readFile(key: string): Promise<void>;
  /** Reads the tree again if it does not show `file` at its version. */
  treeSees(file: MemoryRecord): Promise<void>;
  refreshFiles(): Promise<void>;
}
