// The tool's history() and restore() against a real hms-mcp, a process over stdio and in this
// process: a file's changes as Claude's commands made them, and an old version brought back,
// the same either way.

import { hmsMcpCommand, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HolographicMemoryError } from "../../src/errors.js";
import { HolographicMemoryTool } from "../../src/tool.js";

describe.each(["over stdio", "in this process"] as const)("history() and restore(), %s", (kind) => {
  const data = tempDir();
  let memory: HolographicMemoryTool;

  beforeAll(async () => {
    memory = await HolographicMemoryTool.connect({
      connection:
        kind === "over stdio"
          ? hmsMcpCommand(["--data-dir", data.dir, "--log-level", "warn"])
          : { inProcess: { dataDir: data.dir, logLevel: "warn" } },
    });
  });
  afterAll(async () => {
    await memory?.close();
    data.remove();
  });

  it("lists what Claude's commands did to a file and brings a version back", async () => {
    await memory.create({ command: "create", path: "/memories/plan.md", file_text: "ship v1\n" });
    await memory.str_replace({
      command: "str_replace",
      path: "/memories/plan.md",
      old_str: "v1",
      new_str: "v2",
    });
    await memory.rename({
      command: "rename",
      old_path: "/memories/plan.md",
      new_path: "/memories/roadmap.md",
    });

    const changes = await memory.history("/memories/plan.md");
    // Each change names the memory tool command that made it.
    expect(changes.map((change) => [change.op, change.path, change.command])).toEqual([
      ["move", "/memories/roadmap.md", "rename"],
      ["update", "/memories/plan.md", "str_replace"],
      ["create", "/memories/plan.md", "create"],
    ]);
    const first = changes[2];
    expect(first?.fromPath).toBeNull();
    expect(first?.at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const version = await memory.restore("/memories/plan.md", first?.version as number);
    expect(version).toBeGreaterThan(changes[0]?.version as number);
    expect(await memory.view({ command: "view", path: "/memories/plan.md" })).toContain("ship v1");
    expect((await memory.history("/memories/plan.md", 1))[0]).toMatchObject({
      op: "create",
      command: "restore",
    });
  });

  it("refuses a path Claude's tool would refuse, and a version the history lacks", async () => {
    const badPath = await memory.history("/memories/../etc").catch((error: unknown) => error);
    expect(HolographicMemoryError.isInstance(badPath)).toBe(true);
    expect((badPath as HolographicMemoryError).code).toBe("invalid_path");
    const missing = await memory.restore("/memories/none.md", 99_999).catch((e: unknown) => e);
    expect(HolographicMemoryError.isInstance(missing)).toBe(true);
    expect((missing as Error).message).toContain("has no version 99999");
  });
});
