/**
 * The shell commands of the README and of hms-mcp's guide (docs/integrations/mcp), read from
 * the docs themselves so that the docs and this test cannot drift apart, as docs/cli's first
 * five minutes are (packages/hms-cli/test/e2e/first-five-minutes.test.ts).
 *
 * Every command line is either run here, as written, or named in RUN_ELSEWHERE with the test
 * that runs it (or why none can); a new command in either doc fails this test until it is one
 * or the other. Run here: each line in a shell, in order, with `hms-mcp` on PATH as
 * `npm install -g hms-mcp` puts it there (the workspace build), HOME in a scratch folder (so
 * the default data directory is a new one), the model cache the e2e project fetched, and
 * `export`s carried on through the doc. A server the line starts is stopped once it says it
 * serves, and must stop cleanly. Only what cannot exist here is replaced, and said so in
 * SUBSTITUTIONS: the docs' example database (a real PostgreSQL cluster's database instead),
 * their fixed ports (0: a free one, on a machine shared with other runs), and /etc.
 *
 * Also held here: the README reads in at most 1,300 words outside its code blocks.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  cleanEnv,
  exited,
  hmsMcpBin,
  type PostgresServer,
  startPostgres,
  tempDir,
} from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const README = "README.md";
const GUIDE = "docs/integrations/mcp/README.md";
const README_WORDS = 1300;

/**
 * Commands no test here runs, each with where it is run (or why it cannot be): matched against
 * the whole command line.
 */
const RUN_ELSEWHERE: [RegExp, string][] = [
  [/^npm install /, "scripts/pack-install-test.mjs: npm installs the packed tarballs"],
  [/^pip install /, "scripts/pip-install.mjs: the wheel, and its [hybrid] extra, in venvs"],
  [/^uvx --from holographic-memory-claude-tool hms-mcp$/, "scripts/pip-install.mjs: uvx"],
  [/^\.\/scripts\/(test|setup)\.sh$/, ".ci/run: CI runs scripts/test.sh, which runs setup.sh"],
  [
    /^\.\/scripts\/main\.sh$/,
    "examples/quickstart/src/main.test.ts: the quick start main.sh runs after the set-up",
  ],
  [
    /^PATH=.* examples\/quickstart-python\/quickstart\.py$/,
    "python/tests/e2e/test_quickstart_example.py: the Python quick start",
  ],
  [
    /^claude mcp add /,
    "none: Claude Code is not installed here (checked by hand, as the guide says)",
  ],
];

/** What the docs name that cannot exist here, and what stands for it while they run. */
const SUBSTITUTIONS = {
  databases: /postgres:\/\/hms(?::PASSWORD)?@db\.(?:internal|example\.com)(?::5432)?\/hms/g,
  ports: /--port \d+/g,
  etc: /\/etc\/hms-mcp\//g,
};

interface DocCommand {
  readonly doc: string;
  readonly line: string;
}

/** Every command line of the doc's shell blocks, continuations joined, comments left out. */
function docCommands(doc: string): DocCommand[] {
  const text = readFileSync(join(ROOT, doc), "utf8");
  const commands: DocCommand[] = [];
  for (const block of text.matchAll(/^ *```sh\n([\s\S]*?)^ *```/gm)) {
    const joined = (block[1] as string).replace(/\\\n\s*/g, "");
    for (const raw of joined.split("\n")) {
      const line = raw.replace(/(^|\s+)#(\s.*)?$/, "").trim();
      if (line !== "") commands.push({ doc, line });
    }
  }
  return commands;
}

function elsewhere(line: string): string | undefined {
  return RUN_ELSEWHERE.find(([pattern]) => pattern.test(line))?.[1];
}

function wordsOutsideCode(markdown: string): number {
  return markdown
    .replace(/^ *```.*?^ *```/gms, "")
    .split(/\s+/)
    .filter(Boolean).length;
}

describe("the README", () => {
  it(`reads in at most ${README_WORDS} words outside its code blocks`, () => {
    const words = wordsOutsideCode(readFileSync(join(ROOT, README), "utf8"));
    expect(words).toBeLessThanOrEqual(README_WORDS);
  });
});

describe("the commands of the README and of hms-mcp's guide", () => {
  const scratch = tempDir("hms-docs-");
  const bin = join(scratch.dir, "bin");
  const home = join(scratch.dir, "home");
  let postgres: PostgresServer;
  const running: ChildProcess[] = [];

  beforeAll(async () => {
    mkdirSync(bin, { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(
      join(bin, "hms-mcp"),
      `#!/bin/sh\nexec "${process.execPath}" "${hmsMcpBin()}" "$@"\n`,
    );
    chmodSync(join(bin, "hms-mcp"), 0o755);
    postgres = await startPostgres();
  });
  afterAll(async () => {
    for (const child of running) child.kill("SIGKILL");
    postgres?.remove();
    scratch.remove();
  });

  it("are each run here or named with the test that runs them", () => {
    const commands = [...docCommands(README), ...docCommands(GUIDE)];
    expect(commands.length).toBeGreaterThan(20);
    const unaccounted = commands.filter(({ line }) => !elsewhere(line) && !runsHere(line));
    expect(unaccounted).toEqual([]);
  });

  for (const doc of [GUIDE, README]) {
    it(`of ${doc} run as written`, async () => {
      // One database per doc: each copies a store into it, which needs an empty destination.
      const database = postgres.createDatabase("docs");
      const env = cleanEnv({
        PATH: `${bin}:${process.env.PATH ?? ""}`,
        HOME: home,
        // The model the e2e project's set-up fetched: fetch-model finds it verified.
        HMS_MCP_MODELS_DIR: dirname(inject("modelDir")),
        // A free port for a line that names none (8765, the default, may be taken here).
        HMS_MCP_PORT: "0",
      });
      for (const key of ["XDG_DATA_HOME", "XDG_CACHE_HOME"]) delete env[key];
      let ran = 0;
      for (const { line } of docCommands(doc)) {
        if (elsewhere(line)) continue;
        const command = line
          .replace(SUBSTITUTIONS.databases, database)
          .replace(SUBSTITUTIONS.ports, "--port 0")
          .replace(SUBSTITUTIONS.etc, `${scratch.dir}/`);
        const exported = /^export ([A-Z_]+)='([^']*)'$/.exec(command);
        if (exported) {
          env[exported[1] as string] = exported[2] as string;
          continue;
        }
        await runLine(command, env, scratch.dir, running);
        ran += 1;
      }
      expect(ran).toBeGreaterThan(2);
    });
  }
});

/** Whether this test runs `line`: an hms-mcp command (by name or the workspace's path). */
function runsHere(line: string): boolean {
  return (
    /^export [A-Z_]+='[^']*'$/.test(line) ||
    /^([A-Z_]+=(\$\([^)]*\)|'[^']*'|\S+) )*(hms-mcp|node packages\/hms-mcp\/dist\/cli\.js)( |$)/.test(
      line,
    ) ||
    line === "pnpm fetch-model"
  );
}

