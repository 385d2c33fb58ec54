import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  // Declarations marked @internal (the backend's constructor, which takes the MCP session)
  // stay out of the published types.
  dts: { compilerOptions: { stripInternal: true } },
  target: "node22",
  clean: true,
  // import.meta.url in the CommonJS build: find-server.ts resolves hms-mcp from this package.
  shims: true,
  // No sourcemaps: they made up over half of the published tarball (scripts/check-packages.mjs).
});
