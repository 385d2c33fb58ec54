// watch() against real hms-mcp processes: one agent's tool hears of another's memory tool
// commands on the same store (a process over stdio, or a server in this process), in the
// memory tool's own /memories/... terms, until it stops.

import { InMemoryBackend, type MemoryChange } from "@hms/memory-core";
import { hmsMcpCommand, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HolographicMemoryError } from "../../src/errors.js";
import { HolographicMemoryTool } from "../../src/tool.js";

/** The changes told so far, and a way to wait for one. */
function collect() {
  const changes: MemoryChange[] = [];
  const waiters: { matches: (c: MemoryChange) => boolean; done: () => void }[] = [];
  return {
    changes,
    onChange(change: MemoryChange) {
      changes.push(change);
      for (const waiter of [...waiters]) {
        if (waiter.matches(change)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.done();
        }
      }
    },
    until(matches: (c: MemoryChange) => boolean): Promise<void> {
      if (changes.some(matches)) return Promise.resolve();
      return new Promise((done) => waiters.push({ matches, done }));
    },
  };
}

describe.each(["over stdio", "in this process"] as const)("watch(), the watcher %s", (kind) => {
  const data = tempDir();
  let watcher: HolographicMemoryTool;
  let writer: HolographicMemoryTool;

  beforeAll(async () => {
    // The writer is always another process: the watcher hears of writes it did not make.
    writer = await HolographicMemoryTool.connect({
      connection: hmsMcpCommand(["--data-dir", data.dir, "--log-level", "warn"]),
    });
    watcher = await HolographicMemoryTool.connect({
      connection:
        kind === "over stdio"
          ? hmsMcpCommand(["--data-dir", data.dir, "--log-level", "warn"])
          : { inProcess: { dataDir: data.dir, logLevel: "warn" } },
    });
  });
  afterAll(async () => {
    await watcher?.close();
    await writer?.close();
    data.remove();
  });

  it("tells of another agent's commands under a directory, until stopped", async () => {
    const seen = collect();
    const stop = await watcher.watch("/memories/notes", seen.onChange);
    await writer.create({ command: "create", path: "/memories/notes/todo.md", file_text: "a\n" });
    await writer.create({ command: "create", path: "/memories/other.md", file_text: "b\n" });
    await writer.rename({
      command: "rename",
      old_path: "/memories/notes/todo.md",
      new_path: "/memories/notes/done.md",
    });
    await seen.until((c) => c.op === "move");
    await writer.delete({ command: "delete", path: "/memories/notes/done.md" });
    await seen.until((c) => c.op === "delete");
    // A move is told once, by its destination and source; nothing outside the directory.
    expect(seen.changes.filter((c) => c.op === "move")).toEqual([
      { op: "move", path: "/memories/notes/done.md", fromPath: "/memories/notes/todo.md" },
    ]);
    expect(seen.changes.at(-1)).toEqual({
      op: "delete",
      path: "/memories/notes/done.md",
      fromPath: null,
    });
    expect(seen.changes.every((c) => c.path.startsWith("/memories/notes/"))).toBe(true);

    await stop();
    const after = collect();
    const stopAfter = await watcher.watch("/memories/later.md", after.onChange);
    await writer.create({ command: "create", path: "/memories/notes/x.md", file_text: "x\n" });
    await writer.create({ command: "create", path: "/memories/later.md", file_text: "y\n" });
    await after.until((c) => c.path === "/memories/later.md");
    // Told after notes/x.md was made: the stopped watch heard nothing of it.
    expect(seen.changes.some((c) => c.path === "/memories/notes/x.md")).toBe(false);
    await stopAfter();
  });

  it("refuses a path outside /memories", async () => {
    await expect(watcher.watch("/etc", () => {})).rejects.toThrow(HolographicMemoryError);
    await expect(watcher.watch("/etc", () => {})).rejects.toThrow(
      /memory paths must be \/memories or start with \/memories\//,
    );
  });
});

describe("watch() on a backend that cannot watch", () => {
  it("says so", async () => {
    const memory = new HolographicMemoryTool(new InMemoryBackend());
    await expect(memory.watch("/memories", () => {})).rejects.toThrow(
      "watch() needs a backend that tells of changes, such as hms-mcp's (connect()); this " +
        "tool's backend (InMemoryBackend) has none.",
    );
  });
});
