import { defineConfig } from "tsup";

export default defineConfig({
  // index: the store's API; internal: what works on the store's SQLite connection
  // (internal.ts); conformance: the suite every engine runs against itself (src/conformance/).
  entry: {
    index: "src/index.ts",
    internal: "src/internal.ts",
    conformance: "src/conformance/index.ts",
  },
  format: ["esm", "cjs"],
  // Declarations marked @internal (the options that take the SQLite connection) stay out of
  // the published types.
  dts: { compilerOptions: { stripInternal: true } },
  target: "node22",
  // No sourcemaps: they made up over half of the published tarball (scripts/check-packages.mjs).
  // The entries share their code in chunks, in CommonJS too, so a class is defined once.
  splitting: true,
  clean: true,
});
