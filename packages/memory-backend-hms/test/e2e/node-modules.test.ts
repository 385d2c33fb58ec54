// A newcomer's project: `npm install holographic-memory-claude-tool hms-mcp` puts hms-mcp in
// node_modules, not on PATH, and `node main.js` (unlike `npx` or an npm script) does not put
// node_modules/.bin on PATH either. connect() with no connection, and with the bare command
// "hms-mcp" as the README writes it, must find it there. The project is a real directory whose
// node_modules/hms-mcp is the workspace's hms-mcp package (a symlink, as pnpm and `npm link`
// make), and each program runs in its own process, under plain `node`, with a PATH without it.
import { execFile } from "node:child_process";
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cleanEnv, hmsMcpBin, tempDir } from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { HmsMcpNotFoundError } from "../../src/errors.js";
import { findHmsMcp } from "../../src/find-server.js";

const run = promisify(execFile);
const backendDist = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
const backendCjs = fileURLToPath(new URL("../../dist/index.cjs", import.meta.url));
// The workspace's hms-mcp package: the directory above its dist/cli.js.
const hmsMcpPackage = dirname(dirname(hmsMcpBin()));
const NO_HMS_MCP_PATH = "/usr/bin:/bin";

/** A program that writes a file through the backend and prints what it reads back. */
function program(connection: string, importLine: string): string {
  return `${importLine}
const backend = await connectHmsBackend(${connection});
await backend.create("/memories/found.md", "found\\n");
console.log(JSON.stringify(await backend.read("/memories/found.md")));
await backend.close();
`;
}

describe("hms-mcp installed in the project's node_modules", () => {
  const project = tempDir("hms-project-");
  const nested = join(project.dir, "src", "agents");
  mkdirSync(join(project.dir, "node_modules"), { recursive: true });
  mkdirSync(nested, { recursive: true });
  symlinkSync(hmsMcpPackage, join(project.dir, "node_modules", "hms-mcp"), "dir");
  afterAll(() => project.remove());
  const importEsm = `import { connectHmsBackend } from ${JSON.stringify(backendDist)};`;

  it("is found before PATH, from the project and from a directory inside it", () => {
    const program = join(project.dir, "node_modules", "hms-mcp", "dist", "cli.js");
    for (const cwd of [project.dir, nested]) {
      expect(findHmsMcp({ PATH: NO_HMS_MCP_PATH }, cwd)).toEqual({
        command: process.execPath,
        args: [program],
      });
    }
  });

  it("is what connectHmsBackend() starts when no connection is given", async () => {
    const script = join(project.dir, "main.mjs");
    writeFileSync(script, program("", importEsm));
    const { stdout, stderr } = await run(process.execPath, [script], {
      cwd: project.dir,
      env: cleanEnv({ PATH: NO_HMS_MCP_PATH, HMS_MCP_DATA_DIR: join(project.dir, "data") }),
    });
    expect(JSON.parse(stdout)).toEqual({ content: "found\n", version: 1 });
    // A library keeps its user's stderr quiet: the server's start-up lines stay out.
    expect(stderr).toBe("");
  });

  it('is what the bare command "hms-mcp" starts under plain node, its args after the program', async () => {
    const script = join(project.dir, "bare.mjs");
    const data = join(project.dir, "bare-data");
    const connection = `{ connection: { command: "hms-mcp", args: ["--data-dir", ${JSON.stringify(data)}] } }`;
    writeFileSync(script, program(connection, importEsm));
    const { stdout, stderr } = await run(process.execPath, [script], {
      cwd: nested,
      env: cleanEnv({ PATH: NO_HMS_MCP_PATH }),
    });
    expect(JSON.parse(stdout)).toEqual({ content: "found\n", version: 1 });
    // A library keeps its user's stderr quiet: the server's start-up lines stay out.
    expect(stderr).toBe("");
    // The args reached the server: the store is in the directory they named.
    const check = join(project.dir, "check.mjs");
    writeFileSync(
      check,
      `${importEsm}
const backend = await connectHmsBackend({ connection: { command: "hms-mcp", args: ["--data-dir", ${JSON.stringify(data)}] } });
console.log((await backend.read("/memories/found.md"))?.content);
await backend.close();
`,
    );
    expect((await run(process.execPath, [check], { cwd: "/", env: cleanEnv() })).stdout).toBe(
      "found\n\n",
    );
  });

  it("passes the server's log on when the caller asks for it (HMS_MCP_LOG_LEVEL)", async () => {
    const script = join(project.dir, "verbose.mjs");
    writeFileSync(script, program("", importEsm));
    const { stderr } = await run(process.execPath, [script], {
      cwd: project.dir,
      env: cleanEnv({
        PATH: NO_HMS_MCP_PATH,
        HMS_MCP_DATA_DIR: join(project.dir, "verbose-data"),
        HMS_MCP_LOG_LEVEL: "info",
      }),
    });
    expect(stderr).toContain('"msg":"hms-mcp serving on stdio"');
  });
});

describe("hms-mcp installed beside this package, the working directory elsewhere", () => {
  // A service started in "/" or in a folder of its own: no node_modules there or above. The
  // hms-mcp this package resolves (the workspace links it, as npm and pnpm link an optional
  // peer the application installed) is the one to start, before PATH.
  const elsewhere = tempDir("hms-elsewhere-");
  afterAll(() => elsewhere.remove());

  it("is found before PATH", () => {
    expect(findHmsMcp({ PATH: NO_HMS_MCP_PATH }, elsewhere.dir)).toEqual({
      command: process.execPath,
      args: [realpathSync(hmsMcpBin())],
    });
  });

  it('is what the bare command "hms-mcp" starts, from the ESM and the CommonJS builds', async () => {
    const data = join(elsewhere.dir, "data");
    const connection = `{ connection: { command: "hms-mcp", args: ["--data-dir", ${JSON.stringify(data)}] } }`;
    const esm = join(elsewhere.dir, "main.mjs");
    writeFileSync(
      esm,
      program(connection, `import { connectHmsBackend } from ${JSON.stringify(backendDist)};`),
    );
    const cjs = join(elsewhere.dir, "main.cjs");
    writeFileSync(
      cjs,
      `(async () => {\n${program(connection, `const { connectHmsBackend } = require(${JSON.stringify(backendCjs)});`)}})();\n`,
    );
    const env = cleanEnv({ PATH: NO_HMS_MCP_PATH });
    const first = await run(process.execPath, [esm], { cwd: elsewhere.dir, env });
    expect(JSON.parse(first.stdout)).toEqual({ content: "found\n", version: 1 });
    rmSync(data, { recursive: true });
    const second = await run(process.execPath, [cjs], { cwd: elsewhere.dir, env });
    expect(JSON.parse(second.stdout)).toEqual({ content: "found\n", version: 1 });
  });

  it("says where it looked when hms-mcp is nowhere", () => {
    const error = (() => {
      try {
        findHmsMcp({ PATH: elsewhere.dir }, elsewhere.dir, () => undefined);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(HmsMcpNotFoundError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^No hms-mcp server to start: HMS_MCP_BIN is not set, and hms-mcp is neither in node_modules \\(of ${elsewhere.dir} or above, or beside this package\\) nor on PATH\\.`,
      ),
    );
  });
});
