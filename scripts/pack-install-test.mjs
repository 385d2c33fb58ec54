#!/usr/bin/env node
// The packages as a user gets them: packs every publishable package (pnpm pack, after a
// build), installs the tarballs with `npm install --ignore-scripts` (no install step may build
// or download anything) into a new project in a temporary folder outside the workspace (their
// other dependencies come from the npm registry), once per Node.js given (--node-bin DIR,
// repeated: the first is the main one; default: the Node running this), and from there
// - runs the installed `hms-mcp --version`, and the installed `hms stats` on a new data dir;
// - runs the README's TypeScript snippet verbatim under plain `node` (no node_modules/.bin on
//   PATH), against the scripted stand-in: its bare `hms-mcp` is the one in node_modules, and
//   the application's stderr stays empty;
// - runs the TypeScript quick start (examples/quickstart/src/main.ts, copied) offline, which
//   starts the installed hms-mcp, and the in-process example (examples/in-process), which runs
//   it in its own process (an optional peer of the tool);
// - requires every entry point from CommonJS;
// and, on the main Node only (neither depends on the runtime's version):
// - type-checks every entry point of every installed package, from ESM and CommonJS, with
//   tsc --strict, skipLibCheck off and no DOM library, as a strict application would;
// - installs @hms/embedder's tarball as its README says (no variable, no install script), and
//   from there `hms-mcp fetch-model` and a hybrid server on the embedder's bundled WebAssembly
//   runtime find a memory by a paraphrase;
// - builds the Python wheel, installs it in a new venv for each Python version CI tests, and
//   runs the Python quick start (examples/quickstart-python/quickstart.py, copied) against
//   the npm-installed `hms-mcp` on PATH (found before the wheel's own);
// - then pip as a Python user has it, with no Node.js on PATH (scripts/pip-install.mjs): the
//   wheel's own hms-mcp, the README's snippet, the quick start, uvx, the [hybrid] extra, and
//   what a missing runtime says;
// - installs the lowest zod and MCP SDK our ranges allow (npm picked the newest for the run
//   above), checks npm keeps one copy of each, and runs both quick starts again.
// No workspace path is used by what runs, and HMS_MCP_BIN is unset.
//
// The Messages API is the one stand-in: @hms/scripted-model (private, from this workspace's
// build) is packed and installed beside our packages, since the TypeScript quick start
// imports it; the Python quick start runs its command from that installed copy.
// The optional @hms/embedder (hybrid recall) is installed after the lexical checks, as a user
// adds it: the quick starts and type checks run without it.
//
//   node scripts/pack-install-test.mjs [--tarballs DIR] [--node-bin DIR]...
//     (--tarballs: tarballs packed before; --node-bin: a folder holding a `node` to run with)
//   KEEP=1 keeps the temporary folder and prints its path.
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { pipInstallChecks } from "./pip-install.mjs";
import { pack, publishablePackages, ROOT, workspacePackages } from "./publishable.mjs";
import { readmeSnippet, SNIPPET_FILE, withScriptedModel } from "./readme-snippets.mjs";

/** The Python versions CI has and tests; check-python-package.py holds the metadata to it. */
const PYTHON_VERSIONS = JSON.parse(
  readFileSync(join(ROOT, "scripts/python-versions.json"), "utf8"),
);
const SHARED = ["zod", "@modelcontextprotocol/sdk"];
// KEEP: keep the temporary folder; UV: the uv to run (default: uv on PATH). Its full path:
// the pip checks run it with a PATH of their own, which holds no uv.
const { KEEP, UV: UV_NAME = "uv" } = process.env;
const UV = execFileSync("sh", ["-c", 'command -v "$0"', UV_NAME], {
  encoding: "utf8",
}).trim();
const started = Date.now();
const { values: options } = parseArgs({
  options: {
    tarballs: { type: "string" },
    "node-bin": { type: "string", multiple: true },
  },
});
/** The Node.js runtimes to install and run with: each one's folder goes first on PATH. */
const nodeBins = (options["node-bin"] ?? [dirname(process.execPath)]).map((dir) => resolve(dir));
for (const dir of nodeBins) {
  if (!existsSync(join(dir, "node"))) throw new Error(`--node-bin ${dir}: no node there`);
}
const work = mkdtempSync(join(tmpdir(), "hms-pack-install-"));
/** The user's project: one per Node.js, `app` for the main one. */
let app = join(work, "app");
/** The PATH of the user's shell: the Node.js being tested first. */
let userPath = process.env.PATH;

