// Checks the package graph that CONTRIBUTING.md describes: which workspace package may import
// which. Every workspace import in a package's source must be allowed here and declared in its
// package.json (runtime code: dependencies or peerDependencies; tests: devDependencies too).
// It also checks that no source file imports itself through others (an import circle), in
// every package under packages/ and in python/src: type-only imports count, since a circle of
// types is still two modules that cannot be understood apart.
// Run by scripts/test.sh; exits 1 and names each breach.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = new URL("..", import.meta.url).pathname;

/** Runtime imports each package may make of the workspace's packages. */
const ALLOWED = {
  "@hms/memory-paths": [],
  "@hms/memory-core": ["@hms/memory-paths"],
  "@hms/protocol": [],
  // hms-mcp is an optional peer, imported (dynamically) only for an in-process connection: the
  // client still meets the server over MCP alone (the SDK's in-memory transport), and a client
  // over stdio or HTTP never loads it (see OPTIONAL PEERS below).
  "@hms/memory-backend-hms": ["@hms/memory-paths", "@hms/memory-core", "@hms/protocol", "hms-mcp"],
  // hms-mcp: the same optional peer, declared so that installers hand it on to the backend;
  // never imported here.
  "holographic-memory-claude-tool": [
    "@hms/memory-paths",
    "@hms/memory-core",
    "@hms/memory-backend-hms",
    "hms-mcp",
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
  const optionalPeers = Object.entries(manifest.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta?.optional)
    .map(([peer]) => peer);
  for (const file of sourceFiles(dir)) {
    const isTest = /\.test\.ts$|\/test\/|\/bench\//.test(file);
    if (!isTest) {
      for (const peer of staticValueImports(readFileSync(file, "utf8"), optionalPeers)) {
        problems.push(
          `${relative(root, file)}: imports its optional peer ${peer} statically, which loads ` +
            `it with the module; use import("${peer}") where it is needed (or import type)`,
        );
      }
    }
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

// The Python package mirrors the client side: its path rules and command engine import no
// other part of it (the engine knows nothing of hms-mcp's protocol, as memory-core does not).
const PYTHON_ALLOWED = {
  paths: [],
  core: ["paths"],
};
const graph = fileGraph();
const pythonSrc = join(root, "python", "src", "hms_memory_tool");
const pythonPart = (file) => relative(pythonSrc, file).split("/")[0].replace(/\.py$/, "");
for (const [file, targets] of graph) {
  if (!file.startsWith(`${pythonSrc}/`)) continue;
  const allowed = PYTHON_ALLOWED[pythonPart(file)];
  if (allowed === undefined) continue;
  for (const target of targets) {
    const part = pythonPart(target);
    if (part !== pythonPart(file) && !allowed.includes(part)) {
      problems.push(
        `${relative(root, file)}: imports hms_memory_tool.${part}, which hms_memory_tool.${pythonPart(file)} may not import`,
      );
    }
  }
}

for (const circle of importCircles(graph)) {
  problems.push(`import circle: ${circle.map((file) => relative(root, file)).join(" -> ")}`);
}

if (problems.length > 0) {
  console.error(`check-layers: ${problems.length} breach(es) of the package graph:`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
console.error(
  `check-layers: ${workspace.size} packages keep to the package graph, with no import circle`,
);

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === "dist") continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|mts|mjs|js)$/.test(entry)) yield path;
  }
}

// OPTIONAL PEERS: a package's optional peer (peerDependenciesMeta) is loaded only where it
// is used: its runtime sources import it with import() or `import type`, never statically.
/** The optional peers of `peers` that a source imports statically for their values. */
function staticValueImports(text, peers) {
  const found = new Set();
  for (const match of text.matchAll(
    /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?["']([^"']+)["']/g,
  )) {
    if (match[1]) continue;
    const name = match[2].startsWith("@")
      ? match[2].split("/").slice(0, 2).join("/")
      : match[2].split("/")[0];
    if (peers.includes(name)) found.add(name);
  }
  return found;
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

/**
 * Each source file (tests and benchmarks aside) with the files it imports: relative imports of
 * TypeScript and JavaScript under packages/, and package-relative or absolute imports of
 * python/src's modules.
 */
function fileGraph() {
  const graph = new Map();
  for (const [, { dir }] of workspace) {
    for (const file of sourceFiles(dir)) {
      if (/\.test\.ts$|\/test\/|\/bench\/|\.config\.ts$/.test(file)) continue;
      graph.set(file, tsImports(file));
    }
  }
  const pythonSrc = join(root, "python", "src");
  for (const file of pythonFiles(pythonSrc)) graph.set(file, pythonImports(file, pythonSrc));
  return graph;
}

/** The files a TypeScript or JavaScript source imports by a relative specifier. */
function tsImports(file) {
  const found = new Set();
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = resolve(dirname(file), match[1]);
    for (const candidate of [target.replace(/\.js$/, ".ts"), target, join(target, "index.ts")]) {
      if (existsSync(candidate) && statSync(candidate).isFile()) {
        found.add(candidate);
        break;
      }
    }
  }
  return found;
}

function* pythonFiles(dir) {
  for (const entry of readdirSync(dir)) {
    if (entry === "__pycache__") continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* pythonFiles(path);
    else if (entry.endsWith(".py")) yield path;
  }
}

/** The module files a Python source imports (`from . import x`, `from .a import b`, `import p.q`). */
function pythonImports(file, srcRoot) {
  const found = new Set();
  const text = readFileSync(file, "utf8");
  const packageParts = relative(srcRoot, dirname(file)).split("/");
  const moduleFile = (parts) => {
    const base = join(srcRoot, ...parts);
    if (existsSync(`${base}.py`)) return `${base}.py`;
    if (existsSync(join(base, "__init__.py"))) return join(base, "__init__.py");
    return undefined;
  };
  const add = (parts) => {
    const target = moduleFile(parts);
    if (target !== undefined && target !== file) found.add(target);
  };
  for (const match of text.matchAll(/^\s*from\s+(\.*)([\w.]*)\s+import\s+(\([^)]*\)|[^\n]*)/gm)) {
    const [, dots, name, names] = match;
    let parts;
    if (dots.length > 0) {
      parts = packageParts.slice(0, packageParts.length - (dots.length - 1));
      if (name) parts = [...parts, ...name.split(".")];
    } else {
      parts = name.split(".");
    }
    if (moduleFile(parts) === undefined) continue;
    // `from . import _messages` imports the module _messages; a name that is no module
    // (`from .core import X`) comes from the package or module itself.
    let fromItself = false;
    for (const imported of names.replace(/[()]|#[^\n]*/g, "").split(",")) {
      const word = imported.trim().split(/\s+/)[0];
      if (!word) continue;
      if (moduleFile([...parts, word]) !== undefined) add([...parts, word]);
      else fromItself = true;
    }
    if (fromItself) add(parts);
  }
  for (const match of text.matchAll(/^\s*import\s+([\w.]+)/gm)) add(match[1].split("."));
  return found;
}

/** Every import circle of `graph` (its strongly connected parts of more than one file), one path each. */
function importCircles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  let next = 0;
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file), index.get(target)));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const part = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      part.push(member);
    } while (member !== file);
    if (part.length > 1) circles.push(circlePath(graph, new Set(part)));
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/** One circle through a strongly connected set of files, from its first file back to it. */
function circlePath(graph, part) {
  const [start] = part;
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const target of graph.get(file) ?? []) {
      if (!part.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at = file; at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, file);
        queue.push(target);
      }
    }
  }
  return [...part];
}
