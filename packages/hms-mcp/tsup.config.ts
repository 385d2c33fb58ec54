import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    target: "node20",
    sourcemap: true,
    clean: true,
    // import.meta.url in the CommonJS build (it locates the embedding worker's file).
    shims: true,
  },
  {
    // The command-line program: one ESM file with a shebang, run as `hms-mcp` or by path.
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    target: "node20",
    sourcemap: true,
    banner: { js: "#!/usr/bin/env node" },
  },
  {
    // The embedding worker thread of hybrid recall; it alone imports @hms/embedder (an
    // optional peer dependency, never bundled).
    entry: { "embedding-worker": "src/semantic/worker.ts" },
    format: ["esm"],
    target: "node20",
    sourcemap: true,
  },
]);