function step(message) {
  console.error(`pack-install [${((Date.now() - started) / 1000).toFixed(0)}s] ${message}`);
}

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    ...options,
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${commandArgs.join(" ")} exited with ${result.status ?? result.signal}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}

/** The environment of a user's shell: nothing that points at this workspace's builds. */
function userEnv(extra = {}) {
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name === "ANTHROPIC_API_KEY" || name === "ANTHROPIC_BASE_URL") continue;
    if (name.startsWith("HMS_MCP_") || name.startsWith("QUICKSTART_")) continue;
    if (name.startsWith("npm_") || name === "INIT_CWD" || name === "PNPM_SCRIPT_SRC_DIR") continue;
    env[name] = value;
  }
  return { ...env, PATH: userPath, ...extra };
}

/**
 * npm's environment: no install script runs (`npm install --ignore-scripts`, as a user who
 * allows none would run it), so nothing of ours may need one: SQLite is Node's own.
 */
function npmEnv() {
  return userEnv({ npm_config_update_notifier: "false", npm_config_ignore_scripts: "true" });
}

function expectIncludes(output, expected, what) {
  if (!output.includes(expected)) {
    throw new Error(`${what}: expected to find\n${expected}\nin\n${output}`);
  }
}

function manifestOf(tarball) {
  return JSON.parse(
    execFileSync("tar", ["xzf", tarball, "-O", "package/package.json"], { encoding: "utf8" }),
  );
}

function installedVersion(name) {
  return JSON.parse(readFileSync(join(app, "node_modules", name, "package.json"), "utf8")).version;
}

/** The TypeScript quick start, offline, from the installed packages. */
function typescriptQuickstart() {
  const { stdout, stderr } = run(join(app, "node_modules/.bin/tsx"), ["src/main.ts"], {
    cwd: app,
    env: userEnv(),
    timeout: 120_000,
  });
  if (stderr !== "") throw new Error(`the TypeScript quick start wrote to stderr:\n${stderr}`);
  checkQuickstart(stdout, "TypeScript", '{"command":"view","path":"/memories"}');
}

/**
 * The README's TypeScript snippet, exactly as written, as a user runs it: `node snippet.mjs`
 * in the project, with no node_modules/.bin on PATH (only npx and npm scripts put it there),
 * the Messages API pointed at the stand-in (ANTHROPIC_BASE_URL, read by `new Anthropic()`).
 * The file it made is then read back with the installed `hms`.
 */
async function typescriptReadmeSnippet() {
  const snippet = join(app, "readme-snippet.mjs");
  writeFileSync(snippet, readmeSnippet("typescript"));
  const data = join(app, "readme-snippet-data");
  rmSync(data, { recursive: true, force: true });
  const scriptedModel = join(app, "node_modules/@hms/scripted-model");
  const { stderr } = await withScriptedModel(scriptedModel, work, (url) =>
    run("node", [snippet], {
      cwd: app,
      env: userEnv({
        ANTHROPIC_BASE_URL: url,
        ANTHROPIC_API_KEY: "offline",
        HMS_MCP_DATA_DIR: data,
      }),
      timeout: 120_000,
    }),
  );
  if (stderr !== "") throw new Error(`the README's TypeScript snippet wrote to stderr:\n${stderr}`);
  const shown = run(
    join(app, "node_modules/.bin/hms"),
    ["--data-dir", data, "cat", SNIPPET_FILE.path],
    {
      env: userEnv(),
    },
  ).stdout;
  if (shown !== SNIPPET_FILE.text) throw new Error(`the snippet's file holds\n${shown}`);
}

