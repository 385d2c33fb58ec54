/**
 * The editor of the open file, and the one panel a conflicting change shows: what they changed
 * (the diff, in view), and the three ways on (keep mine, copy my text, edit on top of theirs).
 */
import { useEffect, useRef } from "preact/hooks";
import { Kbd, NoticeLine } from "./bits.js";
import { DiffView } from "./DiffView.js";
import { useInspector } from "./hooks.js";
import type { Inspector } from "./state.js";

export function Editor({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const field = useRef<HTMLTextAreaElement>(null);
  const panel = useRef<HTMLHeadingElement>(null);
  const editing = state.editing;
  const file = state.file;
  const round = editing?.round;
  // The person asked to edit: the text gets the focus, the cursor where they were reading
  // (or at the end), in view.
  useEffect(() => {
    const element = field.current;
    const caret = app.state.editing?.caret;
    if (element === null || caret === undefined) return;
    element.focus({ preventScroll: true });
    element.setSelectionRange(caret, caret);
    const line = element.value.slice(0, caret).split("\n").length;
    const height = Number.parseFloat(getComputedStyle(element).lineHeight) || 20;
    element.scrollTop = Math.max(0, (line - 3) * height);
  }, [app, round]);
  const conflicted = editing?.conflict !== undefined;
  useEffect(() => {
    if (conflicted) panel.current?.focus();
  }, [conflicted]);
  if (editing === undefined || file === undefined) return null;
  const mine = () => field.current?.value ?? "";
  const save = () => void app.edit.save(mine());
  const copy = async () => {
    const text = mine();
    try {
      await navigator.clipboard.writeText(text);
      app.edit.copied(true);
    } catch {
      // No clipboard here (a page not served over https or from this machine): the text is
      // selected, for Ctrl+C.
      field.current?.focus();
      field.current?.select();
      app.edit.copied(false);
    }
  };
  const conflict = editing.conflict;
  return (
    <form
      class="editor"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      {conflict !== undefined ? (
        <section class="conflict" aria-labelledby="conflict-title">
          <h3 id="conflict-title" tabIndex={-1} ref={panel}>
            Changed meanwhile: not saved
          </h3>
          <p>
            Someone (Claude, perhaps) changed this file after you opened it: it is now version{" "}
            {conflict.theirs}. Your text is still in the editor below. What they changed since
            version {editing.from}:
          </p>
          <div class="conflict-diff">
            <DiffView unified={conflict.diff} label="What changed since you opened the file" />
          </div>
          <div class="actions">
            <button type="button" onClick={() => void app.edit.keepMine(mine())}>
              Keep mine
            </button>
            <button type="button" onClick={() => void copy()}>
              Copy my text
            </button>
            <button type="button" onClick={() => void app.edit.editTheirs(mine())}>
              Edit on top of theirs
            </button>
          </div>
          <p class="muted small-text">
            <em>Keep mine</em> saves your text over their change (only if nobody changed the file
            again). <em>Edit on top of theirs</em> puts their text in the editor and keeps yours
            beside it.
          </p>
          <NoticeLine notice={conflict.notice} id="conflict-notice" />
        </section>
      ) : null}
      <label for="editor-text">Text</label>
      <textarea
        key={editing.round}
        id="editor-text"
        ref={field}
        spellcheck={false}
        defaultValue={editing.text}
        onKeyDown={(event) => {
          if ((event.ctrlKey || event.metaKey) && (event.key === "s" || event.key === "Enter")) {
            event.preventDefault();
            save();
          }
          if (event.key === "Escape" && field.current?.value === editing.text) app.edit.cancel();
        }}
      />
      <div class="actions">
        <button type="submit" class="primary" aria-keyshortcuts="Control+S">
          Save <Kbd>Ctrl S</Kbd>
        </button>
        <button type="button" class="quiet" onClick={() => app.edit.cancel()}>
          Cancel
        </button>
        <span class="muted small-text">
          Saved only if nobody changed the file since version {editing.from}.
        </span>
      </div>
      {/* Below the buttons: told while the person may be about to click Save, it must not
          move the text or the buttons under their pointer. */}
      {state.stale && conflict === undefined ? (
        <p class="notice info" role="status">
          Someone changed this file while you edit it (it is now version {file.version}); saving
          will show you what changed.
        </p>
      ) : null}
      {editing.mine !== undefined ? (
        <details class="mine" open>
          <summary>Your text, not saved</summary>
          <pre>{editing.mine}</pre>
        </details>
      ) : null}
    </form>
  );
}
