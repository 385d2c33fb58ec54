// Against a real hms-mcp behind a proxy that hides some of its capabilities, the backend
// offers only what is left and the engine takes its other paths: with the tree forms hidden
// (`move.tree`, `forget.tree`), a server of the older kind (checks, then deletePrefix / move /
// movePrefix); with `move` and `forget.prefix` hidden too, none (checks, then per-file copies
// and deletes). The conformance suite and every vector pass either way, and renames of whole
// directories still leave no trace of the original. The server itself still keeps the tree well
// formed, so a create that loses a race to another writer is still refused, with the message
// the engine's own check gives.
import { type MemoryBackend, MemoryEngine, type MemoryToolError } from "@hms/memory-core";
import { runBackendConformance, runCommandVectors } from "@hms/memory-core/testing";
import { hidingProxyCommand, seedFilesIn, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HmsMemoryBackend } from "./backend.js";
import { connectHmsBackend } from "./connect.js";

const configurations = [
  { name: "hms-mcp without the tree operations", hidden: ["move.tree", "forget.tree"] },
  { name: "hms-mcp without atomic operations", hidden: ["move", "forget.prefix", "forget.tree"] },
];

for (const { name, hidden } of configurations) {
  describe(name, () => {
    let data: ReturnType<typeof tempDir>;
    let backend: HmsMemoryBackend;

    beforeAll(async () => {
      data = tempDir();
      backend = await connectHmsBackend({
        connection: hidingProxyCommand(hidden, ["--data-dir", data.dir, "--log-level", "warn"]),
      });
    });

    afterAll(async () => {
      await backend?.close();
      data?.remove();
    });

    async function clear(): Promise<void> {
      for (const entry of await backend.list("/memories/")) await backend.delete(entry.path);
    }

    it("is discovered from tools/list: the backend offers only what is left", () => {
      expect(backend.enforcesTree).toBe(false);
      expect(backend.moveTree).toBeUndefined();
      expect(backend.deleteTree).toBeUndefined();
      const older = !hidden.includes("move");
      expect(backend.move !== undefined).toBe(older);
      expect(backend.movePrefix !== undefined).toBe(older);
      expect(backend.deletePrefix !== undefined).toBe(older);
    });

    it("really lacks them: the hidden forms are refused by the server", async () => {
      await expect(
        backend.call("move", { from: "/memories/a", to: "/memories/b", tree: true }),
      ).rejects.toThrow(hidden.includes("move") ? /Unknown tool: move/ : /unknown argument tree/);
      await expect(backend.call("forget", { key: "/memories/a", tree: true })).rejects.toThrow(
        /INVALID_ARGUMENT: unknown argument tree/,
      );
    });

    it("renames a directory and deletes one, leaving no trace of the original", async () => {
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

    it("reports the server's own tree refusal as the engine's check would", async () => {
      // Another writer creates /memories/t/x.md after the engine's checks of /memories/t and
      // before its create: the server refuses the create (PATH_CONFLICT).
      const engine = new MemoryEngine(backend);
      let raced = false;
      const racing: MemoryBackend = {
        read: (path) => backend.read(path),
        create: (path, content) => backend.create(path, content),
        update: (path, content, version) => backend.update(path, content, version),
        delete: (path, version) => backend.delete(path, version),
        list: async (prefix, limit) => {
          const entries = await backend.list(prefix, limit);
          if (!raced && prefix === "/memories/t/") {
            raced = true;
            await backend.create("/memories/t/x.md", "another writer's file");
          }
          return entries;
        },
      };
      const error = (await new MemoryEngine(racing)
        .create({ command: "create", path: "/memories/t", file_text: "x" })
        .catch((e: unknown) => e)) as MemoryToolError;
      expect([error.code, error.message]).toEqual([
        "is_a_directory",
        "Cannot create /memories/t because it is a directory. Create a file inside it instead (a path starting with /memories/t/).",
      ]);
      expect((await backend.list("/memories/")).map((e) => e.path)).toEqual(["/memories/t/x.md"]);
      await engine.delete({ command: "delete", path: "/memories/t" });
    });

    const factory = {
      name,
      makeBackend: () => backend,
      disposeBackend: clear,
      seedFiles: (b: MemoryBackend, files: Record<string, string>) =>
        seedFilesIn(data.dir)(b, files),
    };
    runBackendConformance(factory, { describe, it });
    runCommandVectors(factory, { describe, it });
  });
}
