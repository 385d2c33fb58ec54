#!/usr/bin/env node
// Checks what each publishable package would publish, from the tarball `pnpm pack` makes
// (run after a build):
// - publint --strict and @arethetypeswrong/cli (every entry point, under node10, node16 from
//   CJS and ESM, and bundler resolution): no errors;
// - the LICENSE (the root's text) and the repository, homepage and bugs fields (the root
//   package.json's address, with the package's own folder);
// - engines.node: the Node.js lines the suites run on, from the versions scripts/setup.sh
//   installs (`^22.x.y || ^24.x.y`), as the root package.json states them too;
// - no sourcemaps;
// - dependency ranges: no workspace: left, a workspace package never pinned to one version,
//   and zod and the MCP SDK (which applications share with us) as ^ the version the
//   workspace locks, so every suite runs on the floor of the range;
// - no class defined twice among the files one format's entry points load (a second copy of
//   a class breaks instanceof between entry points);
// and prints each tarball's size.
//
//   node scripts/check-packages.mjs                    # pack every publishable package
//   node scripts/check-packages.mjs --tarballs DIR     # check tarballs packed before
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { pack, publishablePackages, ROOT } from "./publishable.mjs";

/** Dependencies an application is likely to have itself: a range, whose floor is tested. */
const SHARED = ["zod", "@modelcontextprotocol/sdk"];
const BIN = join(ROOT, "node_modules/.bin");

const args = process.argv.slice(2);
const work = mkdtempSync(join(tmpdir(), "check-packages-"));
let failed = 0;
try {
  const packages = publishablePackages();
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  let tarballs;
  if (args[0] === "--tarballs") {
    const dir = resolve(args[1]);
    tarballs = readdirSync(dir)
      .filter((file) => file.endsWith(".tgz"))
      .map((file) => join(dir, file));
  } else {
    const dest = join(work, "packs");
    mkdirSync(dest);
    tarballs = packages.map((pkg) => pack(pkg.dir, dest));
  }
  const rootManifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const license = readFileSync(join(ROOT, "LICENSE"), "utf8");
  const sizes = [];

  for (const tarball of tarballs.sort()) {
    const unpacked = join(work, "unpacked", relative(dirname(tarball), tarball));
    mkdirSync(unpacked, { recursive: true });
    execFileSync("tar", ["xzf", tarball, "-C", unpacked]);
    const dir = join(unpacked, "package");
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const source = byName.get(manifest.name);
    const problems = [];
    const label = `${manifest.name}@${manifest.version}`;

    const publint = spawnSync(join(BIN, "publint"), ["run", "--strict", tarball], {
      encoding: "utf8",
    });
    if (publint.status !== 0)
      problems.push(`publint --strict:\n${publint.stdout}${publint.stderr}`);
    const attw = spawnSync(join(BIN, "attw"), ["--quiet", tarball], { encoding: "utf8" });
    if (attw.status !== 0) {
      const table = spawnSync(
        join(BIN, "attw"),
        ["--format", "table-flipped", "--no-emoji", "--no-color", tarball],
        { encoding: "utf8" },
      );
      problems.push(`@arethetypeswrong/cli:\n${table.stdout}${table.stderr}`);
    }

    const files = listFiles(dir);
    if (!files.includes("LICENSE")) problems.push("no LICENSE file");
    else if (readFileSync(join(dir, "LICENSE"), "utf8") !== license)
      problems.push("LICENSE differs from the repository's LICENSE");
    problems.push(...metadataProblems(manifest, rootManifest, source));
    const maps = files.filter((file) => file.endsWith(".map"));
    if (maps.length) problems.push(`ships sourcemaps: ${maps.join(", ")}`);
    problems.push(...rangeProblems(manifest, byName, source));
    problems.push(...duplicateClasses(dir, manifest));

    const bytes = files.reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
    sizes.push([label, statSync(tarball).size, bytes, files.length]);
    if (problems.length) {
      failed++;
      console.error(`FAIL ${label}\n${problems.map((p) => `  - ${p.trimEnd()}`).join("\n")}`);
    } else {
      console.error(`ok   ${label}: publint --strict, attw, license, metadata, ranges, no maps`);
    }
  }

  console.error("\npackage                                  packed  unpacked  files");
  for (const [label, packed, bytes, count] of sizes) {
    console.error(
      `${label.padEnd(40)} ${kb(packed).padStart(7)} ${kb(bytes).padStart(9)} ${String(count).padStart(6)}`,
    );
  }
  if (failed) {
    console.error(`\ncheck-packages: ${failed} of ${tarballs.length} packages have problems`);
    process.exitCode = 1;
  } else {
    console.error(`\ncheck-packages: ${tarballs.length} packages ready to publish`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function kb(bytes) {
  return `${(bytes / 1024).toFixed(1)} kB`;
}

function listFiles(dir, prefix = "") {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? listFiles(dir, path) : [path];
  });
}

/**
 * The engines range of what is tested: each Node.js version scripts/setup.sh installs (and
 * scripts/test.sh runs the suites on), from that patch up within its major line.
 */
function testedEngines() {
  const setup = readFileSync(join(ROOT, "scripts/setup.sh"), "utf8");
  const versions = [...setup.matchAll(/^NODE\d+_VERSION="(\d+\.\d+\.\d+)"$/gm)].map((m) => m[1]);
  if (versions.length === 0) throw new Error("scripts/setup.sh pins no NODE<line>_VERSION");
  return versions
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
    .map((version) => `^${version}`)
    .join(" || ");
}

/** repository, homepage and bugs: the root's address, with this package's own folder; engines. */
function metadataProblems(manifest, root, source) {
  const problems = [];
  const engines = testedEngines();
  if (root.engines?.node !== engines) problems.push(`the root's engines.node is not "${engines}"`);
  if (manifest.engines?.node !== engines) {
    problems.push(`engines.node is ${manifest.engines?.node}, not the tested "${engines}"`);
  }
  const url = root.repository?.url;
  if (!url) return ["the root package.json has no repository.url to compare with"];
  const web = url.replace(/^git\+/, "").replace(/\.git$/, "");
  const folder = source ? relative(ROOT, source.dir) : undefined;
  if (manifest.license !== "MIT") problems.push(`license is ${manifest.license}, not MIT`);
  if (manifest.repository?.url !== url) problems.push(`repository.url is not ${url}`);
  if (folder && manifest.repository?.directory !== folder)
    problems.push(`repository.directory is not ${folder}`);
  if (!manifest.homepage?.startsWith(web)) problems.push(`homepage is not under ${web}`);
  if (manifest.bugs?.url !== root.bugs?.url) problems.push(`bugs.url is not ${root.bugs?.url}`);
  return problems;
}

function rangeProblems(manifest, byName, source) {
  const problems = [];
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      const where = `${field}.${name} "${range}"`;
      if (range.startsWith("workspace:")) problems.push(`${where} was not rewritten`);
      const exact = /^=?v?\d+\.\d+\.\d+(-[\w.]+)?$/.test(range);
      if (byName.has(name) && exact)
        problems.push(`${where}: one exact version of a package of ours (use workspace:^)`);
      if (SHARED.includes(name)) {
        const locked = source && lockedVersion(source.dir, name);
        if (range !== `^${locked}`)
          problems.push(`${where}: must be ^${locked}, the version the workspace's suites run on`);
      }
    }
  }
  return problems;
}

