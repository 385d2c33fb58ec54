import { defineConfig } from "tsup";

export default defineConfig({
  // index: the library; fetch-model-cli: the command behind `pnpm fetch-model`.
  entry: ["src/index.ts", "src/fetch-model-cli.ts"],
  format: ["esm", "cjs"],
  dts: { entry: "src/index.ts" },
  target: "node22",
  clean: true,
  // No sourcemaps: they made up over half of the published tarball (scripts/check-packages.mjs).
});
