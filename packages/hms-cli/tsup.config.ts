import { defineConfig } from "tsup";

export default defineConfig({
  // A program, not a library: one ESM entry run as `hms` (the shebang is src/cli.ts's).
  entry: { cli: "src/cli.ts" },
  format: ["esm"],
  target: "node22",
  sourcemap: false,
  clean: true,
});