/**
 * The in-process example (examples/in-process, copied) offline: the memory tool runs hms-mcp's
 * server in its own process, which finds hms-mcp as npm installed it, an optional peer.
 */
function inProcessExample() {
  const dir = join(app, "in-process");
  mkdirSync(dir, { recursive: true });
  for (const file of ["main.ts", "scripted-replies.json"]) {
    copyFileSync(join(ROOT, "examples/in-process/src", file), join(dir, file));
  }
  // A new data directory each run: the example's first conversation creates the file.
  const data = join(app, "in-process-data");
  rmSync(data, { recursive: true, force: true });
  const { stdout, stderr } = run(join(app, "node_modules/.bin/tsx"), ["in-process/main.ts"], {
    cwd: app,
    env: userEnv({ IN_PROCESS_EXAMPLE_DATA_DIR: data }),
    timeout: 120_000,
  });
  const what = "the in-process example";
  if (stderr !== "") throw new Error(`${what} wrote to stderr:\n${stderr}`);
  expectIncludes(stdout, "Claude: Saved: Acme Corp prefers email follow-ups.", what);
  expectIncludes(stdout, "40B\t/memories/clients/acme-corp.md\n", what);
  expectIncludes(stdout, "in process: opened in", what);
}

/** What both quick starts print: conversation 1 creates the file, 2 recalls and views it. */
function checkQuickstart(stdout, language, viewInput) {
  const what = `the ${language} quick start`;
  expectIncludes(stdout, "ANTHROPIC_API_KEY is not set, so this runs OFFLINE", what);
  const [, first = "", second = ""] = stdout.split(/^=== Conversation \d.*===$/m);
  expectIncludes(first, `Claude -> memory: ${viewInput}`, what);
  expectIncludes(first, "File created successfully at: /memories/customers/acme-corp.md", what);
  expectIncludes(second, "Claude -> memory_recall:", what);
  expectIncludes(
    second,
    "1. /memories/customers/acme-corp.md (lines 1-2, score 0.4545, modified 20",
    what,
  );
  expectIncludes(second, "     2\t- Prefers email follow-ups (not phone calls).", what);
  expectIncludes(
    stdout,
    "=== view /memories ===\nHere're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n58B\t/memories\n58B\t/memories/customers/\n58B\t/memories/customers/acme-corp.md\n",
    what,
  );
  if (/^\s*error:/m.test(stdout)) throw new Error(`${what} reported a tool error:\n${stdout}`);
}

/**
 * Hybrid recall from npm: the installed hms-mcp's fetch-model, then a server with the model
 * (on the embedder's WebAssembly runtime: onnxruntime-node is not installed) finds the note
 * for a question with no word in common with it. The client is the MCP SDK hms-mcp brought.
 */
function npmHybrid() {
  const hmsMcp = join(app, "node_modules/.bin/hms-mcp");
  const modelDir = run(hmsMcp, ["fetch-model", "--dir", join(work, "model-npm")], {
    env: userEnv(),
    timeout: 300_000,
  }).stdout.trim();
  writeFileSync(
    join(app, "src/hybrid.mjs"),
    `import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const [modelDir, dataDir] = process.argv.slice(2);
const client = new Client({ name: "pack-install", version: "0" });
await client.connect(new StdioClientTransport({
  command: ${JSON.stringify(hmsMcp)},
  args: ["--data-dir", dataDir, "--model-dir", modelDir, "--log-level", "info"],
  stderr: "inherit",
}));
const call = async (name, args) => (await client.callTool({ name, arguments: args })).structuredContent;
const notes = ["Acme Corp prefers email follow-ups", "The cafeteria serves lunch at noon",
  "Budget review is quarterly", "The build server runs on Debian"];
for (const [i, text] of notes.entries()) await call("remember", { key: \`/memories/\${i}.md\`, text });
const found = await call("recall", { query: "how should I contact that client?", k: 2 });
console.log(JSON.stringify({ build: found.build, first: found.hits[0]?.key }));
await client.close();
`,
  );
  const result = run(process.execPath, ["src/hybrid.mjs", modelDir, join(work, "hybrid-data")], {
    cwd: app,
    env: userEnv(),
    timeout: 180_000,
  });
  if (result.stdout.trim() !== '{"build":"hybrid","first":"/memories/0.md"}') {
    throw new Error(`hybrid recall from npm answered ${result.stdout}`);
  }
  expectIncludes(result.stderr, '"runtime":"onnxruntime-web"', "the hybrid server's log");
}

