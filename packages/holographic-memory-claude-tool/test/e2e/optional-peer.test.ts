// hms-mcp is an optional peer dependency, loaded only for connection.inProcess. A project is
// laid out as an installer lays it out: this package and @hms/memory-backend-hms as built
// (their dist copied in), their dependencies linked, and no hms-mcp, no store, no SQLite
// driver. The program runs in its own process from the project:
// - over stdio (hms-mcp started by path) it works, so neither importing the tool nor a stdio
//   session loads hms-mcp or anything of the server (there is nothing of it to load);
// - connection.inProcess says hms-mcp is not installed and what to install;
// - once hms-mcp is installed beside it (linked), the same in-process connect works, from the
//   ES module build and the CommonJS build.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cleanEnv, hmsMcpBin, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const toolDir = fileURLToPath(new URL("../..", import.meta.url));
const backendDir = realpathSync(join(toolDir, "node_modules", "@hms", "memory-backend-hms"));
const hmsMcpPackage = dirname(dirname(hmsMcpBin()));

const project = tempDir("hms-peer-");
const modules = join(project.dir, "node_modules");
afterAll(() => project.remove());

/** `name`, as the package at `from` has it installed, linked into the project. */
function link(from: string, name: string): void {
  mkdirSync(dirname(join(modules, name)), { recursive: true });
  symlinkSync(realpathSync(join(from, "node_modules", name)), join(modules, name), "dir");
}

/** A package as built: its manifest and dist, copied (so it resolves from the project). */
function copyBuilt(from: string, name: string): void {
  const to = join(modules, name);
  mkdirSync(to, { recursive: true });
  cpSync(join(from, "package.json"), join(to, "package.json"));
  cpSync(join(from, "dist"), join(to, "dist"), { recursive: true });
}

beforeAll(() => {
  copyBuilt(toolDir, "holographic-memory-claude-tool");
  copyBuilt(backendDir, "@hms/memory-backend-hms");
  for (const name of ["@hms/memory-core", "@hms/memory-paths", "@anthropic-ai/sdk"]) {
    link(toolDir, name);
  }
  for (const name of ["@hms/protocol", "@modelcontextprotocol/sdk", "zod"]) link(backendDir, name);
  writeFileSync(
    join(project.dir, "main.mjs"),
    `import { HolographicMemoryTool } from "holographic-memory-claude-tool";
const [how, dataDir] = process.argv.slice(2);
const connection =
  how === "stdio"
    ? { command: process.execPath, args: [${JSON.stringify(hmsMcpBin())}, "--data-dir", dataDir, "--log-level", "warn"] }
    : { inProcess: { dataDir, logLevel: "warn" } };
let hmsMcp;
try {
  hmsMcp = import.meta.resolve("hms-mcp");
} catch {
  hmsMcp = null;
}
try {
  const memory = await HolographicMemoryTool.connect({ connection });
  if (how === "stdio") {
    await memory.create({ command: "create", path: "/memories/a.md", file_text: "over stdio\\n" });
  }
  const view = await memory.view({ command: "view", path: "/memories/a.md" });
  await memory.close();
  console.log(JSON.stringify({ hmsMcp, view }));
} catch (error) {
  console.log(JSON.stringify({ hmsMcp, name: error.name, code: error.code, message: error.message }));
}
`,
  );
  writeFileSync(
    join(project.dir, "main.cjs"),
    `const { HolographicMemoryTool } = require("holographic-memory-claude-tool");
(async () => {
  const memory = await HolographicMemoryTool.connect({
    connection: { inProcess: { dataDir: process.argv[2], logLevel: "warn" } },
  });
  const view = await memory.view({ command: "view", path: "/memories/a.md" });
  await memory.close();
  console.log(JSON.stringify({ view }));
})();
`,
  );
});

async function main(script: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [join(project.dir, script), ...args], {
    cwd: project.dir,
    env: cleanEnv({ PATH: "/usr/bin:/bin" }),
  });
  return JSON.parse(stdout);
}

const VIEW = "Here's the content of /memories/a.md with line numbers:\n     1\tover stdio";

describe("hms-mcp, an optional peer", () => {
  it("is not needed to import the tool and use hms-mcp over stdio", async () => {
    expect(await main("main.mjs", "stdio", join(project.dir, "data"))).toEqual({
      hmsMcp: null,
      view: VIEW,
    });
  });

  it("is named, with what to install, when connection.inProcess needs it", async () => {
    expect(await main("main.mjs", "in-process", join(project.dir, "data"))).toEqual({
      hmsMcp: null,
      name: "HmsMcpNotFoundError",
      message:
        "connection.inProcess runs the hms-mcp server in this process, and the hms-mcp " +
        "package is not installed where this package can load it: install it beside this " +
        "package (`npm install hms-mcp`; it is an optional peer dependency, needed only for " +
        "connection.inProcess), or connect over stdio or HTTP instead.",
    });
  });

  it("runs the server in process once installed, from ES modules and CommonJS", async () => {
    symlinkSync(hmsMcpPackage, join(modules, "hms-mcp"), "dir");
    const found = await main("main.mjs", "in-process", join(project.dir, "data"));
    expect(found).toEqual({ hmsMcp: expect.stringContaining("/hms-mcp/"), view: VIEW });
    expect(await main("main.cjs", join(project.dir, "data"))).toEqual({ view: VIEW });
  });
});
