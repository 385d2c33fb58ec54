#!/usr/bin/env node
// Checks the release `pnpm version-packages` would make from .changeset/ (the plan
// `changeset status` prints, computed without git):
// - no private package is versioned;
// - no package gets a bigger bump than the largest its changesets, or the changesets of the
//   packages released with it (one fixed group: .changeset/config.json), ask for (changesets
//   would otherwise give a dependent a major bump when a peer dependency leaves its range);
// - one version line: when any published package is released, all are, at one new version
//   (scripts/check-versions.mjs holds the Python wheel to it);
// - a publishable package that was never versioned (it has no CHANGELOG.md yet) has a
//   changeset, and its first release is 0.1.0.
import { existsSync } from "node:fs";
import { join } from "node:path";
import getReleasePlanModule from "@changesets/get-release-plan";
import { ROOT, workspacePackages } from "./publishable.mjs";

const getReleasePlan = getReleasePlanModule.default ?? getReleasePlanModule;
const ORDER = ["none", "patch", "minor", "major"];

const packages = new Map(workspacePackages().map((pkg) => [pkg.name, pkg]));
const plan = await getReleasePlan(ROOT);
const asked = new Map();
for (const changeset of plan.changesets) {
  for (const { name, type } of changeset.releases) {
    if (ORDER.indexOf(type) > ORDER.indexOf(asked.get(name) ?? "none")) asked.set(name, type);
  }
}

const problems = [];
const releases = plan.releases.filter((release) => release.type !== "none");
// The packages released together (the fixed group) ask for the largest bump any of them asks.
let groupWants = "none";
for (const type of asked.values()) {
  if (ORDER.indexOf(type) > ORDER.indexOf(groupWants)) groupWants = type;
}
for (const release of releases) {
  const pkg = packages.get(release.name);
  if (!pkg) continue; // the examples' private packages
  if (pkg.manifest.private) {
    problems.push(`${release.name} is private but would be versioned (${release.newVersion})`);
    continue;
  }
  const wanted = groupWants;
  if (ORDER.indexOf(release.type) > ORDER.indexOf(wanted)) {
    problems.push(
      `${release.name} would get a ${release.type} bump (${release.oldVersion} -> ${release.newVersion}); the changesets ask for at most ${wanted}`,
    );
  }
}
const published = [...packages.values()].filter((pkg) => !pkg.manifest.private);
if (releases.length > 0) {
  const newVersions = new Set(
    releases.filter((r) => !packages.get(r.name)?.manifest.private).map((r) => r.newVersion),
  );
  if (newVersions.size > 1) {
    problems.push(
      `the release would give several versions (${[...newVersions].join(", ")}), not one`,
    );
  }
  for (const pkg of published) {
    if (!releases.some((r) => r.name === pkg.name)) {
      problems.push(
        `${pkg.name} would not be released with the others: one version line needs all`,
      );
    }
  }
}
for (const pkg of packages.values()) {
  if (pkg.manifest.private) continue;
  if (existsSync(join(pkg.dir, "CHANGELOG.md"))) continue;
  const release = releases.find((r) => r.name === pkg.name);
  if (!release) problems.push(`${pkg.name} was never released and no changeset releases it`);
  else if (release.newVersion !== "0.1.0")
    problems.push(
      `${pkg.name}'s first release would be ${release.newVersion} (${release.oldVersion} + ${release.type}), not 0.1.0`,
    );
}

for (const release of releases) {
  console.error(
    `  ${release.name}: ${release.oldVersion} -> ${release.newVersion} (${release.type})`,
  );
}
if (problems.length) {
  console.error(`check-release-plan:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  process.exitCode = 1;
} else {
  console.error(`check-release-plan: ${releases.length} releases, each as its changesets ask`);
}
