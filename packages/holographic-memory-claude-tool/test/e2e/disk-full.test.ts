// A full disk through the tool and a real hms-mcp over stdio: the data directory is a small
// tmpfs, filled by memory files and then by a file of its own. Claude is told what happened
// (STORAGE_FULL, the disk is full) and can still delete to make room, then write again. And
// deleting does make room: once every file is deleted, as many fit again (at least 80%), the
// history of the deleted files giving way, oldest first, and the server saying so.

import { fillDisk, hmsMcpCommand, mountTmpfs, startHttpServer } from "@hms/test-support";
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

describe("deleting every memory file of a full disk", () => {
  it("makes room for at least 80% as many again: the history gives way, and the log says so", async () => {
    const small = mountTmpfs(12);
    const server = await startHttpServer({ dataDir: small.dir, args: ["--log-level", "info"] });
    const tool = await HolographicMemoryTool.connect({ connection: { url: server.url } });
    try {
      const path = (round: number, n: number) => `/memories/r${round}/d${n % 8}/f${n}.md`;
      /** Creates files of about 28 KB until the disk is full; returns how many fit. */
      const fill = async (round: number) => {
        for (let n = 0; ; n++) {
          try {
            await tool.execute({ command: "create", path: path(round, n), file_text: text(n) });
          } catch (error) {
            expect((error as HolographicMemoryError).code).toBe("STORAGE_FULL");
            return n;
          }
        }
      };
      const fit = await fill(0);
      expect(fit).toBeGreaterThan(50);
      // Every file deleted, one by one, and the last directory's in one delete.
      for (let n = 0; n < fit; n++) {
        if (n % 8 !== 7) await tool.execute({ command: "delete", path: path(0, n) });
      }
      await tool.execute({ command: "delete", path: "/memories/r0/d7" });
      const again = await fill(1);
      expect(again).toBeGreaterThanOrEqual(Math.ceil(0.8 * fit));
      const warnings = server
        .stderr()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { level: number; msg: string; reason?: string })
        .filter((line) => line.reason === "disk_full");
      // pino's warn level is 40.
      expect(warnings.length).toBeGreaterThan(0);
      expect(warnings.every((line) => line.level === 40)).toBe(true);
      expect(warnings[0]?.msg).toMatch(
        /^the disk holding namespace default's store is full: dropped the \d+ oldest changes of the history of memory files \([\d,]+ bytes, made up to \S+\) to make room for a write$/,
      );
    } finally {
      await tool.close();
      await server.stop();
      small.remove();
    }
  });
});
