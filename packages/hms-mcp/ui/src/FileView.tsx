/**
 * The open file: its path and facts, the actions on it, and one of its views: the lines, the
 * markdown preview, the editor (with the conflict screen) or the history.
 */
import { useEffect, useRef } from "preact/hooks";
import { Kbd, NoticeLine, Time } from "./bits.js";
import { DiffView } from "./DiffView.js";
import { useInspector } from "./hooks.js";
import { Lines } from "./Lines.js";
import { MarkdownPreview } from "./MarkdownPreview.js";
import type { View } from "./route.js";
import type { Inspector } from "./state.js";
import { humanBytes } from "./time.js";
import { shortPath } from "./tree.js";

const VERSION_NOTE =
  "Version numbers count every change in this namespace, so one file's versions skip numbers.";

const scroller = () => document.getElementById("main");

export function FileView({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const file = state.file;
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
          </>
        ) : (
          <>
            <h2>Choose a file</h2>
            <p class="muted">
              Pick a memory file in the list, or search with recall (<kbd>/</kbd>). <kbd>?</kbd>{" "}
              lists every key.
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
                  onClick={() => app.startEditing()}
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

function Editor({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const field = useRef<HTMLTextAreaElement>(null);
  const editing = state.editing;
  const file = state.file;
  // The person asked to edit: the text gets the focus (autofocus acts only at page load).
  useEffect(() => field.current?.focus(), []);
  if (editing === undefined || file === undefined) return null;
  const save = () => void app.save(field.current?.value ?? "");
  return (
    <form
      class="editor"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <label for="editor-text">Text</label>
      <textarea
        id="editor-text"
        ref={field}
        spellcheck={false}
        defaultValue={file.text}
        // biome-ignore lint/a11y/noAutofocus: the person asked to edit; the text is what they came for
        autoFocus
        onKeyDown={(event) => {
          if ((event.ctrlKey || event.metaKey) && (event.key === "s" || event.key === "Enter")) {
            event.preventDefault();
            save();
          }
          if (event.key === "Escape" && field.current?.value === file.text) app.cancelEditing();
        }}
      />
      <div class="actions">
        <button type="submit" class="primary" aria-keyshortcuts="Control+S">
          Save <Kbd>Ctrl S</Kbd>
        </button>
        <button type="button" class="quiet" onClick={() => app.cancelEditing()}>
          Cancel
        </button>
        <span class="muted small-text">
          Saved only if nobody changed the file since version {editing.from}.
        </span>
      </div>
      {/* Below the buttons: told while the person may be about to click Save, it must not
          move the text or the buttons under their pointer. */}
      {state.stale ? (
        <p class="notice info" role="status">
          Someone changed this file while you edit it; saving will show you what changed.
        </p>
      ) : null}
      {editing.conflict !== undefined ? (
        <section class="conflict" aria-labelledby="conflict-title">
          <h3 id="conflict-title" tabIndex={-1}>
            Changed meanwhile: not saved
          </h3>
          <p>
            Someone (Claude, perhaps) changed this file after you opened it. Your text is still in
            the editor; here is what changed since you opened it:
          </p>
          <DiffView unified={editing.conflict} label="What changed since you opened the file" />
          <div class="actions">
            <button type="button" onClick={() => void app.editOnTop()}>
              Edit on top of their change
            </button>
          </div>
        </section>
      ) : null}
    </form>
  );
}

const OPS = { create: "created", update: "edited", move: "moved", delete: "deleted" } as const;

function HistoryView({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const history = state.history;
  const file = state.file;
  if (history === undefined || file === undefined) return <p class="muted">Loading the history…</p>;
  const { changes } = history;
  const selected = history.selected === undefined ? undefined : changes[history.selected];
  const oldest = changes[changes.length - 1];
  const truncated = history.nextBefore === null && oldest !== undefined && oldest.op === "update";
  const total = history.nextBefore === null ? changes.length : undefined;
  return (
    <section class="history" aria-labelledby="history-title">
      <h3 id="history-title" tabIndex={-1}>
        History
      </h3>
      <p class="muted small-text">{VERSION_NOTE}</p>
      {truncated ? (
        <p class="notice info" role="status">
          Older versions of this file were not kept: the server keeps a bounded history
          (--keep-versions, --keep-days).
        </p>
      ) : null}
      <div class="history-grid">
        <ol class="versions" aria-label="Versions, newest first">
          {changes.map((change, index) => (
            <li key={change.seq}>
              <button
                type="button"
                class="version"
                aria-pressed={history.selected === index}
                onClick={() => void app.selectVersion(index)}
              >
                <span class="v">
                  {total !== undefined ? `#${total - index}` : ""}{" "}
                  <span class="muted">v{change.version}</span>
                </span>
                <span class="what">
                  {OPS[change.op]}
                  {change.from_key ? ` from ${shortPath(change.from_key)}` : ""}
                  {change.command ? <span class="muted"> · {change.command}</span> : null}
                  {change.actor ? <span class="muted"> by {change.actor}</span> : null}
                </span>
                <Time iso={change.at} />
              </button>
            </li>
          ))}
          {history.nextBefore !== null ? (
            <li>
              <button
                type="button"
                class="quiet"
                onClick={() => void app.loadHistory(history.nextBefore ?? undefined)}
              >
                Older changes…
              </button>
            </li>
          ) : null}
        </ol>
        <div class="version-detail">
          <NoticeLine notice={history.notice} id="history-notice" />
          {selected === undefined ? null : (
            <>
              <p class="detail-title">What version {selected.version} changed:</p>
              {selected.op === "delete" ? (
                <p class="muted">The file was deleted.</p>
              ) : history.diff === undefined ? (
                <p class="muted">Loading…</p>
              ) : history.first ? (
                <p class="muted">
                  The oldest version kept of this file: there is none before it to compare.
                </p>
              ) : (
                <DiffView unified={history.diff} label={`Changes of version ${selected.version}`} />
              )}
              {state.api?.canWrite &&
              selected.op !== "delete" &&
              selected.key === file.key &&
              history.selected !== 0 ? (
                <div class="actions">
                  <button type="button" class="primary" onClick={() => void app.restoreVersion()}>
                    Restore this version
                  </button>
                </div>
              ) : null}
            </>
          )}
        </div>
      </div>
    </section>
  );
}
