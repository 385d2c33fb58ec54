import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { readFileAtMost } from "../bounded-read.js";
import { CliError } from "../errors.js";
import { onInterrupt, terminate, whileEditing } from "../interrupt.js";
import type { Io } from "../io.js";
import { boundedRefusal, getMemory, type MemoryRecord, utf8Text } from "../memories.js";
import type { Output } from "../output.js";
import { coloredDiff } from "./diff.js";
import { describeSave, refuseDirectory, save } from "./write.js";

/**
 * `hms edit path`: opens the file's text (empty for a new file) in $VISUAL or $EDITOR (else
 * vi, at a terminal), and saves what the editor leaves with compare-and-set on the version it opened. If the
 * file changed meanwhile, nothing is saved: the other change is shown, and the text typed is
 * kept in a file whose path is given, to merge by hand.
 */
export async function edit(backend: HmsMemoryBackend, path: string, out: Output): Promise<void> {
  // vi, the editor of last resort, waits for ever for keys that never come without a terminal
  // (a script, a pipe): an editor that needs none must be named.
  if (!out.io.env.VISUAL && !out.io.env.EDITOR && !(out.io.stdin.isTTY && out.io.stdout.isTTY)) {
    throw new CliError(
      `no editor: set EDITOR (vi needs a terminal, and this is not one), or write the file with \`hms write ${path} < FILE\``,
    );
  }
  await refuseDirectory(backend, path);
  const opened = await getMemory(backend, path);
  const before = opened?.text ?? "";
  // A private folder, and the file's own name, so the editor knows its kind (.md).
  const folder = mkdtempSync(join(tmpdir(), "hms-edit-"));
  const file = join(folder, basename(path));
  writeFileSync(file, before, { mode: 0o600 });
  const keep = (why: string) => `${why}; your text is kept at ${file}`;

  const stopKeeping = onInterrupt(() => out.note(keep("not saved")));
  try {
    const status = await whileEditing(() => runEditor(file, out.io.env));
    if (status !== 0) throw new CliError(keep(`the editor exited with ${status}; nothing saved`));
    // Bounded: an editor may leave a file of any size (a paste, a command's output).
    const read = await readFileAtMost(file, backend.maxFileBytes);
    if (read.over) {
      const why = boundedRefusal(read, backend.maxFileBytes);
      throw new CliError(keep(`the text is ${why}; nothing saved`));
    }
    const text = utf8Text(read.bytes);
    if (text === undefined) throw new CliError(keep("the text is not UTF-8; nothing saved"));
    if (text === before) {
      rmSync(folder, { recursive: true, force: true });
      const unchanged = { key: path, version: opened?.version ?? null, saved: false };
      out.result(unchanged, () => `no change to ${path}; nothing saved`);
      return;
    }
    let saved: Awaited<ReturnType<typeof save>>;
    try {
      saved = await save(backend, path, text, opened);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== "VERSION_CONFLICT" && code !== "EXISTS" && code !== "NOT_FOUND") {
        throw error instanceof CliError ? new CliError(keep(error.message)) : error;
      }
      await showOtherChange(backend, path, opened, file, out);
      throw new CliError(keep(`${path} changed while you edited it; nothing saved`));
    }
    rmSync(folder, { recursive: true, force: true });
    out.result({ ...saved, saved: true }, () => describeSave(saved));
  } finally {
    stopKeeping();
  }
}

/** Runs the editor on `file` and resolves with its exit status (a signal counts as 128 + n). */
function runEditor(file: string, env: Io["env"]): Promise<number> {
  const editor = (env.VISUAL || env.EDITOR || "vi").trim();
  // A plain command runs as is; one with arguments ("code --wait") through the shell, as git does.
  const child = /^[\w@%+=:,./-]+$/.test(editor)
    ? spawn(editor, [file], { stdio: "inherit", env })
    : spawn("/bin/sh", ["-c", `${editor} "$1"`, editor, file], { stdio: "inherit", env });
  const stopEditor = onInterrupt(() => terminate(child.pid));
  return new Promise((resolve, reject) => {
    child.once("error", (error) => {
      stopEditor();
      reject(
        new CliError(
          `cannot run the editor ${JSON.stringify(editor)} (${(error as Error).message}); set EDITOR`,
        ),
      );
    });
    child.once("exit", (code, signal) => {
      stopEditor();
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}

/**
 * Shows what another writer did to the file since it was opened: the diff from the version
 * opened to the file now (or that it was deleted, or made while it did not exist).
 */
async function showOtherChange(
  backend: HmsMemoryBackend,
  path: string,
  opened: MemoryRecord | undefined,
  kept: string,
  out: Output,
): Promise<void> {
  const now = await getMemory(backend, path);
  const [last] = (await backend.call("history", { key: path, limit: 1 })).changes;
  const by = [last?.command, last?.actor].filter(Boolean).join(" by ");
  let unified: string;
  if (now === undefined) unified = "";
  else if (opened === undefined) unified = `+${now.text.split("\n").join("\n+")}`;
  else {
    const answer = await backend.call("diff", {
      key: path,
      from_version: opened.version,
      to_version: now.version,
    });
    unified = answer.unified;
  }
  const conflict = {
    key: path,
    saved: false,
    opened_version: opened?.version ?? null,
    current_version: now?.version ?? null,
    other_change: { by: by || null, unified, deleted: now === undefined },
    kept,
  };
  out.result(conflict, () => {
    const what =
      now === undefined
        ? "deleted it"
        : opened === undefined
          ? `created it (version ${now.version})`
          : `changed it from version ${opened.version} to ${now.version}`;
    const header = `another writer${by === "" ? "" : ` (${by})`} ${what} while you edited it:`;
    return unified === "" ? header : `${header}\n${coloredDiff(unified, out)}`;
  });
}
