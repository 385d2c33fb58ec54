import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MEMORY_ROOT } from "@hms/memory-paths";
import { CliError, EXIT } from "../errors.js";
import type { Output } from "../output.js";

/** `hms mv from to`: renames a file or a directory, in one transaction. */
export async function mv(
  backend: HmsMemoryBackend,
  from: string,
  to: string,
  out: Output,
): Promise<void> {
  if (from === MEMORY_ROOT || to === MEMORY_ROOT) {
    throw new CliError(`${MEMORY_ROOT} itself cannot be moved or replaced`, EXIT.usage);
  }
  const { moved } = await backend.call("move", { from, to, tree: true });
  out.result(
    { from, to, moved },
    () => `moved ${from} to ${to} (${moved} file${moved === 1 ? "" : "s"})`,
  );
}
