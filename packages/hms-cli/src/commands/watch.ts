import type { HmsMemoryBackend, MemoryChange } from "@hms/memory-backend-hms";
import { untilInterrupted } from "../interrupt.js";
import type { Output } from "../output.js";

/** A change as one line of text: `update /memories/a.md`, `move /memories/a.md -> /memories/b.md`. */
export function changeLine(change: MemoryChange): string {
  if (change.op === "move") return `move ${change.fromPath} -> ${change.path}`;
  if (change.op === "overflow") {
    return `overflow ${change.path} (more changed than could be told: read it again)`;
  }
  return `${change.op} ${change.path}`;
}

/**
 * `hms watch [path]`: prints each change to the file `path`, or to any file under the
 * directory `path`, as it happens (whoever makes it), one line each, or one JSON object a line
 * with --json (`{"op","path","from_path"}`), until Ctrl-C (or SIGTERM), when it ends as any
 * command does (exit 0).
 */
export async function watch(backend: HmsMemoryBackend, path: string, out: Output): Promise<void> {
  const stop = await backend.watch(path, (change) => {
    const line = out.json
      ? JSON.stringify({ op: change.op, path: change.path, from_path: change.fromPath })
      : changeLine(change);
    out.print(`${line}\n`);
  });
  out.note(`watching ${path} (Ctrl-C to stop)`);
  await untilInterrupted();
  // The server may have been interrupted too (the terminal signals the whole group).
  await stop().catch(() => {});
}
