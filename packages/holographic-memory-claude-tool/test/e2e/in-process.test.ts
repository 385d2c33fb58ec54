// The in-process tool (`connection: { inProcess }`) and real hms-mcp processes over stdio on
// one SQLite data directory: each sees the other's writes, concurrent edits from both lose none, and
// once the in-process tool is closed its store files are free for another process to open,
// write and remove.
import { readdirSync, readlinkSync, rmSync } from "node:fs";
import { hmsMcpCommand, tempDir } from "@hms/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { HolographicMemoryTool } from "../../src/tool.js";

const data = tempDir();
afterAll(() => data.remove());

function inProcess(dir: string): Promise<HolographicMemoryTool> {
  return HolographicMemoryTool.connect({
    connection: { inProcess: { dataDir: dir, logLevel: "warn" } },
  });
}

function overStdio(dir: string): Promise<HolographicMemoryTool> {
  return HolographicMemoryTool.connect({
    connection: hmsMcpCommand(["--data-dir", dir, "--log-level", "warn"]),
  });
}

/** The lines of a file, read through the tool. */
async function linesOf(tool: HolographicMemoryTool, path: string): Promise<string[]> {
  const output = await tool.view({ command: "view", path });
  return output
    .split("\n")
    .slice(1)
    .map((row) => row.replace(/^ *\d+\t/, ""));
}

/** The files under `dir` this process holds open. */
function openFilesUnder(dir: string): string[] {
  return readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return []; // closed while listing
    }
  });
}

describe("an in-process tool beside an hms-mcp process on one data directory", () => {
  it("sees the process's writes, and the process sees its writes, history included", async () => {
    const dir = `${data.dir}/shared`;
    const local = await inProcess(dir);
    const remote = await overStdio(dir);
    try {
      await local.create({ command: "create", path: "/memories/a.md", file_text: "local\n" });
      expect(await linesOf(remote, "/memories/a.md")).toEqual(["local"]);
      await remote.str_replace({
        command: "str_replace",
        path: "/memories/a.md",
        old_str: "local",
        new_str: "remote",
      });
      expect(await linesOf(local, "/memories/a.md")).toEqual(["remote"]);
      await remote.rename({
        command: "rename",
        old_path: "/memories/a.md",
        new_path: "/memories/b/a.md",
      });
      expect(await local.view({ command: "view", path: "/memories" })).toContain(
        "/memories/b/a.md",
      );
      const changes = await local.history("/memories/a.md");
      expect(changes.map((change) => [change.op, change.command])).toEqual([
        ["move", "rename"],
        ["update", "str_replace"],
        ["create", "create"],
      ]);
      expect(await remote.history("/memories/a.md")).toEqual(changes);
    } finally {
      await local.close();
      await remote.close();
    }
  });

  it("loses no update when it and two processes edit one file at once", async () => {
    const dir = `${data.dir}/race`;
    const tools = [await inProcess(dir), await overStdio(dir), await overStdio(dir)];
    try {
      const [first] = tools as [HolographicMemoryTool];
      await first.create({ command: "create", path: "/memories/shared.md", file_text: "" });
      await Promise.all(
        tools.map((tool, t) =>
          Promise.all(
            Array.from({ length: 8 }, (_, i) =>
              tool.insert({
                command: "insert",
                path: "/memories/shared.md",
                insert_line: 0,
                insert_text: `writer ${t} edit ${i}`,
              }),
            ),
          ),
        ),
      );
      const lines = await linesOf(tools[1] as HolographicMemoryTool, "/memories/shared.md");
      expect([...lines].sort()).toEqual(
        [0, 1, 2]
          .flatMap((t) => Array.from({ length: 8 }, (_, i) => `writer ${t} edit ${i}`))
          .sort(),
      );
    } finally {
      await Promise.all(tools.map((tool) => tool.close()));
    }
  });

  it("holds no store file open once closed: a process writes it, and it can be removed", async () => {
    const dir = `${data.dir}/released`;
    const local = await inProcess(dir);
    await local.create({ command: "create", path: "/memories/kept.md", file_text: "kept\n" });
    await local.close();
    expect(openFilesUnder(dir)).toEqual([]);
    const remote = await overStdio(dir);
    try {
      expect(await linesOf(remote, "/memories/kept.md")).toEqual(["kept"]);
      await remote.create({ command: "create", path: "/memories/more.md", file_text: "more\n" });
    } finally {
      await remote.close();
    }
    const again = await inProcess(dir);
    try {
      expect(await linesOf(again, "/memories/more.md")).toEqual(["more"]);
    } finally {
      await again.close();
    }
    rmSync(dir, { recursive: true });
    expect(openFilesUnder(data.dir)).toEqual([]);
  });
});
