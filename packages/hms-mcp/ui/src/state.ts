/**
 * The inspector's state and every action a person can take, apart from how they are shown.
 * The view subscribes and re-renders on each change. Changes made elsewhere reach the state
 * through {@link Inspector.fileChanged}, which a change notification can call: the tree is
 * refreshed, and an open file that changed is re-read (or, while it is being edited, marked).
 */
import {
  type HistoryChange,
  MemoryApi,
  type MemoryRecord,
  type RecallHit,
  type Stats,
} from "./api.js";
import { type Change, type DeletedFile, deletedFiles } from "./deleted.js";
import { McpClient, type ServerInfo, ToolFailure, Unauthorized } from "./mcp.js";
import type { Route, View } from "./route.js";
import { buildTree, type FileEntry, type FolderNode, foldersOf, ROOT } from "./tree.js";

/** A message shown beside what it concerns. */
export interface Notice {
  readonly kind: "error" | "info" | "success";
  readonly text: string;
}

export interface Editing {
  /** The version the editor's text started from: the save is a compare-and-set on it. */
  readonly from: number;
  /** The diff of what someone else changed meanwhile, once a save found it. */
  readonly conflict?: string;
}

export interface HistoryState {
  readonly changes: HistoryChange[];
  /** More (older) changes exist: pass as before. */
  readonly nextBefore: number | null;
  readonly selected?: number;
  readonly diff?: string;
  /** The selected change is the oldest kept of the file: there is nothing to compare with. */
  readonly first?: boolean;
  readonly notice?: Notice;
}

export type Dialog = "new" | "rename" | "delete" | "goto" | "help" | undefined;

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
  readonly filesNotice?: Notice;
  readonly deleted?: DeletedFile[];
  readonly deletedNotice?: Notice;
  readonly query: string;
  readonly hits?: RecallHit[];
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

const TOKEN_KEY = "hms-token";
const NAMESPACE_KEY = "hms-namespace";
/** The command the history records for changes made here. */
const COMMAND = {
  edit: "inspector_edit",
  create: "inspector_create",
  rename: "inspector_rename",
  delete: "inspector_delete",
  restore: "inspector_restore",
} as const;

