import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  target: "node22",
  clean: true,
  // No sourcemaps: they made up over half of the published tarball (scripts/check-packages.mjs).
});
