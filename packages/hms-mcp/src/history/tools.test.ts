/**
 * The history tools through a client linked in memory to the server running in this process:
 * what `history` lists after the memory tool's kinds of change, `diff` between versions, and
 * `restore` of a file (by version, with compare-and-set) and of a directory (to a time).
 */

import { openSqlite } from "@hms/store/internal";
import { ok, refused, storeFile, tempDir } from "@hms/test-support";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectInProcess, type InProcessConnection } from "../../test/in-process.js";

interface Change {
  seq: number;
  key: string;
  op: string;
  from_key: string | null;
  version: number;
  command: string | null;
}
interface HistoryAnswer {
  changes: Change[];
  next_before: number | null;
}
const FILE = ["memory-file"];

let connection: InProcessConnection;
let client: Client;
beforeAll(async () => {
  connection = await connectInProcess();
  client = connection.client;
});
afterAll(() => connection.close());

describe("history", () => {
  it("lists a file's changes with the tool that made each", async () => {
    const made = await ok<{ version: number }>(client, "remember", {
      key: "/memories/h/a.md",
      text: "one\n",
      tags: FILE,
    });
    await ok(client, "remember", {
      key: "/memories/h/a.md",
      text: "one\ntwo\n",
      expected_version: made.version,
    });
    await ok(client, "move", { from: "/memories/h/a.md", to: "/memories/h/b.md" });
    const history = await ok<HistoryAnswer>(client, "history", { key: "/memories/h/b.md" });
    expect(history.changes.map((c) => [c.op, c.from_key, c.command])).toEqual([
      ["move", "/memories/h/a.md", "move"],
    ]);
    const source = await ok<HistoryAnswer>(client, "history", { key: "/memories/h/a.md" });
    expect(source.changes.map((c) => [c.op, c.command])).toEqual([
      ["move", "move"],
      ["update", "remember"],
      ["create", "remember"],
    ]);
  });

  it("records the command a client names in _meta", async () => {
    await client.callTool({
      name: "remember",
      arguments: { key: "/memories/h/named.md", text: "x", tags: FILE },
      _meta: { "hms-mcp/command": "str_replace" },
    });
    const history = await ok<HistoryAnswer>(client, "history", { key: "/memories/h/named.md" });
    expect(history.changes[0]?.command).toBe("str_replace");
  });

  it("lists a directory's changes since a time", async () => {
    const since = new Date().toISOString();
    await ok(client, "remember", { key: "/memories/dir/x.md", text: "x", tags: FILE });
    await ok(client, "forget", { key: "/memories/dir", tree: true });
    const history = await ok<HistoryAnswer>(client, "history", { prefix: "/memories/dir/", since });
    expect(history.changes.map((c) => `${c.op} ${c.key}`)).toEqual([
      "delete /memories/dir/x.md",
      "create /memories/dir/x.md",
    ]);
    const later = await ok<HistoryAnswer>(client, "history", {
      prefix: "/memories/dir/",
      since: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(later.changes).toEqual([]);
  });

  it("refuses a call that names both or neither of key and prefix", async () => {
    for (const args of [{}, { key: "/memories/a.md", prefix: "/memories/" }]) {
      const refusal = await refused(client, "history", args);
      expect(refusal.code).toBe("INVALID_ARGUMENT");
      expect(refusal.text).toContain("give exactly one of key (a file) or prefix (a directory)");
    }
  });
});

describe("diff", () => {
  it("gives a unified diff between two versions, or a version and now", async () => {
    const v1 = await ok<{ version: number }>(client, "remember", {
      key: "/memories/d.md",
      text: "alpha\nbeta\n",
      tags: FILE,
    });
    const v2 = await ok<{ version: number }>(client, "remember", {
      key: "/memories/d.md",
      text: "alpha\ngamma\n",
    });
    const answer = await ok<{
      unified: string;
      added: number;
      removed: number;
      to_version: number;
    }>(client, "diff", { key: "/memories/d.md", from_version: v1.version });
    expect(answer).toMatchObject({ added: 1, removed: 1, to_version: v2.version });
    expect(answer.unified).toContain("-beta\n+gamma");
    expect(answer.unified).toContain(`version ${v1.version}`);
    const same = await ok<{ unified: string }>(client, "diff", {
      key: "/memories/d.md",
      from_version: v2.version,
      to_version: v2.version,
    });
    expect(same.unified).toBe("");
    const missing = await refused(client, "diff", { key: "/memories/d.md", from_version: 999_999 });
    expect(missing.code).toBe("NOT_FOUND");
  });
});

describe("restore", () => {
  it("brings a version back as a new version, refusing a stale expected_version", async () => {
    const good = await ok<{ version: number }>(client, "remember", {
      key: "/memories/r.md",
      text: "good",
      tags: FILE,
    });
    const bad = await ok<{ version: number }>(client, "remember", {
      key: "/memories/r.md",
      text: "bad",
    });
    const stale = await refused(client, "restore", {
      key: "/memories/r.md",
      version: good.version,
      expected_version: good.version,
    });
    expect(stale.code).toBe("VERSION_CONFLICT");
    const done = await ok<{ restored: { key: string; version: number }[] }>(client, "restore", {
      key: "/memories/r.md",
      version: good.version,
      expected_version: bad.version,
    });
    expect(done.restored[0]?.version).toBeGreaterThan(bad.version);
    expect((await ok<{ text: string }>(client, "get", { key: "/memories/r.md" })).text).toBe(
      "good",
    );
    const history = await ok<HistoryAnswer>(client, "history", { key: "/memories/r.md", limit: 1 });
    expect(history.changes[0]).toMatchObject({ op: "update", command: "restore" });
    expect(history.next_before).not.toBeNull();
  });

  it("brings a directory back to a time in one call", async () => {
    await ok(client, "remember", { key: "/memories/t/keep.md", text: "original", tags: FILE });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const at = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await ok(client, "remember", { key: "/memories/t/keep.md", text: "changed" });
    await ok(client, "remember", { key: "/memories/t/new.md", text: "new", tags: FILE });
    const done = await ok<{ restored: { key: string }[]; deleted: string[]; unknown: string[] }>(
      client,
      "restore",
      { key: "/memories/t", at, tree: true },
    );
    expect(done.restored.map((r) => r.key)).toEqual(["/memories/t/keep.md"]);
    expect(done.deleted).toEqual(["/memories/t/new.md"]);
    expect((await ok<{ text: string }>(client, "get", { key: "/memories/t/keep.md" })).text).toBe(
      "original",
    );
  });

  it("refuses a restore that names neither or both of version and at, or a tree by version", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ key: "/memories/r.md" }, "give exactly one of version or at"],
      [
        { key: "/memories/r.md", version: 1, at: "2026-01-01T00:00:00Z" },
        "give exactly one of version or at",
      ],
      [{ key: "/memories/t", version: 1, tree: true }, "a tree is restored to a time"],
    ];
    for (const [args, message] of cases) {
      const refusal = await refused(client, "restore", args);
      expect(refusal.code).toBe("INVALID_ARGUMENT");
      expect(refusal.text).toContain(message);
    }
  });
});

