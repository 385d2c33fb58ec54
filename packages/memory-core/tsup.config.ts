import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/testing.ts"],
  format: ["esm", "cjs"],
  dts: true,
  target: "node20",
  clean: true,
  // No sourcemaps: they made up over half of the published tarball (scripts/check-packages.mjs).
  // testing.ts finds vectors/commands.json from import.meta.url, in the CJS build too.
  shims: true,
});