/** tsc --strict, skipLibCheck off, no DOM library, over every entry point (ESM and CJS). */
function typecheck(entryPoints) {
  const esm = entryPoints.map((spec, i) => `import * as entry${i} from "${spec}";`);
  esm.push(
    'import { startServer, type Config } from "hms-mcp";',
    'import { HolographicMemoryTool } from "holographic-memory-claude-tool";',
    "export const uses: [typeof startServer, Config | undefined, typeof HolographicMemoryTool] = [startServer, undefined, HolographicMemoryTool];",
    `export { ${entryPoints.map((_, i) => `entry${i}`).join(", ")} };`,
  );
  writeFileSync(join(app, "src/consumer.mts"), `${esm.join("\n")}\n`);
  const cjs = entryPoints.map((spec, i) => `import entry${i} = require("${spec}");`);
  cjs.push(`export = [${entryPoints.map((_, i) => `entry${i}`).join(", ")}];`);
  writeFileSync(join(app, "src/consumer.cts"), `${cjs.join("\n")}\n`);
  const tsc = join(app, "node_modules/.bin/tsc");
  const flags = ["--noEmit", "--strict", "--skipLibCheck", "false", "--module", "nodenext"];
  flags.push("--moduleResolution", "nodenext", "--target", "es2022", "--lib", "es2023");
  flags.push("--types", "node");
  run(tsc, [...flags, "src/consumer.mts", "src/consumer.cts", "src/main.ts"], { cwd: app });
}

/** The Python quick start in a new venv per Python version, with the installed hms-mcp. */
function pythonQuickstart(wheel, versions) {
  // The quick start finds the scripted stand-in at <its folder>/../../packages/scripted-model;
  // that is the installed copy here. hms-mcp is not there, so it takes hms-mcp from PATH.
  const root = join(work, "py");
  const example = join(root, "examples/quickstart-python");
  mkdirSync(example, { recursive: true });
  mkdirSync(join(root, "packages"), { recursive: true });
  for (const file of ["quickstart.py", "scripted-replies.json"]) {
    copyFileSync(join(ROOT, "examples/quickstart-python", file), join(example, file));
  }
  if (!existsSync(join(root, "packages/scripted-model"))) {
    symlinkSync(
      join(app, "node_modules/@hms/scripted-model"),
      join(root, "packages/scripted-model"),
    );
  }
  for (const version of versions) {
    const venv = join(work, `venv-${version}`);
    const env = userEnv({ UV_PYTHON_DOWNLOADS: "never" });
    if (!existsSync(venv)) {
      run(UV, ["venv", "--quiet", "--python", version, venv], { env });
      run(UV, ["pip", "install", "--quiet", "--python", join(venv, "bin/python"), wheel], { env });
    }
    const path = [join(app, "node_modules/.bin"), userPath].join(delimiter);
    const { stdout } = run(join(venv, "bin/python"), [join(example, "quickstart.py")], {
      cwd: root,
      env: userEnv({ PATH: path }),
      timeout: 180_000,
    });
    checkQuickstart(stdout, `Python ${version}`, '{"command": "view", "path": "/memories"}');
    step(`Python ${version}: the quick start ran against the installed wheel and hms-mcp`);
  }
}

