// A full disk through the tool and a real hms-mcp over stdio: the data directory is a small
// tmpfs, filled by memory files and then by a file of its own. Claude is told what happened
// (STORAGE_FULL, the disk is full) and can still delete to make room, then write again.

import { fillDisk, hmsMcpCommand, mountTmpfs } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HolographicMemoryError } from "../../src/errors.js";
import { HolographicMemoryTool } from "../../src/tool.js";

const disk = mountTmpfs(8);
let memory: HolographicMemoryTool;

beforeAll(async () => {
  memory = await HolographicMemoryTool.connect({
    connection: hmsMcpCommand(["--data-dir", disk.dir, "--log-level", "warn"]),
  });
});
afterAll(async () => {
  await memory?.close();
  disk.remove();
});

/** About 28 KB of words that differ from file to file (the full-text index grows too). */
const text = (i: number) =>
  Array.from({ length: 4000 }, (_, j) => `w${(i * 7919 + j) % 100000}`).join(" ");

async function refusal(action: Promise<unknown>): Promise<HolographicMemoryError> {
  try {
    await action;
  } catch (error) {
    expect(error).toBeInstanceOf(HolographicMemoryError);
    return error as HolographicMemoryError;
  }
  throw new Error("expected the command to be refused");
}

describe("a full disk", () => {
  it("says the disk is full, deletes on the truly full disk, then creates again", async () => {
    let created = 0;
    let full: HolographicMemoryError | undefined;
    while (full === undefined) {
      try {
        await memory.execute({
          command: "create",
          path: `/memories/f${created}.md`,
          file_text: text(created),
        });
        created++;
      } catch (error) {
        full = error as HolographicMemoryError;
      }
    }
    expect(created).toBeGreaterThan(10);
    expect(full).toBeInstanceOf(HolographicMemoryError);
    expect(full.code).toBe("STORAGE_FULL");
    expect(full.message).toContain("the disk holding the store is full");
    expect(full.message).toContain("deleting still works");

    fillDisk(disk.dir);
    const again = await refusal(
      memory.execute({ command: "create", path: "/memories/more.md", file_text: text(created) }),
    );
    expect(again.code).toBe("STORAGE_FULL");

    expect(await memory.execute({ command: "delete", path: "/memories/f0.md" })).toContain(
      "deleted",
    );
    expect(await memory.execute({ command: "delete", path: "/memories/f1.md" })).toContain(
      "deleted",
    );
    await memory.execute({
      command: "create",
      path: "/memories/small.md",
      file_text: "room again",
    });
    expect(await memory.execute({ command: "view", path: "/memories/small.md" })).toContain(
      "room again",
    );
  });
});
