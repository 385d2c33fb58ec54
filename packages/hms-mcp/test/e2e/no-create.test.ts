/**
 * `--no-create`, how `hms` reads: a server that creates neither the data directory nor a
 * namespace, whose `stats` says whether the namespace exists, on either engine (the suite
 * runs again on PostgreSQL).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ok, refused, startStdio, storeNamespaces, tempDir } from "@hms/test-support";
import { afterEach, describe, expect, it } from "vitest";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(dataDir: string, args: string[]) {
  const started = await startStdio({ dataDir, args });
  cleanups.push(started.close);
  return started.client;
}

describe("hms-mcp --no-create", () => {
  it("creates nothing: a namespace that does not exist reads as empty, and says so", async () => {
    const parent = tempDir();
    cleanups.push(parent.remove);
    const dataDir = join(parent.dir, "not-yet");
    const client = await server(dataDir, ["--no-create", "--namespace-arg"]);

    expect(await ok(client, "stats")).toMatchObject({
      namespace: "default",
      exists: false,
      memories: 0,
    });
    expect(await ok(client, "list")).toMatchObject({ items: [] });
    const write = await refused(client, "remember", { key: "/memories/a.md", text: "x" });
    expect(write.code).toBe("NOT_FOUND");
    expect(write.text).toContain(
      "namespace default does not exist, and this server creates none (--no-create)",
    );
    const other = await refused(client, "remember", { namespace: "other", key: "k", text: "x" });
    expect(other.code).toBe("NOT_FOUND");
    expect(await ok(client, "stats", { namespace: "other" })).toMatchObject({ exists: false });

    expect(storeNamespaces(dataDir)).toEqual([]);
    if (!process.env.HMS_TEST_DATABASE_URL) expect(existsSync(dataDir)).toBe(false);
  });

  it("reads and writes a namespace that exists", async () => {
    const data = tempDir();
    cleanups.push(data.remove);
    // A server without the flag creates its namespace at start.
    const creating = await server(data.dir, []);
    expect(await ok(creating, "stats")).toMatchObject({ exists: true, memories: 0 });
    await ok(creating, "remember", { key: "/memories/a.md", text: "kept\n" });

    const client = await server(data.dir, ["--no-create"]);
    expect(await ok(client, "stats")).toMatchObject({ exists: true, memories: 1 });
    expect(await ok(client, "remember", { key: "/memories/b.md", text: "also\n" })).toMatchObject({
      key: "/memories/b.md",
    });
    expect(storeNamespaces(data.dir)).toHaveLength(1);
  });
});