function lockedVersion(dir, name) {
  const file = join(dir, "node_modules", name, "package.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).version : undefined;
}

/** Class names defined in more than one file that one format's entry points load. */
function duplicateClasses(dir, manifest) {
  const entries = new Set();
  const collect = (value) => {
    if (typeof value === "string") {
      if (/\.(c|m)?js$/.test(value)) entries.add(join(dir, value));
    } else if (value && typeof value === "object") {
      for (const inner of Object.values(value)) collect(inner);
    }
  };
  collect(manifest.exports);
  collect(manifest.main);
  collect(manifest.module);
  const problems = [];
  for (const format of ["cjs", "esm"]) {
    const isFormat = (file) => (format === "cjs" ? file.endsWith(".cjs") : !file.endsWith(".cjs"));
    const queue = [...entries].filter(isFormat);
    const seen = new Set();
    const definedIn = new Map();
    while (queue.length) {
      const file = queue.shift();
      if (seen.has(file) || !existsSync(file)) continue;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(
        /(?:from\s*|import\s*\(?\s*|require\(\s*)["'](\.{1,2}\/[^"']+)["']/g,
      )) {
        queue.push(resolve(dirname(file), match[1]));
      }
      for (const match of text.matchAll(
        /^(?:export\s+)?(?:(?:var|let|const)\s+([\w$]+)\s*=\s*class\b|class\s+([\w$]+))/gm,
      )) {
        const name = match[1] ?? match[2];
        const files = definedIn.get(name) ?? new Set();
        files.add(relative(dir, file));
        definedIn.set(name, files);
      }
    }
    for (const [name, files] of definedIn) {
      if (files.size > 1)
        problems.push(`${format}: class ${name} is defined in ${[...files].join(" and ")}`);
    }
  }
  return problems;
}
