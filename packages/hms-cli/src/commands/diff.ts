import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { CliError } from "../errors.js";
import type { Output } from "../output.js";

/**
 * `hms diff path [v1] [v2]`: what changed between two versions of a file; with one version,
 * between it and the file now; with none, the file's last change.
 */
export async function diff(
  backend: HmsMemoryBackend,
  path: string,
  versions: number[],
  out: Output,
): Promise<void> {
  let [from, to] = versions;
  if (from === undefined) {
    const { changes } = await backend.call("history", { key: path, limit: 2 });
    const previous = changes[1];
    if (previous === undefined)
      throw new CliError(`${path} has no earlier version to compare with`);
    from = previous.version;
  }
  const answer = await backend.call("diff", {
    key: path,
    from_version: from,
    ...(to === undefined ? {} : { to_version: to }),
  });
  out.result(answer, () => {
    if (answer.unified === "")
      return `versions ${answer.from_version} and ${answer.to_version} have the same text`;
    return coloredDiff(answer.unified, out);
  });
}

/** A unified diff with its added lines green and its removed lines red (when colours are on). */
export function coloredDiff(unified: string, out: Output): string {
  return unified
    .split("\n")
    .map((line) => {
      if (line.startsWith("+++") || line.startsWith("---")) return out.colors.bold(line);
      if (line.startsWith("+")) return out.colors.green(line);
      if (line.startsWith("-")) return out.colors.red(line);
      if (line.startsWith("@@")) return out.colors.cyan(line);
      return line;
    })
    .join("\n");
}
