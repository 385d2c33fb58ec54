/**
 * A file's history: its versions, newest first; for the one selected, what it changed and its
 * whole text, which is what "Restore this version" brings back (shown before, never blind).
 */
import { NoticeLine, Time } from "./bits.js";
import { DiffView } from "./DiffView.js";
import { useInspector } from "./hooks.js";
import type { Inspector } from "./state.js";
import { shortPath } from "./tree.js";

export const VERSION_NOTE =
  "Version numbers count every change in this namespace, so one file's versions skip numbers.";

const OPS = { create: "created", update: "edited", move: "moved", delete: "deleted" } as const;

export function HistoryView({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const history = state.history;
  const file = state.file;
  if (history === undefined || file === undefined) return <p class="muted">Loading the history…</p>;
  const { changes } = history;
  const selected = history.selected === undefined ? undefined : changes[history.selected];
  const oldest = changes[changes.length - 1];
  const truncated = history.nextBefore === null && oldest !== undefined && oldest.op === "update";
  const total = history.nextBefore === null ? changes.length : undefined;
  const restorable =
    state.api?.canWrite === true &&
    selected !== undefined &&
    selected.op !== "delete" &&
    selected.key === file.key &&
    history.selected !== 0;
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
                onClick={() => void app.history.select(index)}
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
                onClick={() => void app.history.load(history.nextBefore ?? undefined)}
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
              {history.text === undefined ? null : history.text.kind === "text" ? (
                <section class="version-text" aria-labelledby="version-text-title">
                  <p class="detail-title" id="version-text-title">
                    {history.selected === 0
                      ? `The text of version ${selected.version}, the file as it is now:`
                      : `The text of version ${selected.version}, which restoring brings back:`}
                  </p>
                  <pre data-testid="version-text">{history.text.text}</pre>
                </section>
              ) : (
                <p class="muted">{history.text.reason}</p>
              )}
              {restorable ? (
                <div class="actions">
                  <button type="button" onClick={() => void app.history.restore()}>
                    Restore this version
                  </button>
                  <span class="muted small-text">
                    Its text becomes the file's newest version; nothing is lost.
                  </span>
                </div>
              ) : null}
            </>
          )}
        </div>
      </div>
    </section>
  );
}
