import { mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isStoreError } from "./errors.js";
import { checkNamespace, Namespaces, storeFileName } from "./namespaces.js";
import { MemoryStore } from "./store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-ns-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("namespaces", () => {
  it("accepts plain names and refuses everything else", () => {
    for (const name of ["default", "a", "user-42", "agent_7", "0", "x".repeat(64)]) {
      expect(checkNamespace(name)).toBe(name);
    }
    for (const name of [
      "",
      "A",
      "-a",
      "_a",
      "a/b",
      "..",
      "a.b",
      "a b",
      "x".repeat(65),
      "é",
      "a\0",
    ]) {
      expect(() => checkNamespace(name)).toThrow(/namespace .* is not valid/);
    }
  });

  it("keeps each namespace in its own file, named from a hash", () => {
    const namespaces = new Namespaces({ dataDir: dir });
    try {
      namespaces.get("alice").remember({ key: "secret", text: "alice's", tags: ["t"] });
      namespaces.get("bob").remember({ key: "other", text: "bob's" });
      const bob = namespaces.get("bob");
      expect(bob.get("secret")).toBeUndefined();
      expect(bob.list().items.map((item) => item.key)).toEqual(["other"]);
      expect(bob.recall("alice").hits).toEqual([]);
      expect(bob.search("alice").hits).toEqual([]);
      expect(bob.export().memories.map((m) => m.key)).toEqual(["other"]);
      const files = readdirSync(join(dir, "namespaces")).filter((f) => f.endsWith(".sqlite"));
      expect(files.sort()).toEqual([storeFileName("alice"), storeFileName("bob")].sort());
      for (const file of files) expect(file).toMatch(/^ns-[0-9a-f]{32}\.sqlite$/);
    } finally {
      namespaces.close();
    }
  });

  it("names the namespaces that exist, from inside their files, never the ones only read", () => {
    const namespaces = new Namespaces({ dataDir: dir });
    try {
      expect(namespaces.names()).toEqual([]);
      namespaces.get("zeta").remember({ key: "k", text: "z" });
      namespaces.get("alpha").remember({ key: "k", text: "a" });
      namespaces.read("never-written").list();
      expect(namespaces.names()).toEqual(["alpha", "zeta"]);
    } finally {
      namespaces.close();
    }
  });

  it("bounds how many stores are open, reopening on demand", () => {
    const namespaces = new Namespaces({ dataDir: dir, maxOpen: 2 });
    try {
      const a = namespaces.get("a");
      a.remember({ key: "k", text: "in a" });
      namespaces.get("b");
      namespaces.get("c");
      expect(namespaces.openCount).toBe(2);
      expect(a.open).toBe(false);
      expect(namespaces.get("a").get("k")?.text).toBe("in a");
    } finally {
      namespaces.close();
    }
  });

  it("refuses a store file that belongs to another namespace", () => {
    const namespaces = new Namespaces({ dataDir: dir });
    namespaces.get("alice").remember({ key: "k", text: "x" });
    namespaces.close();
    const folder = join(dir, "namespaces");
    renameSync(join(folder, storeFileName("alice")), join(folder, storeFileName("mallory")));
    for (const suffix of ["-wal", "-shm"]) {
      rmSync(join(folder, storeFileName("alice") + suffix), { force: true });
    }
    expect(() =>
      MemoryStore.open(join(folder, storeFileName("mallory")), { namespace: "mallory" }),
    ).toThrow(/holds namespace alice/);
  });

  it("reads a namespace that does not exist as empty, without creating a file", () => {
    const namespaces = new Namespaces({ dataDir: dir });
    try {
      namespaces.get("kept");
      for (let i = 0; i < 20; i++) {
        const store = namespaces.read(`ghost-${i}`);
        expect(store.get("k")).toBeUndefined();
        expect(store.list({}).items).toEqual([]);
        expect(store.recall("anything").hits).toEqual([]);
      }
      expect(readdirSync(join(dir, "namespaces")).filter((f) => f.endsWith(".sqlite"))).toEqual([
        storeFileName("kept"),
      ]);
      expect(namespaces.exists("ghost-0")).toBe(false);
      // A write creates it, and later reads see what was written.
      namespaces.get("ghost-0").remember({ key: "k", text: "now here" });
      expect(namespaces.read("ghost-0").get("k")?.text).toBe("now here");
      expect(namespaces.count()).toBe(2);
    } finally {
      namespaces.close();
    }
  });

  it("refuses to create more than maxNamespaces, counting the files already there", () => {
    new Namespaces({ dataDir: dir }).get("first").close();
    const namespaces = new Namespaces({ dataDir: dir, maxNamespaces: 2 });
    try {
      namespaces.get("second");
      let refused: unknown;
      try {
        namespaces.get("third");
      } catch (error) {
        refused = error;
      }
      expect(isStoreError(refused, "LIMIT_REACHED")).toBe(true);
      expect((refused as Error).message).toMatch(/third cannot be created.*most namespaces \(2/);
      expect((refused as { details: unknown }).details).toEqual({ limit: 2 });
      expect(namespaces.exists("third")).toBe(false);
      // Existing namespaces still open at the cap.
      expect(namespaces.get("first").open).toBe(true);
    } finally {
      namespaces.close();
    }
  });
  it("refuses a data directory that cannot be made, at once (/proc takes no new entries)", () => {
    // Node's recursive mkdirSync never returns here: /proc exists but answers ENOENT.
    for (const dataDir of ["/proc/hms-nope", join(dir, "file", "below")]) {
      if (dataDir.includes("file")) writeFileSync(join(dir, "file"), "");
      const namespaces = new Namespaces({ dataDir });
      try {
        expect(() => namespaces.get("default")).toThrow(/^(ENOENT|ENOTDIR): /);
      } finally {
        namespaces.close();
      }
    }
    const nested = new Namespaces({ dataDir: join(dir, "a", "b") });
    try {
      nested.get("default");
      expect(statSync(join(dir, "a", "b", "namespaces")).mode & 0o777).toBe(0o700);
    } finally {
      nested.close();
    }
  });

  it("counts the namespaces in turns of the event loop as summaries does, skipping a file removed meanwhile", async () => {
    const namespaces = new Namespaces({ dataDir: dir });
    try {
      for (const [name, texts] of [
        ["bob", ["b1", "b22"]],
        ["alice", ["a1"]],
        ["carol", ["c1", "c2", "c333"]],
      ] as const) {
        for (const [i, text] of texts.entries()) {
          namespaces.get(name).remember({ key: `/memories/${i}.md`, text });
        }
      }
      const inTurns = await namespaces.summariesInTurns();
      expect(inTurns).toEqual(namespaces.summaries());
      expect(inTurns.map(({ name, memories, bytes }) => [name, memories, bytes])).toEqual([
        ["alice", 1, 2],
        ["bob", 2, 5],
        ["carol", 3, 8],
      ]);
      // Other callbacks run between two files (a turn each), and a file removed meanwhile is
      // left out, not an error.
      let turns = 0;
      let walking = true;
      const tick = () => {
        if (!walking) return;
        turns++;
        setImmediate(tick);
      };
      const walk = namespaces.summariesInTurns().finally(() => {
        walking = false;
      });
      setImmediate(tick);
      namespaces.close();
      rmSync(join(dir, "namespaces", storeFileName("carol")));
      const names = (await walk).map((summary) => summary.name);
      expect(turns).toBeGreaterThanOrEqual(2);
      expect(names).toEqual(["alice", "bob"]);
    } finally {
      namespaces.close();
    }
  });
});
