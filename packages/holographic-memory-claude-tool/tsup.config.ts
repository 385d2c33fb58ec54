import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  target: "node22",
  clean: true,
  // No sourcemaps: they made up over half of the published tarball (scripts/check-packages.mjs).
  // The SDK is a peer dependency: the application's own copy must be the one whose ToolError
  // the tool runner recognises, so it is never bundled.
  external: ["@anthropic-ai/sdk"],
});