/** The user's project in `app`: `npm install --ignore-scripts` of the tarballs, on `userPath`'s Node. */
function installProject(tarballs, registry) {
  mkdirSync(join(app, "src"), { recursive: true });
  writeFileSync(
    join(app, "package.json"),
    `${JSON.stringify({ name: "user-app", private: true, type: "module" }, null, 2)}\n`,
  );
  run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", ...tarballs, ...registry], {
    cwd: app,
    env: npmEnv(),
    timeout: 900_000,
  });
  for (const file of ["main.ts", "scripted-replies.json"]) {
    copyFileSync(join(ROOT, "examples/quickstart/src", file), join(app, "src", file));
  }
}

/**
 * What runs on every Node: the installed commands, the README's snippet, the quick start,
 * every entry required.
 */
async function runInstalled(label, hmsMcpVersion, requireAll) {
  const version = run(join(app, "node_modules/.bin/hms-mcp"), ["--version"], { env: userEnv() });
  if (version.stdout.trim() !== hmsMcpVersion) {
    throw new Error(`hms-mcp --version printed ${version.stdout.trim()}, not ${hmsMcpVersion}`);
  }
  // The installed `hms` starts the hms-mcp installed with it on a local data directory: a
  // write creates the store (a read of a store that does not exist is refused), then a read.
  const hms = join(app, "node_modules/.bin/hms");
  const hmsData = ["--data-dir", join(app, "hms-data")];
  run(hms, [...hmsData, "write", "notes.md"], {
    env: userEnv(),
    input: "written by the installed hms\n",
    stdio: ["pipe", "pipe", "pipe"],
  });
  const cliStats = run(hms, [...hmsData, "--json", "stats"], { env: userEnv() });
  const stats = JSON.parse(cliStats.stdout);
  if (stats.server?.name !== "hms-mcp" || stats.memories < 1) {
    throw new Error(`hms stats printed ${cliStats.stdout}`);
  }
  step(`${label}: the installed hms wrote and read a local store through the installed hms-mcp`);
  await typescriptReadmeSnippet();
  step(`${label}: the README's TypeScript snippet ran as written under plain node`);
  typescriptQuickstart();
  step(`${label}: the TypeScript quick start ran against the installed hms-mcp`);
  inProcessExample();
  step(`${label}: the in-process example ran the installed hms-mcp in its own process`);
  run("node", ["--input-type=commonjs", "-e", requireAll], { cwd: app, env: userEnv() });
}

