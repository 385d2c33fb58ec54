/**
 * The memory-file tree, through a client linked in memory to the server running in this
 * process: PATH_CONFLICT on creates and moves, the tree forms of forget and move, and their
 * refusals with the `_meta` details of the contract.
 */
import { ok, refused } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { connectInProcess } from "../../test/in-process.js";

interface Item {
  key: string;
  version: number;
}

describe("the memory-file tree", () => {
  let client: Client;

  beforeAll(async () => {
    const connection = await connectInProcess();
    client = connection.client;
    return connection.close;
  });

  async function files(...keys: string[]): Promise<void> {
    for (const key of keys) {
      await ok(client, "remember", { key, text: `text of ${key}`, tags: ["memory-file"] });
    }
  }

  async function keysUnder(prefix: string): Promise<string[]> {
    const page = await ok<{ items: Item[] }>(client, "list", { prefix, limit: 1000 });
    return page.items.map((item) => item.key);
  }

  async function versionsUnder(prefix: string): Promise<[string, number][]> {
    const page = await ok<{ items: Item[] }>(client, "list", { prefix, limit: 1000 });
    return page.items.map((item) => [item.key, item.version]);
  }

  it("announces the tree forms in the input schemas of forget and move", async () => {
    const { tools } = await client.listTools();
    for (const name of ["forget", "move"]) {
      const tool = tools.find((candidate) => candidate.name === name);
      expect(tool?.inputSchema.properties?.tree).toMatchObject({ type: "boolean" });
      expect(tool?.description).toContain("tree");
    }
  });

  it("refuses to create a file where a directory is, or under a file", async () => {
    await files("/memories/pc/dir/inside.md", "/memories/pc/file");
    const directory = await refused(client, "remember", { key: "/memories/pc/dir", text: "x" });
    expect(directory.text).toBe(
      "PATH_CONFLICT: cannot create /memories/pc/dir: /memories/pc/dir is a directory (/memories/pc/dir/inside.md lies under it)",
    );
    expect(directory.meta).toEqual({
      code: "PATH_CONFLICT",
      message:
        "cannot create /memories/pc/dir: /memories/pc/dir is a directory (/memories/pc/dir/inside.md lies under it)",
      conflict: "directory",
      path: "/memories/pc/dir",
    });
    expect(directory.result.structuredContent).toBeUndefined();
    const file = await refused(client, "remember", {
      key: "/memories/pc/file/deeper/x.md",
      text: "x",
      if_absent: true,
    });
    expect(file.meta).toEqual({
      code: "PATH_CONFLICT",
      message:
        "cannot create /memories/pc/file/deeper/x.md: /memories/pc/file is a file, so nothing can lie under it",
      conflict: "file",
      path: "/memories/pc/file",
    });
    expect(await keysUnder("/memories/pc/")).toEqual([
      "/memories/pc/dir/inside.md",
      "/memories/pc/file",
    ]);
    // Keys outside /memories that are not memory files keep the plain key rules.
    await ok(client, "remember", { key: "pc/a/b", text: "x" });
    await ok(client, "remember", { key: "pc/a", text: "x" });
  });

  it("forgets a file or a whole directory with tree, in one call", async () => {
    await files("/memories/fg/d/1.md", "/memories/fg/d/e/2.md", "/memories/fg/d.md");
    expect(await ok(client, "forget", { key: "/memories/fg/d", tree: true })).toEqual({
      deleted: 2,
    });
    expect(await keysUnder("/memories/fg/")).toEqual(["/memories/fg/d.md"]);
    expect(await ok(client, "forget", { key: "/memories/fg/d.md", tree: true })).toEqual({
      deleted: 1,
    });
    const missing = await refused(client, "forget", { key: "/memories/fg/d", tree: true });
    expect(missing.meta).toEqual({
      code: "NOT_FOUND",
      message: "neither /memories/fg/d nor any key under /memories/fg/d/ exists",
      key: "/memories/fg/d",
    });
  });

  it("refuses tree with expected_version or prefix", async () => {
    await files("/memories/ta/x.md");
    const cases: [string, Record<string, unknown>][] = [
      ["forget", { key: "/memories/ta/x.md", tree: true, expected_version: 1 }],
      ["forget", { prefix: "/memories/ta/", tree: true }],
      ["forget", { key: "/memories/ta", prefix: "/memories/ta/", tree: true }],
      ["forget", { key: "/memories/ta", tree: "yes" }],
      ["move", { from: "/memories/ta", to: "/memories/tb", tree: true, expected_version: 1 }],
      ["move", { from_prefix: "/memories/ta/", to_prefix: "/memories/tb/", tree: true }],
      ["move", { from: "/memories/ta", tree: true }],
      // Not a key at all: refused before the tree checks (here, before NOT_FOUND).
      ["move", { from: "/memories/none", to: "", tree: true }],
      ["forget", { key: "", tree: true }],
    ];
    for (const [tool, args] of cases) {
      const error = await refused(client, tool, args);
      expect({ tool, args, code: error.code }).toEqual({ tool, args, code: "INVALID_ARGUMENT" });
    }
    const message = async (tool: string, args: Record<string, unknown>) =>
      (await refused(client, tool, args)).meta.message;
    expect(await message("forget", { key: "/memories/ta", tree: true, expected_version: 1 })).toBe(
      "tree and expected_version are mutually exclusive: a tree of memories has no one version",
    );
    expect(await message("forget", { prefix: "/memories/ta/", tree: true })).toBe(
      "tree applies to key, not to prefix",
    );
    expect(
      await message("move", { from_prefix: "/memories/ta/", to_prefix: "/x/", tree: true }),
    ).toBe("tree applies to from and to, not to from_prefix and to_prefix");
    expect(await keysUnder("/memories/ta/")).toEqual(["/memories/ta/x.md"]);
    // tree: false is the plain form.
    expect(await ok(client, "forget", { key: "/memories/ta/x.md", tree: false })).toEqual({
      deleted: 1,
    });
  });

  it("moves a directory with tree in one call, each memory to a new version", async () => {
    await files("/memories/mv/d/1.md", "/memories/mv/d/e/2.md", "/memories/mv/d.md");
    const before = await versionsUnder("/memories/mv/");
    const highest = Math.max(...before.map(([, version]) => version));
    expect(
      await ok(client, "move", { from: "/memories/mv/d", to: "/memories/mv/n/d", tree: true }),
    ).toEqual({ moved: 2 });
    const after = await versionsUnder("/memories/mv/");
    expect(after.map(([key]) => key)).toEqual([
      "/memories/mv/d.md",
      "/memories/mv/n/d/1.md",
      "/memories/mv/n/d/e/2.md",
    ]);
    for (const [key, version] of after) {
      if (key !== "/memories/mv/d.md") expect(version).toBeGreaterThan(highest);
    }
    expect(await ok(client, "get", { key: "/memories/mv/n/d/e/2.md" })).toMatchObject({
      text: "text of /memories/mv/d/e/2.md",
      tags: ["memory-file"],
    });
    // A file moves with tree too.
    expect(
      await ok(client, "move", { from: "/memories/mv/d.md", to: "/memories/mv/f.md", tree: true }),
    ).toEqual({ moved: 1 });
  });

  it("refuses a tree move with the first failing check, in the contract's order, changing nothing", async () => {
    await files("/memories/ord/d/1.md", "/memories/ord/d/sub/2.md", "/memories/ord/f.md");
    await files("/memories/ord/e/3.md", "/memories/ord/file");
    const before = await versionsUnder("/memories/ord/");
    const attempt = async (from: string, to: string) => {
      const error = await refused(client, "move", { from, to, tree: true });
      return error.meta;
    };
    expect(await attempt("/memories/ord/none", "/memories/ord/f.md")).toEqual({
      code: "NOT_FOUND",
      message: "neither /memories/ord/none nor any key under /memories/ord/none/ exists",
      key: "/memories/ord/none",
    });
    expect(await attempt("/memories/ord/d", "/memories/ord/d")).toEqual({
      code: "EXISTS",
      message: "cannot move /memories/ord/d onto itself",
      key: "/memories/ord/d",
    });
    expect(await attempt("/memories/ord/d", "/memories/ord/d/sub/f.md")).toEqual({
      code: "INVALID_ARGUMENT",
      message:
        "cannot move the directory /memories/ord/d into itself: /memories/ord/d/sub/f.md lies under it",
      reason: "into_itself",
    });
    expect(await attempt("/memories/ord/d", "/memories/ord/f.md")).toEqual({
      code: "EXISTS",
      message: "cannot move /memories/ord/d to /memories/ord/f.md: /memories/ord/f.md exists",
      key: "/memories/ord/f.md",
    });
    expect(await attempt("/memories/ord/d", "/memories/ord/e")).toEqual({
      code: "EXISTS",
      message:
        "cannot move /memories/ord/d to /memories/ord/e: /memories/ord/e exists as a directory (/memories/ord/e/3.md lies under it)",
      key: "/memories/ord/e",
    });
    expect(await attempt("/memories/ord/d", "/memories/ord/file/d")).toEqual({
      code: "PATH_CONFLICT",
      message:
        "cannot move /memories/ord/d to /memories/ord/file/d: /memories/ord/file is a file, so nothing can lie under it",
      conflict: "file",
      path: "/memories/ord/file",
    });
    const invalid = await attempt("/memories/ord/d", "/memories/ord/.hidden");
    expect(invalid).toMatchObject({
      code: "INVALID_ARGUMENT",
      reason: "invalid_key",
      key: "/memories/ord/.hidden/1.md",
    });
    expect(invalid.message).toContain("Invalid memory path");
    expect(await versionsUnder("/memories/ord/")).toEqual(before);
  });

  it("keeps the tree well formed on key moves too", async () => {
    await files("/memories/km/a.md", "/memories/km/d/1.md", "/memories/km/f");
    const onto = await refused(client, "move", { from: "/memories/km/a.md", to: "/memories/km/d" });
    expect(onto.meta).toMatchObject({
      code: "PATH_CONFLICT",
      conflict: "directory",
      path: "/memories/km/d",
    });
    const under = await refused(client, "move", {
      from: "/memories/km/a.md",
      to: "/memories/km/f/a.md",
    });
    expect(under.meta).toMatchObject({
      code: "PATH_CONFLICT",
      conflict: "file",
      path: "/memories/km/f",
    });
    expect(await keysUnder("/memories/km/")).toEqual([
      "/memories/km/a.md",
      "/memories/km/d/1.md",
      "/memories/km/f",
    ]);
  });
});