describe("retention", () => {
  it("prunes each file's history to --keep-versions when its store opens", async () => {
    const data = tempDir();
    const args = ["--keep-versions", "2"];
    try {
      const first = await connectInProcess({ dataDir: data.dir, args });
      await ok(first.client, "remember", { key: "/memories/k.md", text: "0", tags: FILE });
      for (let i = 1; i < 6; i++) {
        await ok(first.client, "remember", { key: "/memories/k.md", text: String(i) });
      }
      await first.close();
      // Pruning runs when a store opens (and every few minutes), in steps between calls.
      const again = await connectInProcess({ dataDir: data.dir, args });
      try {
        let changes: Change[] = [];
        for (let attempt = 0; attempt < 100 && changes.length !== 2; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          changes = (await ok<HistoryAnswer>(again.client, "history", { key: "/memories/k.md" }))
            .changes;
        }
        expect(changes.map((change) => change.op)).toEqual(["update", "update"]);
      } finally {
        await again.close();
      }
    } finally {
      data.remove();
    }
  });
});

describe("unused", () => {
  it("lists files nobody wrote or read since a time; a get counts as a read", async () => {
    const data = tempDir();
    try {
      const first = await connectInProcess({ dataDir: data.dir });
      for (const name of ["stale.md", "read.md"]) {
        await ok(first.client, "remember", { key: `/memories/${name}`, text: name, tags: FILE });
      }
      await first.close();
      // As if both had been written a year ago.
      const db = openSqlite(storeFile(data.dir));
      db.prepare("UPDATE memories SET updated_at = '2025-12-01T00:00:00.000Z'").run();
      db.close();

      const second = await connectInProcess({ dataDir: data.dir });
      await ok(second.client, "get", { key: "/memories/read.md" });
      await second.close(); // the store writes the reads it noted as it closes

      const third = await connectInProcess({ dataDir: data.dir });
      try {
        const cutoff = new Date(Date.now() - 30 * 86_400_000).toISOString();
        const answer = await ok<{ files: { key: string; last_used: string }[] }>(
          third.client,
          "unused",
          { before: cutoff },
        );
        expect(answer.files).toEqual([
          {
            key: "/memories/stale.md",
            version: expect.any(Number),
            bytes: 8,
            last_used: "2025-12-01T00:00:00.000Z",
          },
        ]);
        const bad = await refused(third.client, "unused", { before: "90d" });
        expect(bad.code).toBe("INVALID_ARGUMENT");
      } finally {
        await third.close();
      }
    } finally {
      data.remove();
    }
  });
});
