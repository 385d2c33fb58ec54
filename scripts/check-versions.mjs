#!/usr/bin/env node
// One version line: every published npm package and the Python wheel
// (holographic-memory-claude-tool on PyPI) carry the same version, released together, so that
// "0.2.0" names one release wherever it is installed from. Checks it (run by scripts/test.sh's
// release checks); with --sync, first writes the npm packages' version (which `changeset
// version` moved, all together: .changeset/config.json's fixed group) into the Python package's
// three places: pyproject.toml, hms_memory_tool.__version__ and uv.lock. `pnpm
// version-packages` runs it so.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publishablePackages, ROOT } from "./publishable.mjs";

/** The Python package's version in each file that states it: [file, pattern of the line]. */
const PYTHON_PLACES = [
  ["python/pyproject.toml", /^(version = ")([^"]+)(")$/m],
  ["python/src/hms_memory_tool/__init__.py", /^(__version__ = ")([^"]+)(")$/m],
  [
    "python/uv.lock",
    /(\[\[package\]\]\nname = "holographic-memory-claude-tool"\nversion = ")([^"]+)(")/,
  ],
];

const npm = publishablePackages().map((pkg) => ({
  where: `${pkg.name} (packages/${pkg.folder}/package.json)`,
  version: pkg.manifest.version,
}));
const npmVersions = [...new Set(npm.map((entry) => entry.version))];

if (process.argv.includes("--sync")) {
  if (npmVersions.length !== 1) {
    console.error(
      `check-versions: the npm packages disagree (${npmVersions.join(", ")}); nothing written`,
    );
    process.exit(1);
  }
  for (const [file, pattern] of PYTHON_PLACES) {
    const path = join(ROOT, file);
    const text = readFileSync(path, "utf8");
    if (!pattern.test(text)) throw new Error(`${file}: no version line to write`);
    writeFileSync(path, text.replace(pattern, `$1${npmVersions[0]}$3`));
  }
}

const python = PYTHON_PLACES.map(([file, pattern]) => ({
  where: file,
  version: pattern.exec(readFileSync(join(ROOT, file), "utf8"))?.[2] ?? "(none found)",
}));
const all = [...npm, ...python];
const versions = [...new Set(all.map((entry) => entry.version))];
if (versions.length !== 1) {
  console.error("check-versions: the published packages must carry one version; found:");
  for (const version of versions) {
    const where = all.filter((entry) => entry.version === version).map((entry) => entry.where);
    console.error(`  ${version}: ${where.join(", ")}`);
  }
  console.error(
    "  (`pnpm version-packages` moves them together; `node scripts/check-versions.mjs --sync` writes the npm version into the Python package)",
  );
  process.exit(1);
}
console.error(`check-versions: ${all.length} places, one version: ${versions[0]}`);
