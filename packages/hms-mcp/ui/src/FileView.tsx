/**
 * The main pane: the recall results, or the open file (its path and facts, the actions on it,
 * and one of its views: the lines, the markdown preview, the editor or the history), or what
 * to do when none is open.
 */
import { Kbd, NoticeLine, Time } from "./bits.js";
import { Editor } from "./Editor.js";
import { HistoryView, VERSION_NOTE } from "./HistoryView.js";
import { useInspector } from "./hooks.js";
import { Lines, readingLine } from "./Lines.js";
import { MarkdownPreview } from "./MarkdownPreview.js";
import { RecallResults } from "./RecallResults.js";
import type { View } from "./route.js";
import { StorePlace } from "./StorePlace.js";
import type { Inspector, State } from "./state.js";
import { humanBytes } from "./time.js";
import { shortPath } from "./tree.js";

const scroller = () => document.getElementById("main");

/** Where the cursor goes when the person starts editing: where they were reading. */
export function editLine(state: State): number | undefined {
  if (state.route.view !== undefined && state.route.view !== "lines") return undefined;
  return state.route.end ?? state.route.line ?? readingLine(scroller());
}

export function FileView({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const file = state.file;
  if (state.showHits) return <RecallResults app={app} />;
  if (file === undefined) {
    return (
      <div class="placeholder">
        <NoticeLine notice={state.fileNotice} />
        {state.fileNotice ? null : state.tree?.files === 0 ? (
          // An empty namespace: there is nothing to choose yet (the list says how files come).
          <>
            <h2>No memory files yet</h2>
            <p class="muted">
              {state.api?.canWrite ? (
                <>
                  Files appear here as Claude writes them. Make one now with <em>New file</em> (
                  <kbd>n</kbd>).
                </>
              ) : (
                "Files appear here as Claude writes them."
              )}
            </p>
            <p class="muted">
              <StorePlace app={app} long />
            </p>
          </>
        ) : (
          <>
            <h2>Choose a file</h2>
            <p class="muted">
              Pick a memory file in the list (<kbd>o</kbd> finds one by name), or search with recall
              (<kbd>/</kbd>). <kbd>?</kbd> lists every key.
            </p>
          </>
        )}
      </div>
    );
  }
  const view: View = state.route.view ?? "lines";
  const canWrite = state.api?.canWrite === true;
  const path = shortPath(file.key);
  const slash = path.lastIndexOf("/");
  const tab = (name: View, label: string, key: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={!state.editing && view === name}
      aria-keyshortcuts={key}
      class="tab"
      onClick={() => app.setView(name)}
    >
      {label} <Kbd>{key}</Kbd>
    </button>
  );
  return (
    <article class="file" aria-labelledby="file-path">
      <header class="file-head">
        <a href={`#ns=${state.api?.namespace ?? ""}`} class="back">
          ← Files
        </a>
        {state.hits !== undefined && state.hits.length > 0 ? (
          <button type="button" class="small quiet to-results" onClick={() => app.showResults()}>
            ← Recall results ({state.hits.length})
          </button>
        ) : null}
        <h2 id="file-path" tabIndex={-1}>
          <span class="dir">/memories/{slash >= 0 ? path.slice(0, slash + 1) : ""}</span>
          <span class="name">{path.slice(slash + 1)}</span>
        </h2>
        <p class="facts">
          <span title={VERSION_NOTE}>version {file.version}</span> · {humanBytes(file.bytes)} ·
          changed <Time iso={file.updated_at} />
        </p>
        <div class="toolbar">
          <div role="tablist" aria-label="View" class="tabs">
            {tab("lines", "Lines", "l")}
            {tab("preview", "Preview", "p")}
            {tab("history", "History", "h")}
          </div>
          <div class="actions">
            <button
              type="button"
              class="quiet"
              onClick={() => app.openDialog("goto")}
              aria-keyshortcuts="g"
            >
              Go to line <Kbd>g</Kbd>
            </button>
            {canWrite ? (
              <>
                <button
                  type="button"
                  onClick={() => app.edit.start(editLine(state))}
                  aria-keyshortcuts="e"
                  disabled={!!state.editing}
                >
                  Edit <Kbd>e</Kbd>
                </button>
                <button
                  type="button"
                  class="quiet"
                  onClick={() => app.openDialog("rename")}
                  aria-keyshortcuts="r"
                >
                  Rename <Kbd>r</Kbd>
                </button>
                <button
                  type="button"
                  class="quiet danger"
                  onClick={() => app.openDialog("delete")}
                  aria-keyshortcuts="d"
                >
                  Delete <Kbd>d</Kbd>
                </button>
              </>
            ) : null}
          </div>
        </div>
        <NoticeLine notice={state.fileNotice} id="file-notice" />
      </header>
      {state.editing ? (
        <Editor app={app} />
      ) : view === "preview" ? (
        <MarkdownPreview text={file.text} />
      ) : view === "history" ? (
        <HistoryView app={app} />
      ) : (
        <Lines
          text={file.text}
          scroller={scroller}
          mark={
            state.route.line ? [state.route.line, state.route.end ?? state.route.line] : undefined
          }
          reveal={state.route.line}
        />
      )}
    </article>
  );
}
