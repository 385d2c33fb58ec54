/**
 * The memory-file tree: no key is both a file and a directory (PATH_CONFLICT), and the tree
 * forms of forget and move, which delete or move a file or a directory in one transaction;
 * then the other operations of tree.ts, forgetPrefix, move and movePrefix.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "./sqlite/driver.js";
import { type MemoryRecord, MemoryStore } from "./store.js";
import { refusal } from "./test-support.js";

let dir: string;
let store: MemoryStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-tree-"));
  store = MemoryStore.open(join(dir, "store.sqlite"));
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The code, message and details of a refusal, as hms-mcp puts them in `_meta`. */
function refused(action: () => unknown) {
  const error = refusal(action);
  return { code: error.code, message: error.message, ...error.details };
}

function files(...keys: string[]): void {
  for (const key of keys) store.remember({ key, text: `text of ${key}`, tags: ["memory-file"] });
}

/**
 * Writes memory files straight into the database, as a store from before the tree rule may
 * hold them (a key that is both a file and a directory).
 */
function legacy(...keys: string[]): void {
  const db = openSqlite(join(dir, "store.sqlite"));
  try {
    const insert = db.prepare(
      `INSERT INTO memories (key, text, tags, metadata, version, hash, bytes, created_at, updated_at)
       VALUES (?, 'legacy', '["memory-file"]', '{}', 1, 'sha256:x', 6,
               '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
    );
    for (const key of keys) insert.run(key);
  } finally {
    db.close();
  }
}

function everything(): MemoryRecord[] {
  return store.export({ limit: 1000 }).memories;
}

function keys(): string[] {
  return everything().map((memory) => memory.key);
}

describe("creating a memory-file key keeps the tree well formed", () => {
  it("refuses a file where a directory is (conflict directory, path the key)", () => {
    files("/memories/a/b.md", "/memories/a/c/d.md");
    expect(refused(() => store.remember({ key: "/memories/a", text: "x" }))).toEqual({
      code: "PATH_CONFLICT",
      message:
        "cannot create /memories/a: /memories/a is a directory (/memories/a/b.md lies under it)",
      conflict: "directory",
      path: "/memories/a",
    });
    expect(refused(() => store.remember({ key: "/memories/a/c", text: "x" }))).toMatchObject({
      code: "PATH_CONFLICT",
      conflict: "directory",
      path: "/memories/a/c",
    });
    expect(keys()).toEqual(["/memories/a/b.md", "/memories/a/c/d.md"]);
  });

  it("refuses a file under a file (conflict file, path the shortest such ancestor)", () => {
    files("/memories/a");
    expect(refused(() => store.remember({ key: "/memories/a/b.md", text: "x" }))).toMatchObject({
      code: "PATH_CONFLICT",
      conflict: "file",
      path: "/memories/a",
    });
    legacy("/memories/a/b/c");
    expect(refused(() => store.remember({ key: "/memories/a/b/c/d.md", text: "x" }))).toEqual({
      code: "PATH_CONFLICT",
      message:
        "cannot create /memories/a/b/c/d.md: /memories/a is a file, so nothing can lie under it",
      conflict: "file",
      path: "/memories/a",
    });
    expect(keys()).toEqual(["/memories/a", "/memories/a/b/c"]);
  });

  it("refuses the root as a file while memories lie under it", () => {
    files("/memories/x.md");
    expect(refused(() => store.remember({ key: "/memories", text: "x" }))).toMatchObject({
      code: "PATH_CONFLICT",
      conflict: "directory",
      path: "/memories",
    });
  });

  it("does not count keys that only share a string prefix", () => {
    files("/memories/a.md", "/memories/ab/c.md", "/memories/a-b");
    files("/memories/a", "/memories/ab.md");
    expect(keys()).toEqual([
      "/memories/a",
      "/memories/a-b",
      "/memories/a.md",
      "/memories/ab.md",
      "/memories/ab/c.md",
    ]);
  });

  it("applies to creates only: replacing a key of an ill-formed old store is allowed", () => {
    files("/memories/a/b.md");
    legacy("/memories/a");
    expect(store.remember({ key: "/memories/a", text: "again" }).created).toBe(false);
    expect(store.remember({ key: "/memories/a/b.md", text: "again" }).created).toBe(false);
  });

  it("applies only to memory-file keys", () => {
    store.remember({ key: "notes/a/b", text: "x" });
    store.remember({ key: "notes/a", text: "x" });
    store.remember({ key: "notes/a/b/c", text: "x" });
    expect(keys()).toEqual(["notes/a", "notes/a/b", "notes/a/b/c"]);
  });

  it("refuses inside rememberMany, storing none of the batch", () => {
    const error = refusal(() =>
      store.rememberMany([
        { key: "/memories/a", text: "file" },
        { key: "/memories/a/b.md", text: "under the file" },
      ]),
    );
    expect(error.code).toBe("PATH_CONFLICT");
    expect(error.details).toEqual({ conflict: "file", path: "/memories/a" });
    expect(keys()).toEqual([]);
  });
});

describe("forgetTree", () => {
  it("deletes a file", () => {
    files("/memories/a.md", "/memories/a.md.bak");
    expect(store.forgetTree("/memories/a.md")).toEqual({ deleted: 1 });
    expect(keys()).toEqual(["/memories/a.md.bak"]);
  });

  it("deletes a directory and everything under it, and nothing beside it", () => {
    files("/memories/d/1.md", "/memories/d/e/2.md", "/memories/d.md", "/memories/d-x/3.md");
    expect(store.forgetTree("/memories/d")).toEqual({ deleted: 2 });
    expect(keys()).toEqual(["/memories/d-x/3.md", "/memories/d.md"]);
  });

  it("deletes a key that is both a file and a directory (an old, ill-formed store) whole", () => {
    store.remember({ key: "notes/a", text: "x" });
    store.remember({ key: "notes/a/b", text: "x" });
    expect(store.forgetTree("notes/a")).toEqual({ deleted: 2 });
    expect(keys()).toEqual([]);
  });

  it("answers NOT_FOUND when neither the key nor anything under it exists", () => {
    files("/memories/ab.md");
    expect(refused(() => store.forgetTree("/memories/a"))).toEqual({
      code: "NOT_FOUND",
      message: "neither /memories/a nor any key under /memories/a/ exists",
      key: "/memories/a",
    });
    expect(refusal(() => store.forgetTree("")).code).toBe("INVALID_ARGUMENT");
    expect(keys()).toEqual(["/memories/ab.md"]);
  });
});

describe("moveTree", () => {
  it("moves a file, keeping text, tags, metadata and created_at, with a new version", () => {
    store.remember({
      key: "/memories/a.md",
      text: "body",
      tags: ["memory-file", "x"],
      metadata: { m: 1 },
    });
    const before = store.get("/memories/a.md") as MemoryRecord;
    expect(store.moveTree("/memories/a.md", "/memories/b.md")).toEqual({ moved: 1 });
    const after = store.get("/memories/b.md") as MemoryRecord;
    expect(after).toMatchObject({
      text: "body",
      tags: ["memory-file", "x"],
      metadata: { m: 1 },
      created_at: before.created_at,
    });
    expect(after.version).toBeGreaterThan(before.version);
    expect(keys()).toEqual(["/memories/b.md"]);
  });

  it("moves a directory and everything under it, each record to a new version", () => {
    files("/memories/d/1.md", "/memories/d/e/2.md", "/memories/d.md", "/memories/dd/3.md");
    const highest = Math.max(...everything().map((memory) => memory.version));
    expect(store.moveTree("/memories/d", "/memories/n/m")).toEqual({ moved: 2 });
    expect(keys()).toEqual([
      "/memories/d.md",
      "/memories/dd/3.md",
      "/memories/n/m/1.md",
      "/memories/n/m/e/2.md",
    ]);
    expect(store.get("/memories/n/m/e/2.md")?.text).toBe("text of /memories/d/e/2.md");
    for (const key of ["/memories/n/m/1.md", "/memories/n/m/e/2.md"]) {
      expect(store.get(key)?.version).toBeGreaterThan(highest);
    }
    expect(store.recall("text").hits.map((hit) => hit.key)).toContain("/memories/n/m/e/2.md");
  });

  it("moves a file a level up, out of its directory", () => {
    files("/memories/d/only.md");
    expect(store.moveTree("/memories/d/only.md", "/memories/only.md")).toEqual({ moved: 1 });
    expect(keys()).toEqual(["/memories/only.md"]);
  });

  describe("refuses in the contract's order, changing nothing", () => {
    function unchanged(action: () => unknown) {
      const before = everything();
      const result = refused(action);
      expect(everything()).toEqual(before);
      return result;
    }

    it("1. NOT_FOUND when neither from nor anything under from/ exists", () => {
      files("/memories/ab.md", "/memories/x.md");
      // Even when every later check would fail too.
      expect(unchanged(() => store.moveTree("/memories/a", "/memories/x.md"))).toEqual({
        code: "NOT_FOUND",
        message: "neither /memories/a nor any key under /memories/a/ exists",
        key: "/memories/a",
      });
    });

    it("2. EXISTS when to is from", () => {
      files("/memories/d/1.md");
      expect(unchanged(() => store.moveTree("/memories/d", "/memories/d"))).toEqual({
        code: "EXISTS",
        message: "cannot move /memories/d onto itself",
        key: "/memories/d",
      });
    });

    it("3. INVALID_ARGUMENT into_itself when a directory would move under itself", () => {
      files("/memories/d/1.md", "/memories/d/sub/2.md");
      expect(unchanged(() => store.moveTree("/memories/d", "/memories/d/sub"))).toEqual({
        code: "INVALID_ARGUMENT",
        message: "cannot move the directory /memories/d into itself: /memories/d/sub lies under it",
        reason: "into_itself",
      });
    });

    it("4. EXISTS when to exists as a file or as a directory", () => {
      files("/memories/d/1.md", "/memories/f.md", "/memories/e/2.md");
      expect(unchanged(() => store.moveTree("/memories/d", "/memories/f.md"))).toEqual({
        code: "EXISTS",
        message: "cannot move /memories/d to /memories/f.md: /memories/f.md exists",
        key: "/memories/f.md",
      });
      expect(unchanged(() => store.moveTree("/memories/d", "/memories/e"))).toEqual({
        code: "EXISTS",
        message:
          "cannot move /memories/d to /memories/e: /memories/e exists as a directory (/memories/e/2.md lies under it)",
        key: "/memories/e",
      });
      // A file moved onto its own directory: the directory exists (it holds the file).
      expect(unchanged(() => store.moveTree("/memories/d/1.md", "/memories/d"))).toMatchObject({
        code: "EXISTS",
        key: "/memories/d",
      });
    });

    it("5. PATH_CONFLICT file when an ancestor of to is a file, naming the shortest", () => {
      files("/memories/d/1.md", "/memories/f");
      legacy("/memories/f/g/h");
      expect(unchanged(() => store.moveTree("/memories/d", "/memories/f/g/h/new"))).toEqual({
        code: "PATH_CONFLICT",
        message:
          "cannot move /memories/d to /memories/f/g/h/new: /memories/f is a file, so nothing can lie under it",
        conflict: "file",
        path: "/memories/f",
      });
      // A file with nothing under it cannot move under itself: it is a file until the move.
      files("/memories/solo");
      expect(unchanged(() => store.moveTree("/memories/solo", "/memories/solo/x"))).toMatchObject({
        code: "PATH_CONFLICT",
        conflict: "file",
        path: "/memories/solo",
      });
    });

    it("6. INVALID_ARGUMENT invalid_key naming the first invalid new key in key order", () => {
      // Two deep keys of 225 bytes: valid memory paths under /memories/d, 254 bytes (over the
      // 240-byte memory-path limit) under a directory 29 bytes longer.
      const deep = `${"x".repeat(120)}/${"y".repeat(90)}`;
      files(
        "/memories/d/a.md",
        "/memories/d/b.md",
        `/memories/d/c/${deep}`,
        `/memories/d/z/${deep}`,
      );
      const to = `/memories/${"n".repeat(30)}`;
      const first = `${to}/c/${deep}`;
      const result = unchanged(() => store.moveTree("/memories/d", to));
      expect(result).toMatchObject({ code: "INVALID_ARGUMENT", reason: "invalid_key", key: first });
      expect(result.message).toContain("Invalid memory path");
      // Out of /memories, a memory file's new key fails the memory-path rules at the first key.
      expect(unchanged(() => store.moveTree("/memories/d", "elsewhere"))).toMatchObject({
        code: "INVALID_ARGUMENT",
        reason: "invalid_key",
        key: "elsewhere/a.md",
      });
      // Too long for any key (512 bytes), memory file or not.
      store.remember({ key: "plain/k", text: "x" });
      const long = `plain-${"y".repeat(505)}`;
      expect(unchanged(() => store.moveTree("plain", long))).toEqual({
        code: "INVALID_ARGUMENT",
        message: `cannot move plain/k to ${long}/k: the new key "${long.slice(0, 80)}…" is 513 bytes, over the limit of 512 bytes`,
        reason: "invalid_key",
        key: `${long}/k`,
      });
    });
  });

  it("moves keys that are not memory files by the same rules, without the memory-path checks", () => {
    store.remember({ key: "notes/a", text: "x" });
    store.remember({ key: "notes/a/b", text: "y" });
    expect(store.moveTree("notes/a", "archive/a")).toEqual({ moved: 2 });
    expect(keys()).toEqual(["archive/a", "archive/a/b"]);
  });
});

describe("the key and prefix forms of move keep the tree well formed too", () => {
  it("refuses a key move onto a directory or under a file", () => {
    files("/memories/a.md", "/memories/d/1.md", "/memories/f");
    expect(refused(() => store.move("/memories/a.md", "/memories/d"))).toMatchObject({
      code: "PATH_CONFLICT",
      conflict: "directory",
      path: "/memories/d",
    });
    expect(refused(() => store.move("/memories/a.md", "/memories/f/a.md"))).toEqual({
      code: "PATH_CONFLICT",
      message:
        "cannot move /memories/a.md to /memories/f/a.md: /memories/f is a file, so nothing can lie under it",
      conflict: "file",
      path: "/memories/f",
    });
    expect(keys()).toEqual(["/memories/a.md", "/memories/d/1.md", "/memories/f"]);
    // Not memory files: no tree rule.
    store.remember({ key: "n/f", text: "x" });
    store.remember({ key: "n/g", text: "x" });
    expect(store.move("n/g", "n/f/g")).toEqual({ moved: 1 });
  });

  it("refuses a prefix move that would put a file under a file", () => {
    files("/memories/d/1.md", "/memories/e");
    expect(refused(() => store.movePrefix("/memories/d/", "/memories/e/"))).toMatchObject({
      code: "PATH_CONFLICT",
      conflict: "file",
      path: "/memories/e",
    });
    expect(store.movePrefix("/memories/d/", "/memories/g/")).toEqual({ moved: 1 });
  });
});

describe("forgetPrefix", () => {
  it("deletes a whole prefix literally, and 0 is not an error", () => {
    for (const key of ["/m/a/1", "/m/a/2", "/m/a%", "/m/ab", "/m/b"]) {
      store.remember({ key, text: "x", tags: ["t"] });
    }
    expect(store.forgetPrefix("/m/a/")).toEqual({ deleted: 2 });
    expect(store.forgetPrefix("/m/a_")).toEqual({ deleted: 0 });
    expect(store.list().items.map((item) => item.key)).toEqual(["/m/a%", "/m/ab", "/m/b"]);
    expect(store.list({ tag: "t" }).items).toHaveLength(3);
    expect(refusal(() => store.forgetPrefix("")).code).toBe("INVALID_ARGUMENT");
  });
});

describe("move", () => {
  it("renames one key, keeping text, tags, metadata and created_at", () => {
    store.remember({ key: "a", text: "body", tags: ["t"], metadata: { m: true } });
    const before = store.get("a");
    expect(store.move("a", "b")).toEqual({ moved: 1 });
    expect(store.get("a")).toBeUndefined();
    expect(store.get("b")).toMatchObject({
      text: "body",
      tags: ["t"],
      metadata: { m: true },
      created_at: before?.created_at,
    });
    expect(store.get("b")?.version).toBeGreaterThan(before?.version ?? Number.POSITIVE_INFINITY);
    expect(store.list({ tag: "t" }).items.map((item) => item.key)).toEqual(["b"]);
    expect(store.recall("body").hits[0]?.key).toBe("b");
  });

  it("refuses a missing source, an existing destination and a stale version", () => {
    const a = store.remember({ key: "a", text: "1" }).version;
    store.remember({ key: "b", text: "2" });
    expect(refusal(() => store.move("missing", "c")).code).toBe("NOT_FOUND");
    expect(refusal(() => store.move("a", "b")).code).toBe("EXISTS");
    expect(refusal(() => store.move("a", "a")).code).toBe("EXISTS");
    expect(refusal(() => store.move("a", "c", { expectedVersion: a + 5 })).code).toBe(
      "VERSION_CONFLICT",
    );
    expect(store.list().items.map((item) => item.key)).toEqual(["a", "b"]);
    expect(store.move("a", "c", { expectedVersion: a })).toEqual({ moved: 1 });
  });

  it("moves a whole prefix in one transaction", () => {
    for (const key of ["/d/x", "/d/y/z", "/dd"]) store.remember({ key, text: key });
    const before = store.get("/dd")?.version ?? Number.POSITIVE_INFINITY;
    expect(store.movePrefix("/d/", "/e/")).toEqual({ moved: 2 });
    expect(store.list().items.map((item) => item.key)).toEqual(["/dd", "/e/x", "/e/y/z"]);
    expect(store.get("/e/y/z")?.text).toBe("/d/y/z");
    expect(store.get("/e/x")?.version).toBeGreaterThan(before);
    expect(store.get("/e/y/z")?.version).toBeGreaterThan(store.get("/e/x")?.version ?? 0);
  });

  it("changes nothing when any destination exists", () => {
    for (const key of ["/d/1", "/d/2", "/d/3", "/e/2"]) store.remember({ key, text: key });
    const before = store.export().memories;
    const error = refusal(() => store.movePrefix("/d/", "/e/"));
    expect(error.code).toBe("EXISTS");
    expect(error.message).toContain("/e/2");
    expect(store.export().memories).toEqual(before);
  });

  it("refuses a missing prefix, a move under itself, and destinations that are too long", () => {
    const { version } = store.remember({ key: "/d/x", text: "x" });
    expect(refusal(() => store.movePrefix("/nothing/", "/e/")).code).toBe("NOT_FOUND");
    expect(refusal(() => store.movePrefix("/d/", "/d/sub/")).code).toBe("INVALID_ARGUMENT");
    expect(refusal(() => store.movePrefix("/d/", `/${"x".repeat(510)}/`)).code).toBe(
      "INVALID_ARGUMENT",
    );
    expect(store.get("/d/x")?.version).toBe(version);
  });
});
