// The in-process connection: hms-mcp's server in this process (the workspace's hms-mcp
// package, this package's optional peer), reached over the MCP SDK's in-memory transport. The
// MemoryBackend contract and every shared command vector run through it as through stdio, on
// a real store (SQLite, or PostgreSQL with HMS_TEST_DATABASE_URL).
import { type MemoryBackend, MemoryEngine } from "@hms/memory-core";
import { runBackendConformance, runCommandVectors } from "@hms/memory-core/testing";
import { seedFilesIn, storeOptions, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HmsMemoryBackend } from "../../src/backend.js";
import { connectHmsBackend } from "../../src/connect.js";
import { HmsConnectionError, HmsMcpError } from "../../src/errors.js";

let data: ReturnType<typeof tempDir>;
let server: HmsMemoryBackend;

beforeAll(async () => {
  data = tempDir();
  server = await connectHmsBackend({
    connection: { inProcess: { ...storeOptions(data.dir), logLevel: "warn" } },
  });
});

afterAll(async () => {
  await server?.close();
  data?.remove();
});

describe("an in-process server", () => {
  it("takes the same calls per command as a server over stdio", async () => {
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
      expect(await callsOf({ command: "delete", path: "/memories/n" })).toEqual(["forget"]);
    } finally {
      server.call = call;
    }
  });

  it("starts no process, and reads its size limit from the server's options", async () => {
    expect(server.pid).toBeUndefined();
    expect(server.maxFileBytes).toBe(32768);
    const small = await connectHmsBackend({
      connection: { inProcess: { ...storeOptions(data.dir), maxTextBytes: 100 } },
      maxFileBytes: 50,
    });
    try {
      expect(small.serverMaxFileBytes).toBe(100);
      expect(small.maxFileBytes).toBe(50);
    } finally {
      await small.close();
    }
  });

  it("serves namespaces when its options let calls name them", async () => {
    const options = { ...storeOptions(data.dir), namespaceArg: true };
    const alice = await connectHmsBackend({ connection: { inProcess: options }, namespace: "a" });
    const refused = await connectHmsBackend({
      connection: { inProcess: storeOptions(data.dir) },
      namespace: "a",
    }).catch((error: unknown) => error);
    try {
      await alice.create("/memories/who.md", "alice\n");
      expect((await alice.read("/memories/who.md"))?.content).toBe("alice\n");
      expect(await server.read("/memories/who.md")).toBeNull();
      expect(HmsMcpError.isInstance(refused)).toBe(true);
      expect((refused as HmsMcpError).code).toBe("NAMESPACE_DISABLED");
    } finally {
      await alice.call("forget", { key: "/memories/who.md" });
      await alice.close();
    }
  });

  it("refuses options hms-mcp refuses, with its reason", async () => {
    const error = await connectHmsBackend({
      connection: { inProcess: { ...storeOptions(data.dir), busyTimeoutMs: -5 } },
    }).catch((thrown: unknown) => thrown);
    expect(HmsConnectionError.isInstance(error)).toBe(true);
    expect((error as HmsConnectionError).code).toBe("CONNECTION_CLOSED");
    expect((error as Error).message).toMatch(
      /^Could not start hms-mcp in this process.*: in-process option busyTimeoutMs \(the --busy-timeout flag\) is "-5": expected an integer from 0 to 600000$/,
    );
  });

  it("refuses a connection that names two kinds of server", async () => {
    const both = { inProcess: { dataDir: data.dir }, command: "hms-mcp" };
    await expect(connectHmsBackend({ connection: both as never })).rejects.toThrow(
      "give one of connection.command (start a server), connection.url (reach one) or " +
        "connection.inProcess (run one in this process)",
    );
  });

  it("after close, every call fails at once", async () => {
    const backend = await connectHmsBackend({
      connection: { inProcess: storeOptions(data.dir) },
    });
    await backend.close();
    expect(backend.closed).toBe(true);
    await expect(backend.read("/memories/x.md")).rejects.toThrow(
      "The memory tool is closed: its connection to hms-mcp was shut down. Connect again to go on.",
    );
  });
});

const factory = {
  name: "hms-mcp in this process",
  tree: true,
  makeBackend: () => server,
  disposeBackend: async () => {
    await server.call("forget", { prefix: "/memories/" });
  },
  seedFiles: (backend: MemoryBackend, files: Record<string, string>) =>
    seedFilesIn(data.dir)(backend, files),
};

runBackendConformance(factory, { describe, it });
runCommandVectors(factory, { describe, it });