try {
  step(`working in ${work}`);
  const packs = join(work, "packs");
  mkdirSync(packs);
  let tarballs;
  if (options.tarballs !== undefined) {
    const dir = resolve(options.tarballs);
    tarballs = readdirSync(dir)
      .filter((file) => file.endsWith(".tgz"))
      .map((file) => join(dir, file));
  } else {
    tarballs = publishablePackages().map((pkg) => pack(pkg.dir, packs));
  }
  const standIn = workspacePackages().find((pkg) => pkg.name === "@hms/scripted-model");
  const scripted = pack(standIn.dir, packs);
  const ours = tarballs.map((tarball) => ({ tarball, manifest: manifestOf(tarball) }));
  const installed = ours.filter(({ manifest }) => manifest.name !== "@hms/embedder");
  step(`packed ${ours.length} packages and the scripted stand-in for the Messages API`);

  const example = JSON.parse(readFileSync(join(ROOT, "examples/quickstart/package.json"), "utf8"));
  const tools = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies;
  const registry = [
    `@anthropic-ai/sdk@${example.dependencies["@anthropic-ai/sdk"]}`,
    `tsx@${example.dependencies.tsx}`,
    `typescript@${tools.typescript}`,
    `@types/node@${tools["@types/node"]}`,
  ];
  const hmsMcpVersion = installed.find(({ manifest }) => manifest.name === "hms-mcp").manifest
    .version;
  const entryPoints = installed.flatMap(({ manifest }) =>
    Object.keys(manifest.exports ?? { ".": null })
      .filter((key) => !key.endsWith(".json"))
      .map((key) => (key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`)),
  );
  const requireAll = `for (const spec of ${JSON.stringify(entryPoints)}) require(spec);`;
  const ourTarballs = [...installed.map((p) => p.tarball), scripted];

  const [mainNode, ...otherNodes] = nodeBins;
  const labelOf = (nodeBin) => `Node ${run(join(nodeBin, "node"), ["--version"]).stdout.trim()}`;
  userPath = [mainNode, process.env.PATH].join(delimiter);
  const mainLabel = labelOf(mainNode);
  installProject(ourTarballs, registry);
  step(
    `${mainLabel}: npm installed ${installed.length} tarballs (all but @hms/embedder) and ${registry.join(", ")} with --ignore-scripts`,
  );

  const pass = async (label) => {
    await runInstalled(`${mainLabel}, ${label}`, hmsMcpVersion, requireAll);
    typecheck(entryPoints);
    step(`${label}: ${entryPoints.length} entry points type-check (ESM and CJS, strict, no DOM)`);
    for (const name of SHARED) {
      const copies = run("npm", ["ls", name, "--all", "--parseable"], { cwd: app, env: npmEnv() })
        .stdout.trim()
        .split("\n")
        .filter(Boolean);
      if (copies.length !== 1)
        throw new Error(`${copies.length} copies of ${name}:\n${copies.join("\n")}`);
    }
  };
  const shared = () => SHARED.map((name) => `${name}@${installedVersion(name)}`).join(", ");
  await pass(`newest in range (${shared()})`);

  // @hms/embedder as its README installs it: no variable, and no install script anywhere in it.
  const embedder = ours.find(({ manifest }) => manifest.name === "@hms/embedder");
  run("npm", ["install", "--no-audit", "--no-fund", embedder.tarball], {
    cwd: app,
    env: npmEnv(),
    timeout: 300_000,
  });
  npmHybrid();
  step("npm: @hms/embedder installed with no script; hybrid recall ran on WebAssembly");

  const wheels = join(work, "wheel");
  run(UV, ["build", "--quiet", "--wheel", "--out-dir", wheels, join(ROOT, "python")], {
    env: userEnv({ UV_PYTHON_DOWNLOADS: "never" }),
  });
  const wheel = join(
    wheels,
    readdirSync(wheels).find((file) => file.endsWith(".whl")),
  );
  pythonQuickstart(wheel, PYTHON_VERSIONS);
  await pipInstallChecks(
    {
      run,
      userEnv,
      step,
      checkQuickstart,
      UV,
      ROOT,
      work: join(work, "pip"),
      scriptedModel: join(app, "node_modules/@hms/scripted-model"),
    },
    PYTHON_VERSIONS,
  );

  // The floors of our ranges, as an application that pinned them would have them.
  const floors = new Map();
  for (const { manifest } of installed) {
    for (const name of SHARED) {
      const range = manifest.dependencies?.[name];
      if (range) floors.set(name, range.replace(/^\^/, ""));
    }
  }
  const lowest = [...floors].filter(([name, floor]) => installedVersion(name) !== floor);
  if (lowest.length === 0) {
    step(`the lowest versions in range are the newest (${shared()}): nothing more to run`);
  } else {
    run("npm", ["install", "--no-audit", "--no-fund", ...lowest.map(([n, v]) => `${n}@${v}`)], {
      cwd: app,
      env: npmEnv(),
    });
    await pass(`lowest in range (${shared()})`);
    pythonQuickstart(wheel, PYTHON_VERSIONS.slice(0, 1));
  }

  // Every other Node: a project of its own, installed and run with that Node first on PATH.
  for (const nodeBin of otherNodes) {
    const label = labelOf(nodeBin);
    app = join(work, `app-${label.replaceAll(" ", "-")}`);
    userPath = [nodeBin, process.env.PATH].join(delimiter);
    installProject(ourTarballs, registry);
    step(`${label}: npm installed ${installed.length} tarballs with --ignore-scripts`);
    await runInstalled(label, hmsMcpVersion, requireAll);
  }
  step("passed");
} finally {
  if (KEEP) console.error(`pack-install: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
