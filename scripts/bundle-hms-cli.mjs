#!/usr/bin/env node
// `hms` for the Python wheel (python/hatch_build.py runs this): hms-cli's built dist/cli.js and
// its JavaScript dependencies (the backend, the MCP SDK, zod, commander, ...) in one ES module,
// as hms-mcp's own cli.js is bundled, with the licence of every bundled package beside it.
// npm installs hms-cli's dependencies; the wheel has no npm, so it carries them in the bundle.
// hms-mcp stays outside: hms starts the hms-mcp beside it in the wheel's node_modules (it
// resolves hms-mcp/package.json at run time, and imports hms-mcp only for an in-process
// connection, which it never makes).
//
//   node scripts/bundle-hms-cli.mjs OUT_DIR
//     writes OUT_DIR/dist/cli.js and OUT_DIR/dist/THIRD-PARTY-LICENSES.txt
//     (build the workspace first: ./scripts/setup.sh, or pnpm --filter hms-cli build)
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "tsup";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HMS_CLI = join(ROOT, "packages/hms-cli");
const [out] = process.argv.slice(2);
if (out === undefined) throw new Error("usage: node scripts/bundle-hms-cli.mjs OUT_DIR");
const built = join(HMS_CLI, "dist/cli.js");
if (!existsSync(built)) {
  throw new Error(`${built} is missing: build hms-cli first (pnpm --filter hms-cli build)`);
}
const dist = resolve(out, "dist");

// esbuild writes the metafile's input paths relative to its working directory, which
// bundled-licenses.mjs resolves them from: hms-cli's own (named for the licences' header).
process.chdir(HMS_CLI);
await build({
  esbuildOptions(options) {
    options.absWorkingDir = HMS_CLI;
  },
  config: false,
  silent: true,
  entry: { cli: built },
  outDir: dist,
  format: ["esm"],
  platform: "node",
  target: "node22",
  sourcemap: false,
  clean: true,
  metafile: true,
  noExternal: [/^(?!hms-mcp$|@hms\/embedder$)/],
  external: ["hms-mcp", "@hms/embedder"],
  // __dirname, __filename and require() for bundled CommonJS code (commander, cli-table3).
  shims: true,
  banner: {
    js:
      'import { createRequire as __hmsCreateRequire } from "node:module";\n' +
      "const require = __hmsCreateRequire(import.meta.url);",
  },
});
execFileSync(process.execPath, [join(ROOT, "scripts/bundled-licenses.mjs"), "--dist", dist], {
  stdio: ["ignore", "ignore", "inherit"],
});
console.error(`bundle-hms-cli: ${join(dist, "cli.js")}`);
