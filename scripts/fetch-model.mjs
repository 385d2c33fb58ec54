#!/usr/bin/env node
// `pnpm fetch-model [--dir DIR]`: puts the pinned embedding model in the local model cache
// (see packages/embedder/README.md). Builds @hms/embedder first if it has not been built.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "packages/embedder/dist/fetch-model-cli.js");
if (!existsSync(cli)) {
  const built = spawnSync("pnpm", ["--filter", "@hms/embedder", "run", "build"], {
    cwd: root,
    stdio: ["ignore", 2, "inherit"], // build output to stderr: stdout is the model path
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(result.status ?? 1);
