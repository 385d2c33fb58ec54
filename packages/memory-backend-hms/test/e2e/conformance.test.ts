// The MemoryBackend contract and every shared command vector, through a real hms-mcp process
// over stdio, with the tree capability every hms-mcp offers (one call per create, delete and
// rename). One server serves the whole file; each test starts from an empty store (what a test
// wrote is deleted after it), so tests are isolated without a process each.
import { type MemoryBackend, MemoryEngine } from "@hms/memory-core";
import { runBackendConformance, runCommandVectors } from "@hms/memory-core/testing";
import { hmsMcpCommand, seedFilesIn, storeArgs, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HmsMemoryBackend } from "../../src/backend.js";
import { connectHmsBackend } from "../../src/connect.js";

let data: ReturnType<typeof tempDir>;
let server: HmsMemoryBackend;

beforeAll(async () => {
  data = tempDir();
  server = await connectHmsBackend({
    connection: {
      ...hmsMcpCommand([...storeArgs(data.dir), "--log-level", "warn"]),
      stderr: "inherit",
    },
  });
});

afterAll(async () => {
  await server?.close();
  data?.remove();
});

describe("a server with the tree operations", () => {
  it("takes one MCP call for a create, a delete and a rename, and one per step of an edit", async () => {
    const calls: string[] = [];
    const call = server.call.bind(server);
    server.call = async (tool, args) => {
      calls.push(tool);
      return call(tool, args);
    };
    try {
      const engine = new MemoryEngine(server);
      const callsOf = async (command: Record<string, unknown>) => {
        calls.length = 0;
        await engine.execute(command);
        return [...calls];
      };
      const create = { command: "create", path: "/memories/d/e/a.md", file_text: "a\n" };
      expect(await callsOf(create)).toEqual(["remember"]);
      expect(
        await callsOf({ command: "rename", old_path: "/memories/d", new_path: "/memories/n" }),
      ).toEqual(["move"]);
      expect(
        await callsOf({
          command: "insert",
          path: "/memories/n/e/a.md",
          insert_line: 0,
          insert_text: "x",
        }),
      ).toEqual(["get", "remember"]);
      expect(await callsOf({ command: "delete", path: "/memories/n" })).toEqual(["forget"]);
      expect(await server.list("/memories/")).toEqual([]);
    } finally {
      server.call = call;
    }
  });
});

const factory = {
  name: "hms-mcp over stdio",
  tree: true,
  makeBackend: () => server,
  disposeBackend: async () => {
    await server.call("forget", { prefix: "/memories/" });
  },
  // A case may start from a file and a directory of one name, which the server refuses to
  // create: that file is written straight into the store's file, as another program could.
  seedFiles: (backend: MemoryBackend, files: Record<string, string>) =>
    seedFilesIn(data.dir)(backend, files),
};

runBackendConformance(factory, { describe, it });
runCommandVectors(factory, { describe, it });
