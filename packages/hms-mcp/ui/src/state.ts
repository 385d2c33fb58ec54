/**
 * The inspector's state and every action a person can take, apart from how they are shown.
 * The view subscribes and re-renders on each change. Changes made elsewhere reach the state
 * through {@link Inspector.fileChanged}, which a change notification can call: the tree is
 * refreshed, and an open file that changed is re-read (or, while it is being edited, its
 * facts are, and it is marked). Editing (editing.ts) and the history (history-actions.ts)
 * are modules of their own, given what they need of this one (state-types.ts's Core).
 */
import { MemoryApi, type MemoryRecord } from "./api.js";
import { type Change, deletedFiles } from "./deleted.js";
import { EditActions } from "./editing.js";
import { HistoryActions } from "./history-actions.js";
import { McpClient, type ServerInfo, ToolFailure, Unauthorized } from "./mcp.js";
import type { Route, View } from "./route.js";
import type { Core, Dialog, Notice, SidebarList, State } from "./state-types.js";
import { buildTree, filterFiles, foldersOf, ROOT } from "./tree.js";

export type {
  Conflict,
  Dialog,
  Editing,
  HistoryState,
  Notice,
  SidebarList,
  State,
  VersionText,
} from "./state-types.js";

const TOKEN_KEY = "hms-token";
const NAMESPACE_KEY = "hms-namespace";
/** The command the history records for changes made here. */
const COMMAND = {
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
    filter: "",
    list: "files",
    query: "",
    showHits: false,
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
  /** Editing the open file, with compare-and-set. */
  readonly edit: EditActions;
  /** The open file's history, and restoring a version of it. */
  readonly history: HistoryActions;

  constructor(endpoint: string) {
    this.#endpoint = endpoint;
    const inspector = this;
    const core: Core = {
      get state() {
        return inspector.#state;
      },
      set: (patch) => this.#set(patch),
      guard: (where, action, quiet) => this.#guard(where, action, quiet),
      api: () => this.#api,
      readFile: (key) => this.#readFile(key),
      treeSees: (file) => this.#treeSees(file, { clearNotice: true }),
      refreshFiles: () => this.refreshFiles(),
    };
    this.edit = new EditActions(core);
    this.history = new HistoryActions(core);
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
      showHits: false,
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
      query: "",
      asked: undefined,
      showHits: false,
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

  /**
   * Reads the tree again, and the deleted files with it (the sidebar counts them); a refresh
   * someone else's change caused keeps what the page says.
   */
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
        await this.loadDeleted();
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

  /** Shows the files or the deleted files in the sidebar. */
  showList(list: SidebarList): void {
    this.#set({ list });
  }

  /** Lists only the files whose path holds `filter` (any case). */
  setFilter(filter: string): void {
    this.#set({ filter, list: "files" });
  }

  /** Opens the first file the filter lists (Enter in the filter field). */
  openFirstMatch(): void {
    const first = filterFiles(this.#state.files ?? [], this.#state.filter)[0];
    if (first === undefined) return;
    this.open(first.key);
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
      // The editor keeps the person's text; the header shows the file as it is now.
      this.#set({ stale: true });
      await this.edit.changedMeanwhile();
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
    // Going somewhere else leaves the recall results; the same place (a sign-in's own visit,
    // which a quick search may have overtaken) keeps them.
    const elsewhere = (["namespace", "file", "line", "end", "view"] as const).some(
      (part) => route[part] !== previous[part],
    );
    this.#set({ route, ...(elsewhere ? { showHits: false } : {}) });
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
    if (route.view === "history" && this.#state.history === undefined) await this.history.load();
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
    this.#set({ editing: undefined, fileNotice: undefined, showHits: false });
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
      this.edit.start();
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
    await this.#guard(
      "deletedNotice",
      async () => {
        const { changes } = await this.#api.call("history", { prefix: ROOT, limit: 1000 });
        const existing = new Set((this.#state.files ?? []).map((f) => f.key));
        this.#set({
          deleted: deletedFiles(changes as Change[], existing),
          deletedNotice: undefined,
        });
      },
      true,
    );
  }

  async restoreDeleted(file: { key: string; version: number }): Promise<void> {
    await this.#guard("deletedNotice", async () => {
      await this.#api.call("restore", { key: file.key, version: file.version }, COMMAND.restore);
      await this.refreshFiles();
      this.open(file.key);
      this.#set({
        list: "files",
        fileNotice: { kind: "success", text: `Restored ${file.key} as it was when deleted.` },
      });
    });
  }

  // ---- recall

  setQuery(query: string): void {
    this.#set({ query });
  }

  /** Recalls with the query; the results fill the main pane. */
  async recall(): Promise<void> {
    const query = this.#state.query.trim();
    if (query === "") {
      this.#set({ hits: undefined, showHits: false, searchNotice: undefined });
      return;
    }
    await this.#guard("searchNotice", async () => {
      const { hits } = await this.#api.call("recall", { query, k: 10, prefix: ROOT });
      this.#set({
        hits,
        asked: query,
        showHits: true,
        searchNotice:
          hits.length === 0
            ? { kind: "info", text: "No memory file matches. Try other words." }
            : undefined,
      });
    });
  }

  /** Leaves the results for the file a hit opens (even where the page already is). */
  hideResults(): void {
    this.#set({ showHits: false });
  }

  /** Shows the last results again (after a hit was opened). */
  showResults(): void {
    if (this.#state.hits !== undefined) this.#set({ showHits: true, editing: undefined });
  }

  clearRecall(): void {
    this.#set({
      hits: undefined,
      query: "",
      asked: undefined,
      showHits: false,
      searchNotice: undefined,
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
