import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    target: "node22",
    // No sourcemaps in the package: they were over half of its size.
    sourcemap: false,
    clean: true,
    // import.meta.url in the CommonJS build (it locates the embedding worker's file).
    shims: true,
  },
  {
    // The command-line program, run as `hms-mcp` or by path (the shebang is src/cli.ts's).
    // Bundled: the server's own code and its pure-JS dependencies (the workspace packages, the
    // MCP SDK, zod, commander, pino) in one ESM file, because a client spawns a process per
    // session and Node resolves, reads and compiles each of the ~300 modules of the unbundled
    // tree one by one: that was most of the start time. Only the optional @hms/embedder (the
    // embedding worker loads it) stays outside: SQLite is Node's own node:sqlite, so the bundle
    // is JavaScript only. Code that a start on stdio does not run (the HTTP stack, hybrid
    // recall's) is split into chunks loaded on demand.
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    target: "node22",
    sourcemap: false,
    // What went into the bundle, for the root scripts/bundled-licenses.mjs (which then removes it).
    metafile: true,
    noExternal: [/^(?!@hms\/embedder$)/],
    // __dirname and __filename for bundled CommonJS code (pino's transports, never started).
    shims: true,
    // require() for bundled CommonJS code (ajv, pino, commander) in an ES module.
    banner: {
      js:
        'import { createRequire as __hmsCreateRequire } from "node:module";\n' +
        "const require = __hmsCreateRequire(import.meta.url);",
    },
  },
  {
    // The embedding worker thread of hybrid recall; it alone imports @hms/embedder (an
    // optional peer dependency, never bundled).
    entry: { "embedding-worker": "src/semantic/worker.ts" },
    format: ["esm"],
    target: "node22",
    sourcemap: false,
  },
]);
