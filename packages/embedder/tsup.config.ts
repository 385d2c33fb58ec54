import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    target: "node20",
    clean: true,
    sourcemap: true,
  },
  {
    // The command behind `pnpm fetch-model`; ESM only (it uses top-level await).
    entry: ["src/fetch-model-cli.ts"],
    format: ["esm"],
    target: "node20",
    sourcemap: true,
  },
]);