export class Inspector {
  #state: State = {
    phase: "starting",
    busy: false,
    collapsed: new Set(),
    query: "",
    route: {},
    stale: false,
    dialog: undefined,
  };
  readonly #listeners = new Set<() => void>();
  readonly #endpoint: string;
  /** Ends listening to the namespace's changes (subscription and event stream). */
  #stopWatching: (() => void) | undefined;
  /** Files told changed and not yet shown; they are shown together, a moment later. */
  readonly #heard = new Set<string>();
  #showHeard: ReturnType<typeof setTimeout> | undefined;
  /**
   * The file the newest read was of. Reads answer in any order: one of another file is not
   * shown, so a slow answer about the file the person just left never replaces the one they
   * opened.
   */
  #wanted: string | undefined;
  /** Where to go: the view writes it to the URL, which comes back through {@link applyRoute}. */
  navigate: (route: Route) => void = (route) => {
    void this.applyRoute(route);
  };

  constructor(endpoint: string) {
    this.#endpoint = endpoint;
  }

  get state(): State {
    return this.#state;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #set(patch: Partial<State>): void {
    this.#state = { ...this.#state, ...patch };
    for (const listener of this.#listeners) listener();
  }

  get #api(): MemoryApi {
    const api = this.#state.api;
    if (api === undefined) throw new Error("not signed in");
    return api;
  }

  /**
   * Runs `action`; a refused token leads back to the sign-in, other failures to `where`.
   * The page is busy meanwhile, unless `quiet` (work the person did not ask for, such as
   * following someone else's change, never holds up what they do).
   */
  async #guard(where: keyof State, action: () => Promise<void>, quiet = false): Promise<boolean> {
    if (!quiet) this.#set({ busy: true });
    try {
      await action();
      return true;
    } catch (error) {
      if (error instanceof Unauthorized) {
        this.#signedOut({
          kind: "error",
          text: "The server no longer accepts this token: sign in again.",
        });
      } else {
        this.#set({ [where]: { kind: "error", text: (error as Error).message } } as Partial<State>);
      }
      return false;
    } finally {
      if (!quiet) this.#set({ busy: false });
    }
  }

  // ---- signing in and out, namespaces

  /** At page load: the tab's token (or none, for a server without tokens). */
  async start(route: Route): Promise<void> {
    this.#set({ route });
    const token = sessionStorage.getItem(TOKEN_KEY) ?? "";
    try {
      await this.#open(
        token,
        route.namespace ?? sessionStorage.getItem(NAMESPACE_KEY) ?? undefined,
      );
    } catch (error) {
      this.#signedOut(
        error instanceof Unauthorized
          ? token === ""
            ? undefined
            : { kind: "error", text: "That token was refused: type it again." }
          : { kind: "error", text: (error as Error).message },
      );
    }
  }

  async signIn(token: string): Promise<void> {
    if (token.trim() === "") {
      this.#set({
        loginNotice: { kind: "error", text: "Type the server's token (HMS_MCP_TOKEN)." },
      });
      return;
    }
    this.#set({ busy: true, loginNotice: undefined });
    try {
      await this.#open(token.trim(), this.#state.route.namespace);
      sessionStorage.setItem(TOKEN_KEY, token.trim());
    } catch (error) {
      this.#set({
        loginNotice: {
          kind: "error",
          text:
            error instanceof Unauthorized
              ? "That token was refused. Use the value of HMS_MCP_TOKEN (or a token of --tokens-file) the server started with."
              : (error as Error).message,
        },
      });
    } finally {
      this.#set({ busy: false });
    }
  }

  async signOut(): Promise<void> {
    await this.#state.api?.client.close();
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(NAMESPACE_KEY);
    this.#signedOut({ kind: "info", text: "Signed out. The token is gone from this tab." });
  }

  #signedOut(notice: Notice | undefined): void {
    this.#stopWatching?.();
    this.#stopWatching = undefined;
    this.#set({
      phase: "login",
      loginNotice: notice,
      api: undefined,
      files: undefined,
      tree: undefined,
      file: undefined,
      editing: undefined,
      history: undefined,
      hits: undefined,
      deleted: undefined,
      dialog: undefined,
    });
  }

  async #open(token: string, wanted: string | undefined): Promise<void> {
    const client = new McpClient(this.#endpoint, token);
    const server = await client.connect();
    const namespaces = (await client.call("namespaces", {})) as MemoryApi["namespaces"];
    const names = namespaces.namespaces.map((n) => n.name);
    const namespace =
      wanted !== undefined && namespaces.namespace_arg && names.includes(wanted)
        ? wanted
        : names.includes(namespaces.default) || !namespaces.namespace_arg
          ? namespaces.default
          : (names[0] ?? namespaces.default);
    await this.#enter(new MemoryApi(client, namespaces, namespace), server);
  }

  async #enter(api: MemoryApi, server: ServerInfo | undefined): Promise<void> {
    const stats = await api.call("stats", {});
    this.#watch(api);
    sessionStorage.setItem(NAMESPACE_KEY, api.namespace);
    this.#set({
      phase: "ready",
      api,
      server: server ?? this.#state.server,
      stats,
      loginNotice: undefined,
      file: undefined,
      editing: undefined,
      history: undefined,
      hits: undefined,
      deleted: undefined,
      filesNotice: undefined,
      fileNotice: undefined,
    });
    await this.refreshFiles();
    await this.applyRoute({ ...this.#state.route, namespace: api.namespace });
  }

  /** Switches to `namespace` (one the token may use). */
  async switchNamespace(namespace: string): Promise<void> {
    const api = this.#state.api;
    if (api === undefined || namespace === api.namespace) return;
    await this.#guard("filesNotice", async () => {
      this.#set({ route: { namespace } });
      await this.#enter(new MemoryApi(api.client, api.namespaces, namespace), undefined);
      this.navigate({ namespace });
    });
  }

  // ---- files

  async refreshFiles(): Promise<void> {
    await this.#loadFiles({ clearNotice: true });
  }

  /** Reads the tree again; a refresh someone else's change caused keeps what the page says. */
  async #loadFiles(options: { clearNotice: boolean }): Promise<void> {
    const quiet = !options.clearNotice;
    await this.#guard(
      "filesNotice",
      async () => {
        const files = await this.#api.allFiles();
        this.#set({
          files,
          tree: buildTree(files),
          ...(options.clearNotice ? { filesNotice: undefined } : {}),
        });
        if (this.#state.deleted !== undefined) await this.loadDeleted();
      },
      quiet,
    );
  }

  toggleFolder(path: string): void {
    const collapsed = new Set(this.#state.collapsed);
    if (collapsed.has(path)) collapsed.delete(path);
    else collapsed.add(path);
    this.#set({ collapsed });
  }

  /**
   * Another client changed `key` (a change notification, or a refresh): the tree is read
   * again, and the open file too unless the person is editing it, which is only marked.
   */
  async fileChanged(key: string): Promise<void> {
    await this.filesChanged([key]);
  }

  /** As {@link fileChanged}, for several files at once: the tree is read once. */
  async filesChanged(keys: readonly string[]): Promise<void> {
    await this.#loadFiles({ clearNotice: false });
    // The file being opened, if one is: the one shown is on its way out.
    const open = this.#wanted ?? this.#state.file?.key;
    if (open === undefined || !keys.includes(open)) return;
    if (this.#state.editing !== undefined) {
      this.#set({ stale: true });
      return;
    }
    // What the page said stays: this refresh is not the person's doing.
    await this.#readFile(open, { clearNotice: false });
  }

  /**
   * Listens to every change of `api`'s namespace (a subscription to /memories, told on the
   * session's event stream): the tree and the open file follow what others do. A server
   * without change notifications is simply not listened to.
   */
  #watch(api: MemoryApi): void {
    this.#stopWatching?.();
    const uri = `hms-mcp://${api.namespace}/${encodeURIComponent("/memories")}`;
    const stopListening = api.client.listen((changed) => {
      const key = keyOfUri(changed);
      if (key === undefined || this.#state.api !== api) return;
      this.#heard.add(key);
      // A burst of changes (a directory moved) is shown once.
      this.#showHeard ??= setTimeout(() => {
        this.#showHeard = undefined;
        const keys = [...this.#heard];
        this.#heard.clear();
        void this.filesChanged(keys);
      }, HEARD_DELAY_MS);
    });
    void api.client.subscribe(uri).catch(() => undefined);
    this.#stopWatching = () => {
      stopListening();
      void api.client.unsubscribe(uri).catch(() => undefined);
    };
  }

  /** Goes where `route` says: namespace, file, view, lines. */
  async applyRoute(route: Route): Promise<void> {
    const previous = this.#state.route;
    this.#set({ route });
    const api = this.#state.api;
    if (api === undefined) return;
    if (route.namespace !== undefined && route.namespace !== api.namespace) {
      if (api.namespaces.namespaces.some((n) => n.name === route.namespace)) {
        await this.switchNamespace(route.namespace);
      }
      return;
    }
    if (route.file === undefined) {
      this.#dropReads();
      this.#set({ file: undefined, editing: undefined, history: undefined, fileNotice: undefined });
      return;
    }
    if (route.file !== this.#state.file?.key || previous.file !== route.file) {
      // Its folders open, so the tree shows it.
      const collapsed = new Set(this.#state.collapsed);
      for (const folder of foldersOf(route.file)) collapsed.delete(folder);
      this.#set({ collapsed, editing: undefined, history: undefined });
      await this.#readFile(route.file);
    }
    if (route.view === "history" && this.#state.history === undefined) await this.loadHistory();
  }

  async #readFile(key: string, options: { clearNotice: boolean } = { clearNotice: true }) {
    await this.#guard(
      "fileNotice",
      async () => {
        this.#wanted = key;
        const superseded = () => this.#wanted !== key;
        try {
          const file = await this.#api.call("get", { key });
          if (superseded()) return;
          this.#set({
            file,
            stale: false,
            ...(options.clearNotice ? { fileNotice: undefined } : {}),
          });
          await this.#treeSees(file, options);
        } catch (error) {
          if (superseded()) return;
          if (error instanceof ToolFailure && error.code === "NOT_FOUND") {
            this.#set({
              file: undefined,
              fileNotice: {
                kind: "error",
                text: `${key} does not exist (any more). Deleted files are listed under "Deleted" in the sidebar.`,
              },
            });
            return;
          }
          throw error;
        }
      },
      !options.clearNotice,
    );
  }

  /** No file is open any more: a read still on its way is not shown when it answers. */
  #dropReads(): void {
    this.#wanted = undefined;
  }

  /** A file read at a version the tree does not show (someone changed it): the tree is read again. */
  async #treeSees(file: MemoryRecord, options: { clearNotice: boolean }): Promise<void> {
    const listed = this.#state.files?.find((entry) => entry.key === file.key);
    if (this.#state.files !== undefined && listed?.version !== file.version) {
      await this.#loadFiles(options);
    }
  }

  /** Opens `key` (at `line`, marking to `end`) in `view`. */
  open(key: string, view: View = "lines", line?: number, end?: number): void {
    this.navigate({
      namespace: this.#state.api?.namespace,
      file: key,
      view,
      ...(line === undefined ? {} : { line, ...(end === undefined ? {} : { end }) }),
    });
  }

  setView(view: View): void {
    const { route } = this.#state;
    if (route.file === undefined) return;
    this.#set({ editing: undefined, fileNotice: undefined });
    this.navigate({ namespace: route.namespace, file: route.file, view });
  }

  goToLine(line: number): void {
    const { route } = this.#state;
    if (route.file === undefined) return;
    this.#set({ dialog: undefined, editing: undefined });
    this.navigate({ namespace: route.namespace, file: route.file, view: "lines", line });
  }

  // ---- dialogs

  openDialog(dialog: Dialog): void {
    this.#set({ dialog, dialogNotice: undefined });
  }

  closeDialog(): void {
    this.#set({ dialog: undefined, dialogNotice: undefined });
  }

  /** A refusal shown in the open dialog, beside the field. */
  dialogProblem(text: string): void {
    this.#set({ dialogNotice: { kind: "error", text } });
  }

  async createFile(key: string): Promise<void> {
    await this.#guard("dialogNotice", async () => {
      try {
        await this.#api.call(
          "remember",
          { key, text: "", tags: ["memory-file"], if_absent: true },
          COMMAND.create,
        );
      } catch (error) {
        if (error instanceof ToolFailure && error.code === "EXISTS") {
          throw new Error(`${key} exists already: choose another name.`);
        }
        throw error;
      }
      this.#set({ dialog: undefined });
      await this.refreshFiles();
      this.open(key);
      // A new file is empty: straight into the editor.
      await this.#readFile(key);
      this.startEditing();
      this.#set({
        fileNotice: { kind: "success", text: `Created ${key}. Type its text and save.` },
      });
    });
  }

  async renameFile(to: string): Promise<void> {
    const file = this.#state.file;
    if (file === undefined) return;
    await this.#guard("dialogNotice", async () => {
      await this.#api.call(
        "move",
        { from: file.key, to, expected_version: file.version },
        COMMAND.rename,
      );
      this.#set({ dialog: undefined });
      await this.refreshFiles();
      this.open(to);
      this.#set({ fileNotice: { kind: "success", text: `Renamed from ${file.key}.` } });
    });
  }

  async deleteFile(): Promise<void> {
    const file = this.#state.file;
    if (file === undefined) return;
    await this.#guard("dialogNotice", async () => {
      await this.#api.call(
        "forget",
        { key: file.key, expected_version: file.version },
        COMMAND.delete,
      );
      this.#dropReads();
      this.#set({ dialog: undefined, file: undefined });
      this.navigate({ namespace: this.#state.api?.namespace });
      await this.refreshFiles();
      await this.loadDeleted();
      this.#set({
        filesNotice: {
          kind: "success",
          text: `Deleted ${file.key}. It is listed under Deleted, where it can be restored.`,
        },
      });
    });
  }

  // ---- deleted files

  async loadDeleted(): Promise<void> {
    await this.#guard("deletedNotice", async () => {
      const { changes } = await this.#api.call("history", { prefix: ROOT, limit: 1000 });
      const existing = new Set((this.#state.files ?? []).map((f) => f.key));
      this.#set({ deleted: deletedFiles(changes as Change[], existing), deletedNotice: undefined });
    });
  }

  hideDeleted(): void {
    this.#set({ deleted: undefined, deletedNotice: undefined });
  }

  async restoreDeleted(file: DeletedFile): Promise<void> {
    await this.#guard("deletedNotice", async () => {
      await this.#api.call("restore", { key: file.key, version: file.version }, COMMAND.restore);
      await this.refreshFiles();
      await this.loadDeleted();
      this.open(file.key);
      this.#set({
        fileNotice: { kind: "success", text: `Restored ${file.key} as it was when deleted.` },
      });
    });
  }

  // ---- recall

  setQuery(query: string): void {
    this.#set({ query });
  }

  async recall(): Promise<void> {
    const query = this.#state.query.trim();
    if (query === "") {
      this.#set({ hits: undefined, searchNotice: undefined });
      return;
    }
    await this.#guard("searchNotice", async () => {
      const { hits } = await this.#api.call("recall", { query, k: 10, prefix: ROOT });
      this.#set({
        hits,
        searchNotice:
          hits.length === 0
            ? { kind: "info", text: "No memory file matches. Try other words." }
            : undefined,
      });
    });
  }

  clearRecall(): void {
    this.#set({ hits: undefined, query: "", searchNotice: undefined });
  }

  // ---- editing, with compare-and-set

  startEditing(): void {
    const file = this.#state.file;
    if (file === undefined || !this.#state.api?.canWrite) return;
    this.#set({
      editing: { from: file.version },
      history: undefined,
      stale: false,
      fileNotice: undefined,
    });
  }

  /** Leaves the editor; the file is read again, as someone may have changed it meanwhile. */
  cancelEditing(): void {
    this.#set({ editing: undefined, fileNotice: undefined });
    const key = this.#state.file?.key;
    if (key !== undefined) void this.#readFile(key);
  }

  /** Saves `text` if the file is still at the version the editor started from. */
  async save(text: string): Promise<void> {
    const { file, editing } = this.#state;
    if (file === undefined || editing === undefined) return;
    await this.#guard("fileNotice", async () => {
      try {
        await this.#api.call(
          "remember",
          { key: file.key, text, expected_version: editing.from },
          COMMAND.edit,
        );
      } catch (error) {
        if (error instanceof ToolFailure && error.code === "VERSION_CONFLICT") {
          const { unified } = await this.#api.call("diff", {
            key: file.key,
            from_version: editing.from,
          });
          this.#set({
            editing: { ...editing, conflict: unified },
            fileNotice: { kind: "error", text: "Not saved: the file changed since you opened it." },
          });
          return;
        }
        throw error;
      }
      this.#set({ editing: undefined });
      await this.#readFile(file.key);
      // Said with the text it saved: the tree's refresh may wait behind others' changes.
      this.#set({ fileNotice: { kind: "success", text: "Saved." } });
      await this.refreshFiles();
    });
  }

  /** After a conflict: keep the editor's text and save on top of the version now stored. */
  async editOnTop(): Promise<void> {
    const key = this.#state.file?.key;
    if (key === undefined) return;
    await this.#guard("fileNotice", async () => {
      const file = await this.#api.call("get", { key });
      await this.#treeSees(file, { clearNotice: true });
      this.#set({
        file,
        editing: { from: file.version },
        stale: false,
        fileNotice: { kind: "info", text: "Your text is kept; saving now replaces their change." },
      });
    });
  }

  // ---- history

  async loadHistory(before?: number): Promise<void> {
    const key = this.#state.file?.key;
    if (key === undefined) return;
    await this.#guard("fileNotice", async () => {
      const page = await this.#api.call("history", {
        key,
        limit: 100,
        ...(before === undefined ? {} : { before }),
      });
      const earlier = before === undefined ? [] : (this.#state.history?.changes ?? []);
      this.#set({
        history: { changes: [...earlier, ...page.changes], nextBefore: page.next_before },
      });
      if (before === undefined && page.changes.length > 0) await this.selectVersion(0);
    });
  }

  /** Shows what the change at `index` (newest first) did, as a diff. */
  async selectVersion(index: number): Promise<void> {
    const { history, file } = this.#state;
    const change = history?.changes[index];
    if (history === undefined || change === undefined || file === undefined) return;
    this.#set({ history: { ...history, selected: index, diff: undefined, notice: undefined } });
    const previous = history.changes
      .slice(index + 1)
      .find((c) => c.op !== "delete" && c.key === file.key);
    await this.#guard("fileNotice", async () => {
      let diff = "";
      if (change.op !== "delete" && previous !== undefined) {
        const answer = await this.#api.call("diff", {
          key: file.key,
          from_version: previous.version,
          to_version: change.version,
        });
        diff = answer.unified;
      }
      const current = this.#state.history;
      if (current?.selected === index) {
        this.#set({ history: { ...current, diff, first: previous === undefined } });
      }
    });
  }

  async restoreVersion(): Promise<void> {
    const { history, file } = this.#state;
    const change = history?.changes[history.selected ?? -1];
    if (history === undefined || change === undefined || file === undefined) return;
    await this.#guard("fileNotice", async () => {
      try {
        const { restored } = await this.#api.call(
          "restore",
          { key: file.key, version: change.version, expected_version: file.version },
          COMMAND.restore,
        );
        await this.#readFile(file.key);
        await this.refreshFiles();
        this.#set({ history: undefined });
        await this.loadHistory();
        const history = this.#state.history as HistoryState | undefined;
        if (history !== undefined) {
          this.#set({
            history: {
              ...history,
              notice: {
                kind: "success",
                text: `Restored version ${change.version}; it is now version ${restored[0]?.version}.`,
              },
            },
          });
        }
      } catch (error) {
        if (error instanceof ToolFailure && error.code === "VERSION_CONFLICT") {
          const current = this.#state.history;
          if (current !== undefined) {
            this.#set({
              history: {
                ...current,
                notice: {
                  kind: "error",
                  text: "Not restored: the file changed meanwhile. Look at the newest version first.",
                },
              },
            });
          }
          await this.#readFile(file.key);
          return;
        }
        throw error;
      }
    });
  }
}

/** How long changes told are gathered before the tree is read again, in ms. */
const HEARD_DELAY_MS = 100;

/** The memory key of a resource URI (`hms-mcp://{namespace}/{encoded key}`), else undefined. */
export function keyOfUri(uri: string): string | undefined {
  const match = /^hms-mcp:\/\/[^/]+\/(.+)$/.exec(uri);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return undefined;
  }
}
