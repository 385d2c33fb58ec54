import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MEMORY_FILE_TAG } from "@hms/protocol";
import type { Output } from "../output.js";

/**
 * `hms recall "query"`: the memory files that best answer it, with the lines to read and when
 * each last changed; `since` and `before` (ISO 8601 times) keep only the files last changed at
 * or after the one and before the other.
 */
export async function recall(
  backend: HmsMemoryBackend,
  query: string,
  options: { k: number; prefix?: string; since?: string; before?: string },
  out: Output,
): Promise<void> {
  const { hits } = await backend.call("recall", {
    query,
    k: options.k,
    tag: MEMORY_FILE_TAG,
    ...(options.prefix === undefined ? {} : { prefix: `${options.prefix}/` }),
    ...(options.since === undefined ? {} : { modified_after: options.since }),
    ...(options.before === undefined ? {} : { modified_before: options.before }),
  });
  out.result(hits, () => {
    if (hits.length === 0) {
      return options.since === undefined && options.before === undefined
        ? "no memory matches"
        : "no memory changed in that time matches";
    }
    return hits
      .map((hit) => {
        const where = `${hit.key}:${hit.line_start}-${hit.line_end}`;
        const when = hit.updated_at === undefined ? "" : `  modified ${hit.updated_at}`;
        const excerpt = hit.excerpt
          .split("\n")
          .map((line) => `    ${line}`)
          .join("\n");
        return `${out.colors.bold(where)}  ${out.colors.dim(`score ${hit.score.toFixed(3)}${when}`)}\n${excerpt}`;
      })
      .join("\n\n");
  });
}
