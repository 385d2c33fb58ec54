import { defineConfig } from "tsup";

// Declarations marked @internal (those that take the better-sqlite3 handle) stay out of the
// published types.
const compilerOptions = { stripInternal: true };

export default defineConfig([
  {
    // index: the store's API; internal: what works on a better-sqlite3 handle (internal.ts);
    // conformance: the suite every engine runs against itself (src/conformance/).
    entry: {
      index: "src/index.ts",
      internal: "src/internal.ts",
      conformance: "src/conformance/index.ts",
    },
    format: ["esm", "cjs"],
    // The main entry's types alone: a declaration build of both entries would share a chunk
    // with the rankers, and so import better-sqlite3's types into the main entry's.
    dts: {
      entry: { index: "src/index.ts", conformance: "src/conformance/index.ts" },
      compilerOptions,
    },
    target: "node20",
    // No sourcemaps: they made up over half of the published tarball (scripts/check-packages.mjs).
    // The two entries share their code in chunks, in CommonJS too, so a class is defined once.
    splitting: true,
    clean: true,
  },
  {
    // The internal entry's types, built on their own (they need @types/better-sqlite3).
    entry: { internal: "src/internal.ts" },
    format: ["esm", "cjs"],
    dts: { only: true, compilerOptions },
    target: "node20",
  },
]);
