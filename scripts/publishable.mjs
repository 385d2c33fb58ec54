// The workspace's publishable packages (every packages/* that is not "private": true) and how
// to pack them as a release would: `pnpm pack`, which rewrites workspace: ranges (npm pack
// does not). Shared by check-packages.mjs, pack-install-test.mjs, check-release-plan.mjs and
// bench.mjs (which finds a benchmark's package by name).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** `{ dir, name, manifest }` of every package under packages/, private ones included. */
export function workspacePackages() {
  const packagesDir = join(ROOT, "packages");
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const dir = join(packagesDir, entry.name);
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      } catch {
        return [];
      }
      return [{ dir, folder: entry.name, name: manifest.name, manifest }];
    });
}

export function publishablePackages() {
  return workspacePackages().filter((pkg) => pkg.manifest.private !== true);
}

/** Packs the package in `dir` into `destination`; returns the tarball's path. */
export function pack(dir, destination) {
  const out = execFileSync("pnpm", ["pack", "--json", "--pack-destination", destination], {
    cwd: dir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const { filename } = JSON.parse(out.slice(out.indexOf("{")));
  return resolve(destination, filename);
}
