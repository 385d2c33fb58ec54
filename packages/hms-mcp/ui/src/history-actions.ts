/**
 * A file's history: its versions, newest first, what each changed, the whole text of the one
 * selected (what a restore brings back, rebuilt by version-text.ts), and the restore itself, a
 * compare-and-set on the version shown.
 */
import { ToolFailure } from "./mcp.js";
import type { Core, HistoryState, VersionText } from "./state-types.js";
import { isVersion, olderText } from "./version-text.js";

const RESTORE_COMMAND = "inspector_restore";

export class HistoryActions {
  readonly #core: Core;

  constructor(core: Core) {
    this.#core = core;
  }

  async load(before?: number): Promise<void> {
    const key = this.#core.state.file?.key;
    if (key === undefined) return;
    await this.#core.guard("fileNotice", async () => {
      const page = await this.#core.api().call("history", {
        key,
        limit: 100,
        ...(before === undefined ? {} : { before }),
      });
      const earlier = before === undefined ? [] : (this.#core.state.history?.changes ?? []);
      this.#core.set({
        history: { changes: [...earlier, ...page.changes], nextBefore: page.next_before },
      });
      if (before === undefined && page.changes.length > 0) await this.select(0);
    });
  }

  /** Shows what the change at `index` (newest first) did, as a diff, and the text it left. */
  async select(index: number): Promise<void> {
    const { history, file } = this.#core.state;
    const change = history?.changes[index];
    if (history === undefined || change === undefined || file === undefined) return;
    this.#core.set({
      history: { ...history, selected: index, diff: undefined, text: undefined, notice: undefined },
    });
    const previous = history.changes
      .slice(index + 1)
      .find((c) => c.op !== "delete" && c.key === file.key);
    await this.#core.guard("fileNotice", async () => {
      const api = this.#core.api();
      let diff = "";
      if (change.op !== "delete" && previous !== undefined) {
        const answer = await api.call("diff", {
          key: file.key,
          from_version: previous.version,
          to_version: change.version,
        });
        diff = answer.unified;
      }
      let text: VersionText | undefined;
      if (change.op !== "delete" && change.key === file.key) {
        text =
          change.version === file.version
            ? { kind: "text", text: file.text }
            : await this.#textOf(file.key, file.text, change);
      }
      const current = this.#core.state.history;
      if (current?.selected === index) {
        this.#core.set({
          history: { ...current, diff, first: previous === undefined, ...(text ? { text } : {}) },
        });
      }
    });
  }

  /** The text of `change`'s version: the text now, with the diff from that version undone. */
  async #textOf(
    key: string,
    now: string,
    change: { version: number; bytes: number; hash: string },
  ): Promise<VersionText> {
    const { unified } = await this.#core.api().call("diff", {
      key,
      from_version: change.version,
    });
    const text = olderText(now, unified);
    if (text !== undefined && (await isVersion(text, change.bytes, change.hash))) {
      return { kind: "text", text };
    }
    return {
      kind: "unavailable",
      reason: `The text of version ${change.version} could not be rebuilt here; restoring brings back exactly what it held.`,
    };
  }

  async restore(): Promise<void> {
    const { history, file } = this.#core.state;
    const change = history?.changes[history.selected ?? -1];
    if (history === undefined || change === undefined || file === undefined) return;
    await this.#core.guard("fileNotice", async () => {
      const api = this.#core.api();
      try {
        const { restored } = await api.call(
          "restore",
          { key: file.key, version: change.version, expected_version: file.version },
          RESTORE_COMMAND,
        );
        await this.#core.readFile(file.key);
        await this.#core.refreshFiles();
        this.#core.set({ history: undefined });
        await this.load();
        this.#say({
          kind: "success",
          text: `Restored version ${change.version}; it is now version ${restored[0]?.version}.`,
        });
      } catch (error) {
        if (!(error instanceof ToolFailure && error.code === "VERSION_CONFLICT")) throw error;
        this.#say({
          kind: "error",
          text: "Not restored: the file changed meanwhile. Look at the newest version first.",
        });
        await this.#core.readFile(file.key);
      }
    });
  }

  #say(notice: HistoryState["notice"]): void {
    const history = this.#core.state.history;
    if (history !== undefined) this.#core.set({ history: { ...history, notice } });
  }
}
