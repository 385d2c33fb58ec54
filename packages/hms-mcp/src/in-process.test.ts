// connectInProcess: the server in the test's own process, reached by an MCP client over the
// SDK's in-memory transport, on a real SQLite file.
import { existsSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { call, ok, tempDir } from "@hms/test-support";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./config/config.js";
import { type InProcessOptions, inProcessConfig } from "./config/in-process.js";
import { connectInProcess } from "./in-process.js";
import { startServer } from "./main.js";

const dirs: ReturnType<typeof tempDir>[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function dataDir(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir.dir;
}

async function connected(options: InProcessOptions) {
  const server = await connectInProcess({ logLevel: "warn", ...options });
  const client = new Client({ name: "in-process-test", version: "0" });
  await client.connect(server.transport);
  return { server, client };
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

describe("connectInProcess", () => {
  it("serves the command's tools and limits to a client in this process", async () => {
    const dir = dataDir();
    const { server, client } = await connected({ dataDir: dir, maxTextBytes: 64 });
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toContain("remember");
      expect(client.getServerCapabilities()?.experimental?.["hms-mcp"]).toBeDefined();
      const stats = await ok<{ max_text_bytes: number }>(client, "stats", {});
      expect(stats.max_text_bytes).toBe(64);
      await ok(client, "remember", { key: "notes", text: "kept" });
      expect((await ok<{ text: string }>(client, "get", { key: "notes" })).text).toBe("kept");
      const tooLarge = await call(client, "remember", { key: "big", text: "x".repeat(65) });
      expect(tooLarge.isError).toBe(true);
      expect(JSON.stringify(tooLarge.content)).toContain("TOO_LARGE");
    } finally {
      await server.close();
    }
  });

  it("writes the store files another server on the data directory reads", async () => {
    const dir = dataDir();
    const first = await connected({ dataDir: dir });
    const second = await connected({ dataDir: dir });
    try {
      await ok(first.client, "remember", { key: "shared", text: "from the first" });
      const read = await ok<{ text: string }>(second.client, "get", { key: "shared" });
      expect(read.text).toBe("from the first");
    } finally {
      await first.server.close();
      await second.server.close();
    }
  });

  it("closes the link and every store file: committed, the WAL folded in, nothing held open", async () => {
    const dir = dataDir();
    const { server, client } = await connected({ dataDir: dir });
    let closed = false;
    client.onclose = () => {
      closed = true;
    };
    await ok(client, "remember", { key: "kept", text: "after close" });
    expect(openFilesUnder(dir).length).toBeGreaterThan(0);
    await server.close();
    await server.close(); // again: the same close
    expect(closed).toBe(true);
    expect(openFilesUnder(dir)).toEqual([]);
    expect(existsSync(join(dir, "namespaces", "default.sqlite-wal"))).toBe(false);
    // Reopened by a new server, the write is there.
    const again = await connected({ dataDir: dir });
    try {
      expect((await ok<{ text: string }>(again.client, "get", { key: "kept" })).text).toBe(
        "after close",
      );
    } finally {
      await again.server.close();
    }
  });

  it("refuses options the command would refuse, before opening anything", async () => {
    const dir = dataDir();
    await expect(connectInProcess({ dataDir: dir, maxTextBytes: 0 })).rejects.toThrow(ConfigError);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("fails at start on a data directory it cannot use, saying what to do", async () => {
    const file = join(dataDir(), "not-a-directory");
    writeFileSync(file, "");
    const error = await connectInProcess({ dataDir: file, logLevel: "silent" }).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`in the data directory ${file}`);
    expect((error as Error).message).toContain("choose a directory this user can write");
  });
});

describe("startServer", () => {
  it("refuses an in-process configuration, which has no transport to serve", async () => {
    await expect(startServer(inProcessConfig({ dataDir: dataDir() }))).rejects.toThrow(
      "an in-process configuration has no transport to serve; connectInProcess starts it",
    );
    // The command's own configurations never are one.
    expect(parseConfig([], {}, "0").transport).toBe("stdio");
  });
});
