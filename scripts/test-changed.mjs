#!/usr/bin/env node
// The quick loop of everyday work: type-checks and tests only the packages a change touches
// and the packages that depend on them (turbo's `...[REF]` filter: files changed since REF,
// committed or not, untracked included; turbo builds what they need first).
//
//   pnpm test:changed                 since where this branch left main (on main: since HEAD,
//                                     i.e. what is not committed yet)
//   pnpm test:changed --since REF     since any commit, branch or tag
//   pnpm test:changed --dry-run       only list the packages it would run
//
// It is not CI: scripts/test.sh still runs everything (other Node lines, PostgreSQL, Python,
// the packed packages) before a change lands.
import { execFileSync, spawnSync } from "node:child_process";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    since: { type: "string" },
    "dry-run": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});
if (values.help) {
  console.log("usage: pnpm test:changed [--since REF] [--dry-run]");
  process.exit(0);
}

const git = (...args) => execFileSync("git", args, { encoding: "utf8" }).trim();

/** Where the change starts: --since, else where this branch left main, else HEAD. */
function base() {
  if (values.since !== undefined) {
    try {
      return git("rev-parse", "--verify", "--quiet", `${values.since}^{commit}`);
    } catch {
      console.error(`test:changed: --since ${values.since} names no commit`);
      process.exit(2);
    }
  }
  const branch = git("rev-parse", "--abbrev-ref", "HEAD");
  if (branch !== "main") {
    try {
      return git("merge-base", "HEAD", "main");
    } catch {
      // No local main (a fork's clone): what is not committed.
    }
  }
  return git("rev-parse", "HEAD");
}

const since = base();
const filter = `...[${since}]`;
console.error(`test:changed: packages changed since ${since.slice(0, 12)}, and their dependents`);
const turbo = ["exec", "turbo", "run", "typecheck", "test", `--filter=${filter}`];
if (values["dry-run"]) turbo.push("--dry-run=json");
const run = spawnSync("pnpm", turbo, {
  stdio: values["dry-run"] ? ["ignore", "pipe", "inherit"] : "inherit",
  encoding: "utf8",
});
if (values["dry-run"] && run.status === 0) {
  const plan = JSON.parse(run.stdout);
  // The plan holds the builds these need too: list the packages tested.
  const tested = plan.tasks.filter((task) => task.task === "test");
  const packages = [...new Set(tested.map((task) => task.package))].sort();
  console.log(packages.length === 0 ? "(no package changed)" : packages.join("\n"));
}
process.exit(run.status ?? 1);
