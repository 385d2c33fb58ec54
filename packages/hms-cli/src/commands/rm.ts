import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MEMORY_ROOT } from "@hms/memory-paths";
import { CliError, EXIT } from "../errors.js";
import { pathKind } from "../memories.js";
import type { Output } from "../output.js";

/** `hms rm [-r] path`: deletes a file, or with -r a directory and everything under it. */
export async function rm(
  backend: HmsMemoryBackend,
  path: string,
  options: { recursive: boolean },
  out: Output,
): Promise<void> {
  if (path === MEMORY_ROOT) {
    throw new CliError(
      `refusing to delete ${MEMORY_ROOT} itself; delete what is in it`,
      EXIT.usage,
    );
  }
  const kind = await pathKind(backend, path);
  if (kind === "missing") throw new CliError(`${path} does not exist`);
  if (kind === "directory" && !options.recursive) {
    throw new CliError(`${path} is a directory: use rm -r to delete it and what is under it`);
  }
  // One transaction on the server either way: a directory goes entirely or not at all.
  const { deleted } = await backend.call("forget", { key: path, tree: true });
  out.result(
    { path, deleted },
    () => `deleted ${path} (${deleted} file${deleted === 1 ? "" : "s"})`,
  );
}
