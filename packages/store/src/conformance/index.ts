/**
 * @hms/store/conformance: the store's own conformance suite, which every engine (SQLite's
 * `Namespaces`, PostgreSQL's `PgEngine`) runs against itself. It checks the meaning of every
 * call of `StoreEngine` and `StoreApi` (engine.ts), as the SQLite engine defines it: results,
 * refusals with their codes, messages and details, versions, the memory-file rules, limits.
 *
 *   import { describe, it } from "vitest";
 *   import { runStoreConformance } from "@hms/store/conformance";
 *   runStoreConformance({ name: "sqlite", open: async () => new Namespaces({ dataDir }) },
 *     { describe, it });
 *
 * Every test gets a fresh engine from `open` (and closes it), and every call is awaited, so an
 * engine may answer at once or with promises.
 */
import { memoryFileTests } from "./memory-files.js";
import { pageTests } from "./pages.js";
import { recordTests } from "./records.js";
import type { StoreConformanceOptions, TestApi } from "./support.js";
import { treeTests } from "./tree.js";

export type { StoreConformanceOptions, TestApi } from "./support.js";

/** Registers the suite's tests, under `store conformance: <name>`, with `t.describe`/`t.it`. */
export function runStoreConformance(options: StoreConformanceOptions, t: TestApi): void {
  t.describe(`store conformance: ${options.name}`, () => {
    recordTests(t, options);
    pageTests(t, options);
    treeTests(t, options);
    memoryFileTests(t, options);
  });
}
