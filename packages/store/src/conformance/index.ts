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
import { accessTests } from "./access.js";
import { concurrencyTests } from "./concurrency.js";
import { historyTests } from "./history.js";
import { limitTests } from "./limits.js";
import { loadTests } from "./load.js";
import { memoryFileTests } from "./memory-files.js";
import { namespaceTests } from "./namespaces.js";
import { pageTests } from "./pages.js";
import { recallTests } from "./recall.js";
import { recallTimeTests } from "./recall-time.js";
import { recordTests } from "./records.js";
import type { StoreConformanceOptions, TestApi } from "./support.js";
import { treeTests } from "./tree.js";

export type { EngineOptions, StoreConformanceOptions, TestApi } from "./support.js";

/** Registers the suite's tests, under `store conformance: <name>`, with `t.describe`/`t.it`. */
export function runStoreConformance(options: StoreConformanceOptions, t: TestApi): void {
  const { maxNamespaces, maxTextBytes } = options;
  // Other tests use up to 3 namespaces, and fixed texts of up to 1,024 bytes.
  if (maxNamespaces !== undefined && !(Number.isInteger(maxNamespaces) && maxNamespaces >= 3)) {
    throw new RangeError(
      `maxNamespaces must be an integer of at least 3 (the suite uses 3 namespaces), got ${maxNamespaces}`,
    );
  }
  if (maxTextBytes !== undefined && !(Number.isInteger(maxTextBytes) && maxTextBytes >= 1024)) {
    throw new RangeError(
      `maxTextBytes must be an integer of at least 1024 (the suite stores texts of up to 1,024 bytes), got ${maxTextBytes}`,
    );
  }
  t.describe(`store conformance: ${options.name}`, () => {
    recordTests(t, options);
    pageTests(t, options);
    treeTests(t, options);
    memoryFileTests(t, options);
    limitTests(t, options);
    recallTests(t, options);
    recallTimeTests(t, options);
    historyTests(t, options);
    accessTests(t, options);
    namespaceTests(t, options);
    loadTests(t, options);
    concurrencyTests(t, options);
  });
}
