import { defineConfig, type Options } from "tsup";

type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number];

/**
 * better-sqlite3 is @hms/store's dependency, and a native module: it cannot be bundled. The
 * bundled store code loads it as the store package itself would, from the store's own location
 * (not from hms-mcp's, which does not depend on it).
 */
const betterSqlite3FromStore: EsbuildPlugin = {
  name: "better-sqlite3-from-store",
  setup(build) {
    build.onResolve({ filter: /^better-sqlite3$/ }, () => ({
      path: "better-sqlite3",
      namespace: "store-dependency",
    }));
    build.onLoad({ filter: /.*/, namespace: "store-dependency" }, () => ({
      contents:
        'import { createRequire } from "node:module";\n' +
        'export default createRequire(import.meta.resolve("@hms/store"))("better-sqlite3");\n',
      loader: "js",
    }));
  },
};

export default defineConfig([
  {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    target: "node20",
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
    // embedding worker loads it) and the native better-sqlite3 stay outside. Code that a start
    // on stdio does not run (the HTTP stack, hybrid recall's) is split into chunks loaded on
    // demand.
    entry: { cli: "src/cli.ts" },
    format: ["esm"],
    target: "node20",
    sourcemap: false,
    // What went into the bundle, for the root scripts/bundled-licenses.mjs (which then removes it).
    metafile: true,
    noExternal: [/^(?!@hms\/embedder$)/],
    esbuildPlugins: [betterSqlite3FromStore],
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
    target: "node20",
    sourcemap: false,
  },
]);
