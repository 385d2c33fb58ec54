import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { MEMORY_FILE_TAG } from "@hms/protocol";
import type { Output } from "../output.js";

/** `hms recall "query"`: the memory files that best answer it, with the lines to read. */
export async function recall(
  backend: HmsMemoryBackend,
  query: string,
  options: { k: number; prefix?: string },
  out: Output,
): Promise<void> {
  const { hits } = await backend.call("recall", {
    query,
    k: options.k,
    tag: MEMORY_FILE_TAG,
    ...(options.prefix === undefined ? {} : { prefix: `${options.prefix}/` }),
  });
  out.result(hits, () => {
    if (hits.length === 0) return "no memory matches";
    return hits
      .map((hit) => {
        const where = `${hit.key}:${hit.line_start}-${hit.line_end}`;
        const excerpt = hit.excerpt
          .split("\n")
          .map((line) => `    ${line}`)
          .join("\n");
        return `${out.colors.bold(where)}  ${out.colors.dim(`score ${hit.score.toFixed(3)}`)}\n${excerpt}`;
      })
      .join("\n\n");
  });
}
