import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    target: "node20",
    sourcemap: true,
    clean: true,
  },
  {
    // The command-line program: one ESM file with a shebang, run as `hms-mcp` or by path.
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    target: "node20",
    sourcemap: true,
    banner: { js: "#!/usr/bin/env node" },
  },
]);
