/**
 * The sidebar: the namespace, recall, the tree of memory files and the deleted ones. The tree
 * is an ARIA tree: arrow keys move between rows, Right and Left open and close folders, Enter
 * opens a file.
 */
import { useRef } from "preact/hooks";
import { Kbd, NoticeLine, Time } from "./bits.js";
import { useInspector } from "./hooks.js";
import { formatRoute } from "./route.js";
import type { Inspector } from "./state.js";
import { humanBytes } from "./time.js";
import { shortPath, treeRows } from "./tree.js";

export function Sidebar({ app }: { app: Inspector }) {
  const state = useInspector(app);
  return (
    <nav class="sidebar" aria-label="Memory files">
      <NamespaceSwitch app={app} />
      <Recall app={app} />
      <section class="files" aria-labelledby="files-title">
        <div class="section-head">
          <h2 id="files-title">Files</h2>
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
        <NoticeLine notice={state.filesNotice} id="files-notice" />
        <Tree app={app} />
      </section>
      <Deleted app={app} />
    </nav>
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
            }}
          />
          <button type="submit">Search</button>
        </div>
      </form>
      <NoticeLine notice={state.searchNotice} />
      {state.hits && state.hits.length > 0 ? (
        <ol class="hits" aria-label="Recall results">
          {state.hits.map((hit) => {
            const path = shortPath(hit.key);
            const slash = path.lastIndexOf("/");
            return (
              <li key={`${hit.key}:${hit.line_start}`}>
                <a
                  class="hit"
                  href={formatRoute({
                    namespace: state.api?.namespace,
                    file: hit.key,
                    line: hit.line_start,
                    end: hit.line_end,
                  })}
                >
                  <span class="hit-path">
                    {slash >= 0 ? <span class="dir">{path.slice(0, slash + 1)}</span> : null}
                    <span class="name">{path.slice(slash + 1)}</span>
                  </span>
                  <span class="hit-lines">
                    lines {hit.line_start}–{hit.line_end}
                  </span>
                  <span class="excerpt">{hit.excerpt}</span>
                </a>
              </li>
            );
          })}
        </ol>
      ) : null}
    </search>
  );
}

function Tree({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const list = useRef<HTMLDivElement>(null);
  if (state.tree === undefined) return <p class="muted">Loading…</p>;
  const rows = treeRows(state.tree, state.collapsed);
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
                `${node.files} · ${humanBytes(node.bytes)}`
              ) : (
                <>
                  <Time iso={node.entry.updated_at} /> · {humanBytes(node.entry.bytes)}
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
  const shown = state.deleted !== undefined;
  return (
    <section class="deleted" aria-labelledby="deleted-title">
      <div class="section-head">
        <h2 id="deleted-title">Deleted</h2>
        <button
          type="button"
          class="small quiet"
          aria-expanded={shown}
          onClick={() => (shown ? app.hideDeleted() : void app.loadDeleted())}
        >
          {shown ? "Hide" : "Show"}
        </button>
      </div>
      <NoticeLine notice={state.deletedNotice} />
      {shown ? (
        state.deleted?.length === 0 ? (
          <p class="muted">No deleted files in the history.</p>
        ) : (
          <ul class="deleted-list">
            {state.deleted?.map((file) => (
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
        )
      ) : null}
    </section>
  );
}
