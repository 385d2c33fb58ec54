// A newcomer's project: `npm install holographic-memory-claude-tool hms-mcp` puts hms-mcp in
// node_modules, not on PATH. connect() with no connection must find it there. The project is
// a real directory whose node_modules/hms-mcp is the workspace's hms-mcp package (a symlink, as
// pnpm and `npm link` make), and the program runs in its own process with a PATH without it.
import { execFile } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cleanEnv, hmsMcpBin, tempDir } from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { findHmsMcp } from "../../src/find-server.js";

const run = promisify(execFile);
const backendDist = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
// The workspace's hms-mcp package: the directory above its dist/cli.js.
const hmsMcpPackage = dirname(dirname(hmsMcpBin()));

describe("hms-mcp installed in the project's node_modules", () => {
  const project = tempDir("hms-project-");
  const nested = join(project.dir, "src", "agents");
  mkdirSync(join(project.dir, "node_modules"), { recursive: true });
  mkdirSync(nested, { recursive: true });
  symlinkSync(hmsMcpPackage, join(project.dir, "node_modules", "hms-mcp"), "dir");
  afterAll(() => project.remove());

  it("is found before PATH, from the project and from a directory inside it", () => {
    const program = join(project.dir, "node_modules", "hms-mcp", "dist", "cli.js");
    for (const cwd of [project.dir, nested]) {
      expect(findHmsMcp({ PATH: "/usr/bin:/bin" }, cwd)).toEqual({
        command: process.execPath,
        args: [program],
      });
    }
  });

  it("is what connectHmsBackend() starts when no connection is given", async () => {
    const script = join(project.dir, "main.mjs");
    writeFileSync(
      script,
      `import { connectHmsBackend } from ${JSON.stringify(backendDist)};
const backend = await connectHmsBackend();
await backend.create("/memories/found.md", "found in node_modules\\n");
console.log(JSON.stringify(await backend.read("/memories/found.md")));
await backend.close();
`,
    );
    const { stdout } = await run(process.execPath, [script], {
      cwd: project.dir,
      env: cleanEnv({ PATH: "/usr/bin:/bin", HMS_MCP_DATA_DIR: join(project.dir, "data") }),
    });
    expect(JSON.parse(stdout)).toEqual({ content: "found in node_modules\n", version: 1 });
  });
});
