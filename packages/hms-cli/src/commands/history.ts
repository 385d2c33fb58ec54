import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MEMORY_ROOT } from "@hms/memory-paths";
import type { ToolResult } from "@hms/protocol";
import { pathKind } from "../memories.js";
import type { Output } from "../output.js";

/** Why the server's history dropped changes, as `hms history` says it. */
const WHY: Record<NonNullable<ToolResult<"history">["dropped"]>[number]["reason"], string> = {
  bytes: "to keep the history within its size (hms-mcp --keep-mib)",
  disk_full: "to make room on a full disk",
  versions: "beyond the versions kept of each file (hms-mcp --keep-versions)",
  days: "older than the days kept (hms-mcp --keep-days)",
};

/**
 * `hms history path`: a file's changes (its versions, moves in and out), or with a
 * directory every change under it (`--since` a time), newest first; then what the server's
 * history dropped and why, when it did (older changes may be missing).
 */
export async function history(
  backend: HmsMemoryBackend,
  path: string,
  options: { since?: string; limit: number },
  out: Output,
): Promise<void> {
  const kind = path === MEMORY_ROOT ? "directory" : await pathKind(backend, path);
  const ofDirectory = () =>
    backend.call("history", {
      prefix: `${path}/`,
      limit: options.limit,
      ...(options.since === undefined ? {} : { since: options.since }),
    });
  let answer = kind === "directory" ? await ofDirectory() : undefined;
  if (answer === undefined) {
    answer = await backend.call("history", { key: path, limit: options.limit });
    // A path that exists no more was a file (its history says so) or a directory.
    if (kind === "missing" && answer.changes.length === 0) answer = await ofDirectory();
  }
  const shown = answer;
  out.result(shown, () => {
    const dropped = (shown.dropped ?? []).map(
      (drop) =>
        `\n(older changes may be missing: ${drop.changes} dropped, made up to ` +
        `${drop.through.replace("T", " ").replace(/\.\d+Z$/, "Z")}, ${WHY[drop.reason]})`,
    );
    return changesTable(shown, path, out) + dropped.join("");
  });
}

/** The changes as a table, newest first. */
function changesTable(shown: ToolResult<"history">, path: string, out: Output): string {
  if (shown.changes.length === 0) return `no changes recorded for ${path}`;
  const rows = shown.changes.map((change) => [
    change.at.replace("T", " ").replace(/\.\d+Z$/, "Z"),
    `v${change.version}`,
    change.op,
    change.from_key === null ? change.key : `${change.from_key} -> ${change.key}`,
    [change.command, change.actor].filter(Boolean).join(" by "),
  ]);
  const table = out.table(["WHEN", "VERSION", "CHANGE", "PATH", "BY"], rows);
  return shown.next_before === null ? table : `${table}\n(older changes: --limit more)`;
}
