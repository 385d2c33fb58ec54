import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MEMORY_ROOT } from "@hms/memory-paths";
import { CliError, EXIT } from "../errors.js";
import { getMemory, pathKind } from "../memories.js";
import type { Output } from "../output.js";

/**
 * `hms restore path --version N | --at TIME`: a file back to a version of it (or to how it
 * was at a time), or a directory back to a time; recorded as new versions, so the restore can
 * itself be undone. The command line gives exactly one of `version` and `at`.
 */
export async function restore(
  backend: HmsMemoryBackend,
  path: string,
  options: { version?: number; at?: string },
  out: Output,
): Promise<void> {
  const directory = path === MEMORY_ROOT || (await pathKind(backend, path)) === "directory";
  if (directory && options.at === undefined) {
    throw new CliError(`${path} is a directory: restore it to a time with --at`, EXIT.usage);
  }
  const before = directory ? undefined : (await getMemory(backend, path))?.version;
  const answer = await backend.call("restore", {
    key: path,
    ...(options.version === undefined ? {} : { version: options.version }),
    ...(options.at === undefined ? {} : { at: options.at }),
    ...(directory ? { tree: true } : {}),
  });
  out.result(answer, () => {
    // hms-mcp leaves a file that already holds what it would get back alone.
    const lines = [
      ...answer.restored.map((file) =>
        file.version === before
          ? `${file.key} already is as it was then (version ${file.version}): nothing written`
          : `restored ${file.key} as version ${file.version}`,
      ),
      ...answer.deleted.map((key) => `deleted ${key} (it did not exist then)`),
      ...answer.unknown.map((key) => `left ${key} as it is (its history does not reach back)`),
    ];
    return lines.length === 0
      ? `nothing to restore: every file under ${path} is as it was then`
      : lines.join("\n");
  });
}
