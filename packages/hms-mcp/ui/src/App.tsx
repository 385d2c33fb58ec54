/**
 * The page: a sign-in screen, or the header, the sidebar (files) and the open file, with a
 * key for every action (listed with ?). Below 720 px wide one pane shows at a time: the files,
 * or the open file with a way back.
 */
import { useEffect, useState } from "preact/hooks";
import { Kbd, NoticeLine } from "./bits.js";
import { Dialogs } from "./Dialogs.js";
import { editLine, FileView } from "./FileView.js";
import { useInspector } from "./hooks.js";
import { Sidebar } from "./Sidebar.js";
import { StorePlace } from "./StorePlace.js";
import type { Inspector } from "./state.js";
import { applyTheme, nextTheme, storedTheme, type Theme } from "./theme.js";

export function App({ app }: { app: Inspector }) {
  const state = useInspector(app);
  useShortcuts(app);
  if (state.phase === "starting") return <p class="starting">Connecting…</p>;
  if (state.phase === "login") return <Login app={app} />;
  return (
    <div class="app">
      <Header app={app} />
      <div class="panes" data-pane={state.route.file || state.showHits ? "file" : "files"}>
        <Sidebar app={app} />
        <main id="main" tabIndex={-1} aria-busy={state.busy}>
          <FileView app={app} />
        </main>
      </div>
      <Dialogs app={app} />
    </div>
  );
}

function Header({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const stats = state.stats;
  return (
    <header class="topbar">
      <h1>
        <span class="logo" aria-hidden="true">
          ◈
        </span>{" "}
        hms-mcp inspector
      </h1>
      <p class="server">
        {state.server ? `${state.server.name} ${state.server.version}` : ""}
        {stats ? ` · ${stats.recall.build} recall` : ""}
        {stats?.store ? " · " : ""}
        <StorePlace app={app} />
      </p>
      <div class="top-actions">
        <ThemeButton />
        <button
          type="button"
          class="quiet"
          onClick={() => app.openDialog("help")}
          aria-keyshortcuts="?"
        >
          Keys <Kbd>?</Kbd>
        </button>
        <button type="button" class="quiet" onClick={() => void app.signOut()}>
          Sign out
        </button>
      </div>
    </header>
  );
}

function ThemeButton() {
  const [theme, setTheme] = useState<Theme>(storedTheme());
  const labels: Record<Theme, string> = {
    auto: "Theme: system",
    light: "Theme: light",
    dark: "Theme: dark",
  };
  return (
    <button
      type="button"
      class="quiet"
      onClick={() => {
        const next = nextTheme(theme);
        applyTheme(next);
        setTheme(next);
      }}
    >
      {labels[theme]}
    </button>
  );
}

function Login({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const [token, setToken] = useState("");
  return (
    <main class="login-page">
      <form
        class="login"
        aria-labelledby="login-title"
        onSubmit={(event) => {
          event.preventDefault();
          void app.signIn(token);
        }}
      >
        <h1 id="login-title">
          <span class="logo" aria-hidden="true">
            ◈
          </span>{" "}
          hms-mcp inspector
        </h1>
        <p>See, search and correct what Claude remembers.</p>
        <label for="token">Token</label>
        <input
          id="token"
          type="password"
          autocomplete="current-password"
          value={token}
          // biome-ignore lint/a11y/noAutofocus: the one thing to do on this screen
          autoFocus
          aria-describedby="login-notice login-help"
          aria-invalid={state.loginNotice?.kind === "error"}
          onInput={(event) => setToken((event.currentTarget as HTMLInputElement).value)}
        />
        <NoticeLine notice={state.loginNotice} id="login-notice" />
        <button type="submit" class="primary" disabled={state.busy}>
          Open
        </button>
        <p id="login-help" class="muted small-text">
          The value of <code>HMS_MCP_TOKEN</code> the server started with (or a token of its{" "}
          <code>--tokens-file</code>). It stays in this tab and never goes into a URL.
        </p>
      </form>
    </main>
  );
}

/** Single keys for the actions, when no field has the focus and no dialog is open. */
function useShortcuts(app: Inspector): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const state = app.state;
      if (state.phase !== "ready" || state.dialog !== undefined) return;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable]")) return;
      const file = state.file;
      const canWrite = state.api?.canWrite === true;
      const actions: Record<string, (() => void) | undefined> = {
        "/": () => document.getElementById("query")?.focus(),
        o: () => {
          app.showList("files");
          // The field is in the list just shown: focused once it is in the page.
          requestAnimationFrame(() => document.getElementById("filter")?.focus());
        },
        "?": () => app.openDialog("help"),
        t: () => document.querySelector<HTMLElement>(".tree [tabindex='0']")?.focus(),
        n: canWrite ? () => app.openDialog("new") : undefined,
        l: file ? () => app.setView("lines") : undefined,
        p: file ? () => app.setView("preview") : undefined,
        h: file ? () => app.setView("history") : undefined,
        g: file ? () => app.openDialog("goto") : undefined,
        e: file && canWrite ? () => app.edit.start(editLine(app.state)) : undefined,
        r: file && canWrite ? () => app.openDialog("rename") : undefined,
        d: file && canWrite ? () => app.openDialog("delete") : undefined,
      };
      const action = actions[event.key];
      if (action === undefined || state.editing !== undefined) return;
      event.preventDefault();
      action();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [app]);
}
