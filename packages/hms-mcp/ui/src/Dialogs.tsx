/**
 * The dialogs: a new file, a rename, a delete to confirm, a line to go to, and the keys. Each
 * is a modal <dialog>: focus stays inside, Escape closes it, and a refusal is shown under its
 * field.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { NoticeLine } from "./bits.js";
import { useInspector } from "./hooks.js";
import { keyFromName } from "./names.js";
import { splitLines } from "./split-lines.js";
import type { Inspector } from "./state.js";
import { shortPath } from "./tree.js";

export function Dialogs({ app }: { app: Inspector }) {
  const state = useInspector(app);
  switch (state.dialog) {
    case "new":
      return <NewFile app={app} />;
    case "rename":
      return <Rename app={app} />;
    case "delete":
      return <Delete app={app} />;
    case "goto":
      return <GoTo app={app} />;
    case "help":
      return <Help app={app} />;
    default:
      return null;
  }
}

function Modal({
  app,
  title,
  children,
  onSubmit,
}: {
  app: Inspector;
  title: string;
  children: ComponentChildren;
  onSubmit?: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element !== null && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog
      ref={dialog}
      aria-labelledby="dialog-title"
      onClose={() => app.closeDialog()}
      onCancel={(event) => {
        event.preventDefault();
        app.closeDialog();
      }}
    >
      <form
        method="dialog"
        onSubmit={(event) => {
          if (onSubmit === undefined) return;
          event.preventDefault();
          onSubmit();
        }}
      >
        <h2 id="dialog-title">{title}</h2>
        {children}
      </form>
    </dialog>
  );
}

function NameField({
  app,
  label,
  initial,
  onName,
  submit,
}: {
  app: Inspector;
  label: string;
  initial: string;
  onName: (key: string) => void;
  submit: string;
}) {
  const state = useInspector(app);
  const [value, setValue] = useState(initial);
  return (
    <>
      <label for="file-name">{label}</label>
      <div class="path-field">
        <span class="prefix" aria-hidden="true">
          /memories/
        </span>
        <input
          id="file-name"
          type="text"
          value={value}
          // biome-ignore lint/a11y/noAutofocus: a dialog opened to type a name
          autoFocus
          aria-describedby="dialog-notice"
          aria-invalid={state.dialogNotice?.kind === "error"}
          spellcheck={false}
          autocomplete="off"
          onInput={(event) => setValue((event.currentTarget as HTMLInputElement).value)}
        />
      </div>
      <NoticeLine notice={state.dialogNotice} id="dialog-notice" />
      <div class="actions">
        <button
          type="submit"
          class="primary"
          disabled={state.busy}
          onClick={(event) => {
            event.preventDefault();
            const checked = keyFromName(value);
            if ("problem" in checked) app.dialogProblem(checked.problem);
            else onName(checked.key);
          }}
        >
          {submit}
        </button>
        <button type="button" class="quiet" onClick={() => app.closeDialog()}>
          Cancel
        </button>
      </div>
    </>
  );
}

function NewFile({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const folder = state.file ? shortPath(state.file.key).replace(/[^/]*$/, "") : "";
  return (
    <Modal app={app} title="New memory file">
      <p class="muted">
        A path under /memories/; folders are made as needed. Markdown (.md) is usual.
      </p>
      <NameField
        app={app}
        label="Path"
        initial={folder}
        submit="Create"
        onName={(key) => void app.createFile(key)}
      />
    </Modal>
  );
}

function Rename({ app }: { app: Inspector }) {
  const state = useInspector(app);
  if (state.file === undefined) return null;
  return (
    <Modal app={app} title={`Rename ${shortPath(state.file.key)}`}>
      <p class="muted">The file keeps its text and history; a new path may be in another folder.</p>
      <NameField
        app={app}
        label="New path"
        initial={shortPath(state.file.key)}
        submit="Rename"
        onName={(key) => void app.renameFile(key)}
      />
    </Modal>
  );
}

function Delete({ app }: { app: Inspector }) {
  const state = useInspector(app);
  if (state.file === undefined) return null;
  return (
    <Modal
      app={app}
      title={`Delete ${shortPath(state.file.key)}?`}
      onSubmit={() => void app.deleteFile()}
    >
      <p>
        Claude will no longer see it. Its history is kept: it stays listed under <em>Deleted</em>,
        where it can be restored.
      </p>
      <NoticeLine notice={state.dialogNotice} id="dialog-notice" />
      <div class="actions">
        <button type="submit" class="primary danger" disabled={state.busy}>
          Delete
        </button>
        {/* biome-ignore lint/a11y/noAutofocus: the safe choice has the focus */}
        <button type="button" class="quiet" autoFocus onClick={() => app.closeDialog()}>
          Keep it
        </button>
      </div>
    </Modal>
  );
}

function GoTo({ app }: { app: Inspector }) {
  const state = useInspector(app);
  const lines = Math.max(1, splitLines(state.file?.text ?? "").length);
  const [value, setValue] = useState("");
  return (
    <Modal
      app={app}
      title="Go to line"
      onSubmit={() => {
        const line = Number(value);
        if (!Number.isInteger(line) || line < 1 || line > lines) {
          app.dialogProblem(`Type a line number from 1 to ${lines}.`);
          return;
        }
        app.goToLine(line);
      }}
    >
      <label for="line-number">Line (1 to {lines})</label>
      <input
        id="line-number"
        type="text"
        inputMode="numeric"
        value={value}
        // biome-ignore lint/a11y/noAutofocus: a dialog opened to type a number
        autoFocus
        aria-describedby="dialog-notice"
        onInput={(event) => setValue((event.currentTarget as HTMLInputElement).value)}
      />
      <NoticeLine notice={state.dialogNotice} id="dialog-notice" />
      <div class="actions">
        <button type="submit" class="primary">
          Go
        </button>
        <button type="button" class="quiet" onClick={() => app.closeDialog()}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}

const KEYS: readonly [string, string][] = [
  ["/", "Recall: search the memory files"],
  ["o", "Open a file by name (type part of its path, Enter opens the first)"],
  ["n", "New file"],
  ["t", "Go to the file list (then ↑ ↓ → ← Enter)"],
  ["l", "The open file's lines"],
  ["p", "Markdown preview"],
  ["h", "History (then Tab to a version, Enter shows its change)"],
  ["e", "Edit; Ctrl+S saves"],
  ["r", "Rename"],
  ["d", "Delete"],
  ["g", "Go to line"],
  ["?", "These keys"],
  ["Esc", "Close a dialog"],
];

function Help({ app }: { app: Inspector }) {
  return (
    <Modal app={app} title="Keyboard">
      <dl class="keys">
        {KEYS.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <div class="actions">
        {/* biome-ignore lint/a11y/noAutofocus: the only control */}
        <button type="button" class="primary" autoFocus onClick={() => app.closeDialog()}>
          Close
        </button>
      </div>
    </Modal>
  );
}
