import { setTimeout as sleep } from "node:timers/promises";
import type { HmsMemoryBackend } from "@hms/memory-backend-hms";
import { CliError } from "../errors.js";
import type { Output } from "../output.js";
import { progressBar } from "../progress.js";

const POLL_MS = 500;

/**
 * `hms reembed --model-dir DIR`: gives every memory of a local store vectors of that
 * embedding model (replacing another model's; see openTarget's `reembed`), showing progress
 * until none is waiting. The work is hms-mcp's embedding worker's; this waits and reports.
 */
export async function reembed(backend: HmsMemoryBackend, out: Output): Promise<void> {
  const started = Date.now();
  let stats = await backend.stats();
  if (stats.recall.build !== "hybrid" || stats.recall.model === null) {
    throw new CliError(
      stats.recall.failure ??
        "the server did not load the embedding model, so nothing can be embedded",
    );
  }
  const progress = progressBar("reembed", out);
  progress.start(stats.memories);
  try {
    while (stats.recall.pending > 0) {
      if (stats.recall.failure) throw new CliError(`embedding stopped: ${stats.recall.failure}`);
      progress.update(stats.recall.embedded ?? stats.memories - stats.recall.pending);
      await sleep(POLL_MS);
      stats = await backend.stats();
    }
  } finally {
    progress.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  const result = {
    model: stats.recall.model,
    memories: stats.memories,
    embedded: stats.recall.embedded ?? stats.memories,
    seconds,
  };
  out.result(
    result,
    () =>
      `every memory of namespace ${stats.namespace} has vectors of ${stats.recall.model} ` +
      `(${result.embedded} of ${stats.memories} memories; ${seconds.toFixed(1)} s)`,
  );
}
