/**
 * Editing a file, with compare-and-set: a save names the version the editor's text started
 * from, and is refused when someone (Claude, perhaps) changed the file meanwhile. The refusal
 * is shown once, with what they changed, and three ways on: keep mine (save it on top of
 * theirs, again a compare-and-set), copy my text (the view does that), or edit on top of
 * theirs (the editor starts again from their text, mine kept beside it).
 */
import { ToolFailure } from "./mcp.js";
import { endOfLine } from "./split-lines.js";
import type { Core, Editing } from "./state-types.js";

/** The command the history records for changes made here. */
const EDIT_COMMAND = "inspector_edit";

export class EditActions {
  readonly #core: Core;
  #round = 0;

  constructor(core: Core) {
    this.#core = core;
  }

  /**
   * Opens the editor on the open file, the cursor at the end of line `line` (where the person
   * was reading), or at the end of the text.
   */
  start(line?: number): void {
    const { file, api } = this.#core.state;
    if (file === undefined || !api?.canWrite) return;
    const caret = line === undefined ? file.text.length : endOfLine(file.text, line);
    this.#core.set({
      editing: { from: file.version, text: file.text, caret, round: ++this.#round },
      history: undefined,
      showHits: false,
      stale: false,
      fileNotice: undefined,
    });
  }

  /** Leaves the editor; the file is read again, as someone may have changed it meanwhile. */
  cancel(): void {
    this.#core.set({ editing: undefined, fileNotice: undefined, stale: false });
    const key = this.#core.state.file?.key;
    if (key !== undefined) void this.#core.readFile(key);
  }

  /** Saves `text` if the file is still at the version the editor started from. */
  async save(text: string): Promise<void> {
    const editing = this.#core.state.editing;
    if (editing === undefined) return;
    await this.#saveOn(text, editing.from, editing);
  }

  /** After a conflict: saves `text` on top of their version (if it is still theirs). */
  async keepMine(text: string): Promise<void> {
    const editing = this.#core.state.editing;
    if (editing?.conflict === undefined) return;
    await this.#saveOn(text, editing.conflict.theirs, editing);
  }

  /**
   * After a conflict: the editor starts again from their text (the version now stored), and
   * `mine` is kept beside it to copy from.
   */
  async editTheirs(mine: string): Promise<void> {
    const key = this.#core.state.file?.key;
    if (key === undefined) return;
    await this.#core.guard("fileNotice", async () => {
      const file = await this.#core.api().call("get", { key });
      await this.#core.treeSees(file);
      this.#core.set({
        file,
        stale: false,
        editing: {
          from: file.version,
          text: file.text,
          caret: file.text.length,
          round: ++this.#round,
          mine,
        },
        fileNotice: undefined,
      });
    });
  }

  /** Says inside the conflict what happened to a copy of the person's text. */
  copied(ok: boolean): void {
    const editing = this.#core.state.editing;
    if (editing?.conflict === undefined) return;
    const notice = ok
      ? ({ kind: "success", text: "Your text is on the clipboard." } as const)
      : ({
          kind: "error",
          text: "The browser refused the clipboard: your text is selected, copy it with Ctrl+C.",
        } as const);
    this.#core.set({ editing: { ...editing, conflict: { ...editing.conflict, notice } } });
  }

  /** Another client changed the file being edited: the header shows the file as it is now. */
  async changedMeanwhile(): Promise<void> {
    const key = this.#core.state.file?.key;
    if (key === undefined) return;
    await this.#core.guard(
      "fileNotice",
      async () => {
        const file = await this.#core.api().call("get", { key });
        // The editor keeps its text and its version: only the facts above it follow.
        if (this.#core.state.editing !== undefined && this.#core.state.file?.key === key) {
          this.#core.set({ file, stale: file.version !== this.#core.state.editing.from });
        }
      },
      true,
    );
  }

  async #saveOn(text: string, expected: number, editing: Editing): Promise<void> {
    const key = this.#core.state.file?.key;
    if (key === undefined) return;
    await this.#core.guard("fileNotice", async () => {
      const api = this.#core.api();
      try {
        await api.call("remember", { key, text, expected_version: expected }, EDIT_COMMAND);
      } catch (error) {
        if (!(error instanceof ToolFailure && error.code === "VERSION_CONFLICT")) throw error;
        // Shown once: what they changed since the editor's text was read, and the choices.
        const file = await api.call("get", { key });
        const { unified } = await api.call("diff", { key, from_version: editing.from });
        this.#core.set({
          file,
          stale: false,
          fileNotice: undefined,
          editing: { ...editing, conflict: { theirs: file.version, diff: unified } },
        });
        return;
      }
      this.#core.set({ editing: undefined, stale: false });
      await this.#core.readFile(key);
      // Said with the text it saved: the tree's refresh may wait behind others' changes.
      this.#core.set({ fileNotice: { kind: "success", text: "Saved." } });
      await this.#core.refreshFiles();
    });
  }
}
