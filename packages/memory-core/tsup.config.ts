import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/testing.ts"],
  format: ["esm", "cjs"],
  dts: true,
  target: "node22",
  clean: true,
  // No sourcemaps: they made up over half of the published tarball (scripts/check-packages.mjs).
  // testing.ts finds vectors/commands.json from import.meta.url, in the CJS build too.
  shims: true,
  // The two entries share their code in chunks, in CommonJS too (tsup splits only ESM by
  // default): without it dist/testing.cjs carried its own copy of the engine and its errors.
  splitting: true,
});
