// Against a real hms-mcp behind a proxy that hides its atomic operations (the `move` tool and
// `forget`'s `prefix`), the backend offers none of them and the engine falls back to per-file
// copies and deletes: the conformance suite and every vector still pass, and renames of whole
// directories still leave no trace of the original.
import { type MemoryBackend, MemoryEngine } from "@hms/memory-core";
import { runBackendConformance, runCommandVectors } from "@hms/memory-core/testing";
import { hidingProxyCommand, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HmsMemoryBackend } from "./backend.js";
import { connectHmsBackend } from "./connect.js";

let data: ReturnType<typeof tempDir>;
let backend: HmsMemoryBackend;

beforeAll(async () => {
  data = tempDir();
  backend = await connectHmsBackend({
    connection: hidingProxyCommand(
      ["move", "forget.prefix"],
      ["--data-dir", data.dir, "--log-level", "warn"],
    ),
  });
});

afterAll(async () => {
  await backend?.close();
  data?.remove();
});

async function clear(b: MemoryBackend): Promise<void> {
  for (const entry of await b.list("/memories/")) await b.delete(entry.path);
}

describe("a server without atomic moves and prefix deletes", () => {
  it("is discovered from tools/list: the backend offers no move, movePrefix or deletePrefix", () => {
    expect(backend.move).toBeUndefined();
    expect(backend.movePrefix).toBeUndefined();
    expect(backend.deletePrefix).toBeUndefined();
  });

  it("really lacks them: the hidden operations are refused by the server", async () => {
    await expect(backend.call("move", { from: "/memories/a", to: "/memories/b" })).rejects.toThrow(
      /Unknown tool: move/,
    );
    await expect(backend.call("forget", { prefix: "/memories/" })).rejects.toThrow(
      /INVALID_ARGUMENT: unknown argument prefix/,
    );
  });

  it("renames a directory by copy-then-delete and deletes one file by file", async () => {
    const engine = new MemoryEngine(backend);
    await engine.create({ command: "create", path: "/memories/p/a.md", file_text: "a\n" });
    await engine.create({ command: "create", path: "/memories/p/q/b.md", file_text: "b\n" });
    await expect(
      engine.rename({ command: "rename", old_path: "/memories/p", new_path: "/memories/r/s" }),
    ).resolves.toBe("Successfully renamed /memories/p to /memories/r/s");
    expect((await backend.list("/memories/")).map((e) => e.path)).toEqual([
      "/memories/r/s/a.md",
      "/memories/r/s/q/b.md",
    ]);
    expect((await backend.read("/memories/r/s/q/b.md"))?.content).toBe("b\n");
    await engine.delete({ command: "delete", path: "/memories/r" });
    expect(await backend.list("/memories/")).toEqual([]);
  });
});

const factory = {
  name: "hms-mcp without atomic operations",
  makeBackend: () => backend,
  disposeBackend: clear,
};
runBackendConformance(factory, { describe, it });
runCommandVectors(factory, { describe, it });
