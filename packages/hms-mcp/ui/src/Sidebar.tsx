/**
 * The sidebar: the namespace, recall's field (its results fill the main pane), and the files
 * or the deleted files, one list at a time (both within reach at the top, with their counts).
 * The files can be filtered by name (the quick open: `o`, type, Enter). The tree is an ARIA
 * tree: arrow keys move between rows, Right and Left open and close folders, Enter opens a
 * file. A row shows a file's size; when it changed is on hover (and read out), as most rows
 * would say the same.
 */
import { useRef } from "preact/hooks";
import { Kbd, NoticeLine, Time } from "./bits.js";
import { useInspector } from "./hooks.js";
import { StorePlace } from "./StorePlace.js";
import type { Inspector } from "./state.js";
import { exactTime, humanBytes, relativeTime } from "./time.js";
import { buildTree, filterFiles, shortPath, treeRows } from "./tree.js";

export function Sidebar({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const files = state.tree?.files;
  const deleted = state.deleted?.length;
  const tab = (list: "files" | "deleted", label: string, count: number | undefined) => (
    <button
      type="button"
      role="tab"
      id={`${list}-tab`}
      class="tab"
      aria-selected={state.list === list}
      aria-controls={`${list}-panel`}
      onClick={() => app.showList(list)}
    >
      {label}
      {count === undefined ? "" : ` (${count})`}
    </button>
  );
  return (
    <nav class="sidebar" aria-label="Memory files">
      <NamespaceSwitch app={app} />
      <Recall app={app} />
      <div role="tablist" aria-label="Lists" class="tabs list-tabs">
        {tab("files", "Files", files)}
        {tab("deleted", "Deleted", deleted)}
      </div>
      <NoticeLine notice={state.filesNotice} id="files-notice" />
      {state.list === "files" ? (
        <section class="files" id="files-panel" role="tabpanel" aria-labelledby="files-tab">
          <div class="filter-row">
            <Filter app={app} />
            {state.api?.canWrite ? (
              <button
                type="button"
                class="small"
                onClick={() => app.openDialog("new")}
                aria-keyshortcuts="n"
              >
                New file <Kbd>n</Kbd>
              </button>
            ) : null}
            <button type="button" class="small quiet" onClick={() => void app.refreshFiles()}>
              Refresh
            </button>
          </div>
          <Tree app={app} />
        </section>
      ) : (
        <Deleted app={app} />
      )}
    </nav>
  );
}

/** The quick open: a part of a file's path; Enter opens the first file it lists. */
function Filter({ app }: { app: Inspector }) {
  const state = useInspector(app);
  if ((state.files?.length ?? 0) === 0 && state.filter === "") return <span class="filter" />;
  return (
    <div class="filter">
      <label for="filter" class="visually-hidden">
        Find a file by name
      </label>
      <input
        id="filter"
        type="search"
        placeholder="Find a file (o)"
        aria-keyshortcuts="o"
        autocomplete="off"
        spellcheck={false}
        value={state.filter}
        onInput={(event) => app.setFilter((event.currentTarget as HTMLInputElement).value)}
        onKeyDown={(event) => {
          if (event.key === "Enter") {
            event.preventDefault();
            app.openFirstMatch();
          } else if (event.key === "ArrowDown") {
            event.preventDefault();
            document.querySelector<HTMLElement>(".tree [role=treeitem]")?.focus();
          } else if (event.key === "Escape" && state.filter !== "") {
            event.preventDefault();
            app.setFilter("");
          }
        }}
      />
    </div>
  );
}

function NamespaceSwitch({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const api = state.api;
  if (api === undefined) return null;
  const names = api.namespaces.namespaces.map((n) => n.name);
  if (!api.namespaces.namespace_arg || names.length < 2) {
    return (
      <p class="namespace-line">
        Namespace <strong>{api.namespace}</strong>
        {api.canWrite ? null : <span class="badge">read-only</span>}
      </p>
    );
  }
  return (
    <div class="namespace-line">
      <label for="namespace">Namespace</label>
      <select
        id="namespace"
        value={api.namespace}
        onChange={(event) =>
          void app.switchNamespace((event.currentTarget as HTMLSelectElement).value)
        }
      >
        {names.map((name) => (
          <option key={name} value={name}>
            {name}
            {name === api.namespaces.default ? " (default)" : ""}
          </option>
        ))}
      </select>
      {api.canWrite ? null : <span class="badge">read-only</span>}
    </div>
  );
}

function Recall({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const hits = state.hits?.length ?? 0;
  return (
    <search class="recall">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void app.recall();
        }}
      >
        <label for="query">
          Recall <Kbd>/</Kbd>
        </label>
        <div class="search-row">
          <textarea
            id="query"
            rows={1}
            value={state.query}
            placeholder="What are you looking for?"
            onInput={(event) => {
              const field = event.currentTarget as HTMLTextAreaElement;
              app.setQuery(field.value);
            }}
            onKeyDown={(event) => {
              if (event.key === "Enter" && !event.shiftKey) {
                event.preventDefault();
                void app.recall();
              }
              if (event.key === "Escape") app.clearRecall();
              // ↓ goes to the results (from a one-line query: in a longer one it moves the caret).
              if (event.key === "ArrowDown" && state.showHits && !state.query.includes("\n")) {
                const first = document.querySelector<HTMLElement>("main .hit");
                if (first !== null) {
                  event.preventDefault();
                  first.focus();
                }
              }
            }}
          />
          <button type="submit">Search</button>
        </div>
      </form>
      {state.hits !== undefined && !state.showHits ? (
        <button type="button" class="small quiet" onClick={() => app.showResults()}>
          Back to the results ({hits})
        </button>
      ) : null}
    </search>
  );
}

function Tree({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const list = useRef<HTMLDivElement>(null);
  if (state.tree === undefined) return <p class="muted">Loading…</p>;
  const filtering = state.filter.trim() !== "";
  // While filtering, every folder of a file that matches is open.
  const rows = filtering
    ? treeRows(buildTree(filterFiles(state.files ?? [], state.filter)), new Set())
    : treeRows(state.tree, state.collapsed);
  if (rows.length === 0 && filtering) {
    return <p class="muted">No file's path holds “{state.filter.trim()}”.</p>;
  }
  if (rows.length === 0) {
    return (
      <div class="empty-state">
        <p>
          <strong>No memory files in {state.api?.namespace} yet.</strong>
        </p>
        <p>
          Claude writes them here with its memory tool. You can also copy a folder in with{" "}
          <code>hms import --from ./my-memories</code>
          {state.api?.canWrite ? (
            <>
              , or make one here with <em>New file</em> (<kbd>n</kbd>).
            </>
          ) : (
            "."
          )}
        </p>
        <p>
          <StorePlace app={app} long />
        </p>
      </div>
    );
  }
  const openKey = state.file?.key ?? state.route.file;
  const focusRow = (index: number) => {
    const items = list.current?.querySelectorAll<HTMLElement>("[role=treeitem]");
    const target = items?.[Math.max(0, Math.min(index, items.length - 1))];
    target?.focus();
  };
  // One row is in the Tab order: the open file's, or the first.
  const current = Math.max(
    0,
    rows.findIndex((row) => row.node.kind === "file" && row.node.key === openKey),
  );
  return (
    <div class="tree" role="tree" aria-label="Memory files" ref={list}>
      {rows.map((row, index) => {
        const node = row.node;
        const isFolder = node.kind === "folder";
        const expanded = isFolder ? !state.collapsed.has(node.path) : undefined;
        const selected = !isFolder && node.key === openKey;
        const activate = () => {
          if (isFolder) app.toggleFolder(node.path);
          else app.open(node.key);
        };
        return (
          <div
            key={isFolder ? node.path : node.key}
            role="treeitem"
            aria-level={row.depth + 1}
            aria-expanded={expanded}
            aria-selected={selected}
            aria-current={selected ? "page" : undefined}
            tabIndex={index === current ? 0 : -1}
            class={`row depth-${Math.min(row.depth, 8)}${selected ? " selected" : ""}${isFolder ? " folder" : " file"}`}
            title={
              isFolder
                ? undefined
                : `${shortPath(node.key)}, changed ${relativeTime(node.entry.updated_at)} (${exactTime(node.entry.updated_at)})`
            }
            onClick={activate}
            onKeyDown={(event) => {
              const key = event.key;
              if (key === "ArrowDown") focusRow(index + 1);
              else if (key === "ArrowUp") focusRow(index - 1);
              else if (key === "Home") focusRow(0);
              else if (key === "End") focusRow(rows.length - 1);
              else if (key === "Enter" || key === " ") activate();
              else if (key === "ArrowRight" && isFolder && !expanded) app.toggleFolder(node.path);
              else if (key === "ArrowLeft" && isFolder && expanded) app.toggleFolder(node.path);
              else return;
              event.preventDefault();
            }}
          >
            <span class="twisty" aria-hidden="true">
              {isFolder ? (expanded ? "▾" : "▸") : ""}
            </span>
            <span class="label">{isFolder ? `${node.name}/` : node.name}</span>
            <span class="meta">
              {isFolder ? (
                `${node.files} ${node.files === 1 ? "file" : "files"} · ${humanBytes(node.bytes)}`
              ) : (
                <>
                  {humanBytes(node.entry.bytes)}
                  <span class="visually-hidden">
                    , changed {relativeTime(node.entry.updated_at)}
                  </span>
                </>
              )}
            </span>
          </div>
        );
      })}
    </div>
  );
}

function Deleted({ app }: { app: Inspector }) {
  const state = useInspector(app);
  return (
    <section class="deleted" id="deleted-panel" role="tabpanel" aria-labelledby="deleted-tab">
      <NoticeLine notice={state.deletedNotice} />
      {state.deleted === undefined ? (
        <p class="muted">Loading…</p>
      ) : state.deleted.length === 0 ? (
        <p class="muted">No deleted files in the history.</p>
      ) : (
        <ul class="deleted-list">
          {state.deleted.map((file) => (
            <li key={file.key}>
              <span class="label">{shortPath(file.key)}</span>
              <span class="meta">
                deleted <Time iso={file.at} /> · {humanBytes(file.bytes)}
              </span>
              {state.api?.canWrite ? (
                <button
                  type="button"
                  class="small"
                  aria-label={`Restore ${file.key}`}
                  onClick={() => void app.restoreDeleted(file)}
                >
                  Restore
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