/** The subcommands that run and exit; anything else starts a server. */
const SUBCOMMAND =
  /(?:^|\s)(?:hms-mcp|cli\.js) (?:help|token|migrate|copy|fetch-model|namespaces)\b|--help$|^pnpm /;

/**
 * Runs one doc line in a shell in `cwd` (the repository's root for a path into it). A
 * subcommand must exit 0; a server must say it serves, then stop cleanly on SIGTERM (stdio:
 * when its stdin closes, as when its client goes). `hms-mcp token create` writes the line it
 * prints to tokens.jsonl, which the next lines name.
 */
async function runLine(
  line: string,
  env: Record<string, string>,
  cwd: string,
  running: ChildProcess[],
): Promise<void> {
  const inRepo = line.includes("packages/hms-mcp/dist/cli.js") || line.startsWith("pnpm ");
  // `exec` makes the server the shell's own process, so a signal reaches it; assignments
  // before the command are exported first (`A=b exec c` is not portable).
  const assignments = /^((?:[A-Z_]+=(?:\$\([^)]*\)|'[^']*'|\S+) )*)(.*)$/.exec(line);
  const script = `${(assignments?.[1] ?? "").trim().replace(/(^|\s)([A-Z_]+=)/g, "$1export $2")}${assignments?.[1] ? "; " : ""}exec ${assignments?.[2]}`;
  const child = spawn("/bin/sh", ["-c", script], {
    cwd: inRepo ? ROOT : cwd,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  running.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const serving = new Promise<void>((resolve) => {
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/"msg":"hms-mcp (serving on stdio|listening on )/.test(stderr)) resolve();
    });
  });
  const code = exited(child);
  const what = `${line}\n(ran: ${script})`;
  if (SUBCOMMAND.test(line)) {
    child.stdin?.end();
    expect(await code, `${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`).toBe(0);
    if (line.includes(" token create ")) {
      const entry = stdout.split("\n").find((row) => row.trim().startsWith('{"name"'));
      expect(entry, `${what} printed no line for the tokens file:\n${stdout}`).toBeDefined();
      writeFileSync(join(cwd, "tokens.jsonl"), `${entry?.trim()}\n`);
    }
    if (line.endsWith(" fetch-model") || line === "pnpm fetch-model") {
      expect(stdout.trim(), what).toBe(inject("modelDir"));
    }
    return;
  }
  const outcome = await Promise.race([serving.then(() => "serving"), code.then(() => "ended")]);
  expect(outcome, `${what}\nstderr:\n${stderr}`).toBe("serving");
  // A first answer, then the end: the server's shutdown handlers are set up after the line
  // that says it serves, on the same turn of its event loop, which an answer has passed.
  const url = /"url":"(http[^"]*)\/mcp"/.exec(stderr)?.[1];
  if (url === undefined) {
    const answered = new Promise<void>((resolve) => {
      child.stdout?.on("data", () => {
        if (stdout.includes('"id":1')) resolve();
      });
    });
    child.stdin?.write(`${JSON.stringify(INITIALIZE)}\n`);
    await answered;
    child.stdin?.end();
  } else {
    const health = await fetch(`${url.replace("0.0.0.0", "127.0.0.1")}/healthz`);
    expect(health.status, what).toBe(200);
    child.kill("SIGTERM");
  }
  expect(await code, `${what}\nstderr:\n${stderr}`).toBe(0);
  expect(stderr, what).toContain('"msg":"stopped"');
}

/** The MCP initialize request a client sends first. */
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "docs-commands", version: "0" },
  },
};
