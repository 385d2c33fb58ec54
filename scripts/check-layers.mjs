// Checks the package graph that CONTRIBUTING.md describes: which workspace package may import
// which. Every workspace import in a package's source must be allowed here and declared in its
// package.json (runtime code: dependencies or peerDependencies; tests: devDependencies too).
// Run by scripts/test.sh; exits 1 and names each breach.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;

/** Runtime imports each package may make of the workspace's packages. */
const ALLOWED = {
  "@hms/memory-paths": [],
  "@hms/memory-core": ["@hms/memory-paths"],
  "@hms/protocol": [],
  "@hms/memory-backend-hms": ["@hms/memory-paths", "@hms/memory-core", "@hms/protocol"],
  "holographic-memory-claude-tool": [
    "@hms/memory-paths",
    "@hms/memory-core",
    "@hms/memory-backend-hms",
  ],
  "@hms/store": ["@hms/memory-paths", "@hms/protocol"],
  "@hms/store-postgres": ["@hms/store"],
  "@hms/embedder": [],
  "hms-mcp": ["@hms/protocol", "@hms/store", "@hms/store-postgres", "@hms/embedder"],
  // A client of the protocol like the tools; hms-mcp is a dependency only so that it can
  // start the server on a local data directory (as a program, never imported).
  "hms-cli": ["@hms/memory-paths", "@hms/memory-backend-hms", "@hms/protocol", "hms-mcp"],
  // Private: tools for tests and benchmarks, never published.
  "@hms/test-support": ["@hms/protocol"],
  "@hms/scripted-model": [],
  "@hms/bench": ["holographic-memory-claude-tool", "hms-mcp", "@hms/memory-core"],
};

const packagesDir = join(root, "packages");
const workspace = new Map();
for (const dir of readdirSync(packagesDir)) {
  const manifest = JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8"));
  workspace.set(manifest.name, { dir: join(packagesDir, dir), manifest });
}

const problems = [];
for (const [name, { dir, manifest }] of workspace) {
  const allowed = ALLOWED[name];
  if (allowed === undefined) {
    problems.push(`${name}: not in scripts/check-layers.mjs; say which packages it may import`);
    continue;
  }
  const runtime = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const dev = new Set(Object.keys(manifest.devDependencies ?? {}));
  for (const dep of runtime) {
    if (workspace.has(dep) && !allowed.includes(dep)) {
      problems.push(`${name}: depends on ${dep}, which it may not import`);
    }
  }
  for (const file of sourceFiles(dir)) {
    const isTest = /\.test\.ts$|\/test\/|\/bench\//.test(file);
    for (const imported of workspaceImports(readFileSync(file, "utf8"))) {
      const where = relative(root, file);
      if (imported === name) continue;
      if (!isTest && !allowed.includes(imported)) {
        problems.push(`${where}: imports ${imported}, which ${name} may not import`);
      } else if (!runtime.has(imported) && !(isTest && dev.has(imported))) {
        problems.push(`${where}: imports ${imported}, not declared in ${name}'s package.json`);
      }
    }
  }
}

if (problems.length > 0) {
  console.error(`check-layers: ${problems.length} breach(es) of the package graph:`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
console.error(`check-layers: ${workspace.size} packages keep to the package graph`);

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === "dist") continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|mts|mjs|js)$/.test(entry)) yield path;
  }
}

/** The workspace package names a source file imports (static and dynamic imports). */
function workspaceImports(text) {
  const names = new Set();
  for (const match of text.matchAll(
    /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["']([^"']+)["']/g,
  )) {
    const specifier = match[1];
    const name = specifier.startsWith("@")
      ? specifier.split("/").slice(0, 2).join("/")
      : specifier.split("/")[0];
    if (workspace.has(name)) names.add(name);
  }
  return names;
}
