/**
 * The tree operations: forgetPrefix, forgetTree, move, movePrefix and moveTree, with moveTree's
 * refusals in the order its doc comment (`MemoryStore.moveTree`) lists them, each changing
 * nothing.
 */
import assert from "node:assert/strict";
import {
  everything,
  FILE,
  files,
  freshTest,
  keys,
  refusal,
  refused,
  type StoreConformanceOptions,
  type TestApi,
  unchanged,
} from "./support.js";

export function treeTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("forgetPrefix", () => {
    test("deletes a whole prefix literally; deleting nothing is not an error", async ({
      store,
    }) => {
      for (const key of ["/m/a/1", "/m/a/2", "/m/a%", "/m/ab", "/m/b"]) {
        await store.remember({ key, text: "x", tags: ["t"] });
      }
      assert.deepEqual(await store.forgetPrefix("/m/a/"), { deleted: 2 });
      assert.deepEqual(await store.forgetPrefix("/m/a_"), { deleted: 0 });
      assert.deepEqual(await keys(store), ["/m/a%", "/m/ab", "/m/b"]);
      assert.equal((await store.list({ tag: "t" })).items.length, 3);
      const error = await refusal(() => store.forgetPrefix(""));
      assert.equal(error.code, "INVALID_ARGUMENT");
      assert.equal(error.message, "prefix must not be empty");
      assert.equal((await keys(store)).length, 3);
    });
  });

  t.describe("forgetTree", () => {
    test("deletes a file, and not the keys that only share its string prefix", async ({
      store,
    }) => {
      await files(store, "/memories/a.md", "/memories/a.md.bak");
      assert.deepEqual(await store.forgetTree("/memories/a.md"), { deleted: 1 });
      assert.deepEqual(await keys(store), ["/memories/a.md.bak"]);
    });

    test("deletes a directory and everything under it, and nothing beside it", async ({
      store,
    }) => {
      await files(
        store,
        "/memories/d/1.md",
        "/memories/d/e/2.md",
        "/memories/d.md",
        "/memories/d-x/3.md",
      );
      assert.deepEqual(await store.forgetTree("/memories/d"), { deleted: 2 });
      assert.deepEqual(await keys(store), ["/memories/d-x/3.md", "/memories/d.md"]);
    });

    test("deletes a key that is also a directory (keys outside the tree rules) whole", async ({
      store,
    }) => {
      await store.remember({ key: "notes/a", text: "x" });
      await store.remember({ key: "notes/a/b", text: "x" });
      assert.deepEqual(await store.forgetTree("notes/a"), { deleted: 2 });
      assert.deepEqual(await keys(store), []);
    });

    test("answers NOT_FOUND when neither the key nor anything under it exists", async ({
      store,
    }) => {
      await files(store, "/memories/ab.md");
      assert.deepEqual(await refused(() => store.forgetTree("/memories/a")), {
        code: "NOT_FOUND",
        message: "neither /memories/a nor any key under /memories/a/ exists",
        key: "/memories/a",
      });
      assert.equal((await refusal(() => store.forgetTree(""))).code, "INVALID_ARGUMENT");
      assert.deepEqual(await keys(store), ["/memories/ab.md"]);
    });
  });

  t.describe("move", () => {
    test("renames one key, keeping text, tags, metadata and created_at", async ({ store }) => {
      await store.remember({ key: "a", text: "body", tags: ["t"], metadata: { m: true } });
      const before = await store.get("a");
      assert.deepEqual(await store.move("a", "b"), { moved: 1 });
      assert.equal(await store.get("a"), undefined);
      const after = await store.get("b");
      assert.deepEqual(
        [after?.text, after?.tags, after?.metadata, after?.created_at, after?.hash],
        ["body", ["t"], { m: true }, before?.created_at, before?.hash],
      );
      assert.ok((after?.version ?? 0) > (before?.version ?? Number.POSITIVE_INFINITY));
      assert.deepEqual(
        (await store.list({ tag: "t" })).items.map((item) => item.key),
        ["b"],
      );
      assert.equal((await store.recall("body")).hits[0]?.key, "b");
    });

    test("refuses a missing source, an existing destination and a stale version", async ({
      store,
    }) => {
      const a = (await store.remember({ key: "a", text: "1" })).version;
      await store.remember({ key: "b", text: "2" });
      assert.deepEqual(await unchanged(store, () => store.move("missing", "c")), {
        code: "NOT_FOUND",
        message: "missing does not exist",
        key: "missing",
      });
      assert.deepEqual(await unchanged(store, () => store.move("a", "b")), {
        code: "EXISTS",
        message: "cannot move a to b: b exists",
        key: "b",
      });
      assert.deepEqual(await unchanged(store, () => store.move("a", "a")), {
        code: "EXISTS",
        message: "cannot move a onto itself",
        key: "a",
      });
      assert.deepEqual(
        await unchanged(store, () => store.move("a", "c", { expectedVersion: a + 1000 })),
        {
          code: "VERSION_CONFLICT",
          message: `a is at version ${a}, not the expected version ${a + 1000}`,
          key: "a",
          current_version: a,
          expected_version: a + 1000,
        },
      );
      assert.deepEqual(await store.move("a", "c", { expectedVersion: a }), { moved: 1 });
      assert.deepEqual(await keys(store), ["b", "c"]);
    });
  });

  t.describe("the order of refusals of move and movePrefix", () => {
    test("move: NOT_FOUND, VERSION_CONFLICT, EXISTS, PATH_CONFLICT, then an invalid path", async ({
      store,
    }) => {
      const { version } = await store.remember({ key: "/memories/a.md", text: "x", tags: FILE });
      await files(store, "/memories/f");
      const stale = { expectedVersion: version + 1000 };
      const codes = async (action: () => unknown) => (await unchanged(store, action)).code;
      assert.equal(
        await codes(() => store.move("/memories/no.md", "/memories/f", stale)),
        "NOT_FOUND",
      );
      assert.equal(
        await codes(() => store.move("/memories/a.md", "/memories/f", stale)),
        "VERSION_CONFLICT",
      );
      assert.equal(await codes(() => store.move("/memories/a.md", "/memories/f")), "EXISTS");
      // Under a file, and invalid as a memory path too: the tree conflict is named first.
      assert.equal(
        await codes(() => store.move("/memories/a.md", "/memories/f/.x")),
        "PATH_CONFLICT",
      );
      assert.equal(
        await codes(() => store.move("/memories/a.md", "/memories/.x")),
        "INVALID_ARGUMENT",
      );
    });

    test("movePrefix: into itself, NOT_FOUND, invalid destinations, EXISTS, then PATH_CONFLICT", async ({
      store,
    }) => {
      await files(store, "/memories/d/1.md", "/memories/d/2.md", "/memories/e/2.md", "/memories/g");
      const codes = async (from: string, to: string) =>
        (await unchanged(store, () => store.movePrefix(from, to))).code;
      assert.equal(await codes("/memories/none/", "/memories/none/x/"), "INVALID_ARGUMENT");
      assert.equal(await codes("/memories/none/", "/memories/.x/"), "NOT_FOUND");
      // 2.md exists under /memories/e/ too, but the destinations are invalid paths first.
      assert.equal(await codes("/memories/d/", "/memories/e/."), "INVALID_ARGUMENT");
      assert.equal(await codes("/memories/d/", "/memories/e/"), "EXISTS");
      assert.equal(await codes("/memories/d/", "/memories/g/"), "PATH_CONFLICT");
    });
  });

  t.describe("movePrefix", () => {
    test("moves a whole prefix in one transaction, each record to a new version", async ({
      store,
    }) => {
      for (const key of ["/d/x", "/d/y/z", "/dd"]) await store.remember({ key, text: key });
      const before = (await store.get("/dd"))?.version ?? Number.POSITIVE_INFINITY;
      assert.deepEqual(await store.movePrefix("/d/", "/e/"), { moved: 2 });
      assert.deepEqual(await keys(store), ["/dd", "/e/x", "/e/y/z"]);
      assert.equal((await store.get("/e/y/z"))?.text, "/d/y/z");
      const x = (await store.get("/e/x"))?.version ?? 0;
      const z = (await store.get("/e/y/z"))?.version ?? 0;
      assert.ok(x > before && z > before && x !== z, "each moved record takes a new version");
    });

    test("changes nothing when any destination exists", async ({ store }) => {
      for (const key of ["/d/1", "/d/2", "/d/3", "/e/2"]) await store.remember({ key, text: key });
      assert.deepEqual(await unchanged(store, () => store.movePrefix("/d/", "/e/")), {
        code: "EXISTS",
        message: "cannot move to /e/2: it exists",
        key: "/e/2",
      });
    });

    test("refuses a missing prefix, a move under itself, and too long destinations", async ({
      store,
    }) => {
      await store.remember({ key: "/d/x", text: "x" });
      assert.deepEqual(await unchanged(store, () => store.movePrefix("/nothing/", "/e/")), {
        code: "NOT_FOUND",
        message: 'no key starts with "/nothing/"',
        prefix: "/nothing/",
      });
      assert.deepEqual(await unchanged(store, () => store.movePrefix("/d/", "/d/sub/")), {
        code: "INVALID_ARGUMENT",
        message:
          'to_prefix "/d/sub/" starts with from_prefix "/d/": cannot move keys under themselves',
      });
      const long = await unchanged(store, () => store.movePrefix("/d/", `/${"x".repeat(510)}/`));
      assert.equal(long.code, "INVALID_ARGUMENT");
      assert.match(
        String(long.message),
        /^destination key ".*" is 513 bytes, over the limit of 512 bytes$/,
      );
      for (const [from, to] of [
        ["", "/e/"],
        ["/d/", ""],
      ]) {
        assert.equal(
          (await unchanged(store, () => store.movePrefix(from as string, to as string))).code,
          "INVALID_ARGUMENT",
        );
      }
    });
  });

  t.describe("moveTree", () => {
    test("moves a file, keeping text, tags, metadata and created_at, with a new version", async ({
      store,
    }) => {
      await store.remember({
        key: "/memories/a.md",
        text: "body",
        tags: ["memory-file", "x"],
        metadata: { m: 1 },
      });
      const before = await store.get("/memories/a.md");
      assert.deepEqual(await store.moveTree("/memories/a.md", "/memories/b.md"), { moved: 1 });
      const after = await store.get("/memories/b.md");
      assert.deepEqual(
        [after?.text, after?.tags, after?.metadata, after?.created_at],
        ["body", ["memory-file", "x"], { m: 1 }, before?.created_at],
      );
      assert.ok((after?.version ?? 0) > (before?.version ?? Number.POSITIVE_INFINITY));
      assert.deepEqual(await keys(store), ["/memories/b.md"]);
    });

    test("moves a directory and everything under it, each record to a new version", async ({
      store,
    }) => {
      await files(
        store,
        "/memories/d/1.md",
        "/memories/d/e/2.md",
        "/memories/d.md",
        "/memories/dd/3.md",
      );
      const highest = Math.max(...(await everything(store)).map((memory) => memory.version));
      assert.deepEqual(await store.moveTree("/memories/d", "/memories/n/m"), { moved: 2 });
      assert.deepEqual(await keys(store), [
        "/memories/d.md",
        "/memories/dd/3.md",
        "/memories/n/m/1.md",
        "/memories/n/m/e/2.md",
      ]);
      assert.equal((await store.get("/memories/n/m/e/2.md"))?.text, "text of /memories/d/e/2.md");
      for (const key of ["/memories/n/m/1.md", "/memories/n/m/e/2.md"]) {
        assert.ok(((await store.get(key))?.version ?? 0) > highest, `${key} has a new version`);
      }
      const found = (await store.recall("text")).hits.map((hit) => hit.key);
      assert.ok(found.includes("/memories/n/m/e/2.md"), "recall finds a moved file at its new key");
    });

    test("moves a file a level up, out of its directory", async ({ store }) => {
      await files(store, "/memories/d/only.md");
      assert.deepEqual(await store.moveTree("/memories/d/only.md", "/memories/only.md"), {
        moved: 1,
      });
      assert.deepEqual(await keys(store), ["/memories/only.md"]);
    });

    test("moves keys that are not memory files by the same rules, without path checks", async ({
      store,
    }) => {
      await store.remember({ key: "notes/a", text: "x" });
      await store.remember({ key: "notes/a/b", text: "y" });
      assert.deepEqual(await store.moveTree("notes/a", "archive/a"), { moved: 2 });
      assert.deepEqual(await keys(store), ["archive/a", "archive/a/b"]);
    });

    t.describe("refuses in the order of its contract, changing nothing", () => {
      test("1. NOT_FOUND when neither from nor anything under from/ exists", async ({ store }) => {
        await files(store, "/memories/ab.md", "/memories/x.md");
        // Even when every later check would fail too.
        assert.deepEqual(
          await unchanged(store, () => store.moveTree("/memories/a", "/memories/x.md")),
          {
            code: "NOT_FOUND",
            message: "neither /memories/a nor any key under /memories/a/ exists",
            key: "/memories/a",
          },
        );
      });

      test("2. EXISTS when to is from", async ({ store }) => {
        await files(store, "/memories/d/1.md");
        assert.deepEqual(
          await unchanged(store, () => store.moveTree("/memories/d", "/memories/d")),
          { code: "EXISTS", message: "cannot move /memories/d onto itself", key: "/memories/d" },
        );
      });

      test("3. INVALID_ARGUMENT into_itself when a directory would move under itself", async ({
        store,
      }) => {
        await files(store, "/memories/d/1.md", "/memories/d/sub/2.md");
        assert.deepEqual(
          await unchanged(store, () => store.moveTree("/memories/d", "/memories/d/sub")),
          {
            code: "INVALID_ARGUMENT",
            message:
              "cannot move the directory /memories/d into itself: /memories/d/sub lies under it",
            reason: "into_itself",
          },
        );
      });

      test("4. EXISTS when to exists as a file or as a directory", async ({ store }) => {
        await files(store, "/memories/d/1.md", "/memories/f.md", "/memories/e/2.md");
        assert.deepEqual(
          await unchanged(store, () => store.moveTree("/memories/d", "/memories/f.md")),
          {
            code: "EXISTS",
            message: "cannot move /memories/d to /memories/f.md: /memories/f.md exists",
            key: "/memories/f.md",
          },
        );
        assert.deepEqual(
          await unchanged(store, () => store.moveTree("/memories/d", "/memories/e")),
          {
            code: "EXISTS",
            message:
              "cannot move /memories/d to /memories/e: /memories/e exists as a directory (/memories/e/2.md lies under it)",
            key: "/memories/e",
          },
        );
        // A file moved onto its own directory: the directory exists (it holds the file).
        assert.deepEqual(
          await unchanged(store, () => store.moveTree("/memories/d/1.md", "/memories/d")),
          {
            code: "EXISTS",
            message:
              "cannot move /memories/d/1.md to /memories/d: /memories/d exists as a directory (/memories/d/1.md lies under it)",
            key: "/memories/d",
          },
        );
      });

      test("5. PATH_CONFLICT file when an ancestor of to is a file, naming the shortest", async ({
        store,
      }) => {
        await files(store, "/memories/d/1.md", "/memories/f");
        assert.deepEqual(
          await unchanged(store, () => store.moveTree("/memories/d", "/memories/f/g/h/new")),
          {
            code: "PATH_CONFLICT",
            message:
              "cannot move /memories/d to /memories/f/g/h/new: /memories/f is a file, so nothing can lie under it",
            conflict: "file",
            path: "/memories/f",
          },
        );
        // A file with nothing under it cannot move under itself: it is a file until the move.
        await files(store, "/memories/solo");
        assert.deepEqual(
          await unchanged(store, () => store.moveTree("/memories/solo", "/memories/solo/x")),
          {
            code: "PATH_CONFLICT",
            message:
              "cannot move /memories/solo to /memories/solo/x: /memories/solo is a file, so nothing can lie under it",
            conflict: "file",
            path: "/memories/solo",
          },
        );
      });

      test("6. INVALID_ARGUMENT invalid_key naming the first invalid new key in key order", async ({
        store,
      }) => {
        // Two deep keys of 225 bytes: valid memory paths under /memories/d, 254 bytes (over the
        // 240-byte memory-path limit) under a directory 29 bytes longer.
        const deep = `${"x".repeat(120)}/${"y".repeat(90)}`;
        await files(
          store,
          "/memories/d/a.md",
          "/memories/d/b.md",
          `/memories/d/c/${deep}`,
          `/memories/d/z/${deep}`,
        );
        const to = `/memories/${"n".repeat(30)}`;
        const first = await unchanged(store, () => store.moveTree("/memories/d", to));
        assert.deepEqual(
          [first.code, first.reason, first.key],
          ["INVALID_ARGUMENT", "invalid_key", `${to}/c/${deep}`],
        );
        assert.match(
          String(first.message),
          new RegExp(`^cannot move /memories/d/c/${deep} to ${to}/c/${deep}: Invalid memory path`),
        );
        // Out of /memories, a memory file's new key fails the memory-path rules at the first key.
        const outside = await unchanged(store, () => store.moveTree("/memories/d", "elsewhere"));
        assert.deepEqual(
          [outside.code, outside.reason, outside.key],
          ["INVALID_ARGUMENT", "invalid_key", "elsewhere/a.md"],
        );
        // Too long for any key (512 bytes), memory file or not.
        await store.remember({ key: "plain/k", text: "x" });
        const long = `plain-${"y".repeat(505)}`;
        assert.deepEqual(await unchanged(store, () => store.moveTree("plain", long)), {
          code: "INVALID_ARGUMENT",
          message: `cannot move plain/k to ${long}/k: the new key "${long.slice(0, 80)}…" is 513 bytes, over the limit of 512 bytes`,
          reason: "invalid_key",
          key: `${long}/k`,
        });
      });
    });
  });

  t.describe("the tree rules hold for every form of move", () => {
    test("a key move onto a directory or under a file is PATH_CONFLICT", async ({ store }) => {
      await files(store, "/memories/a.md", "/memories/d/1.md", "/memories/f");
      assert.deepEqual(await unchanged(store, () => store.move("/memories/a.md", "/memories/d")), {
        code: "PATH_CONFLICT",
        message:
          "cannot move /memories/a.md to /memories/d: /memories/d is a directory (/memories/d/1.md lies under it)",
        conflict: "directory",
        path: "/memories/d",
      });
      assert.deepEqual(
        await unchanged(store, () => store.move("/memories/a.md", "/memories/f/a.md")),
        {
          code: "PATH_CONFLICT",
          message:
            "cannot move /memories/a.md to /memories/f/a.md: /memories/f is a file, so nothing can lie under it",
          conflict: "file",
          path: "/memories/f",
        },
      );
      // Not memory files: no tree rule.
      await store.remember({ key: "n/f", text: "x" });
      await store.remember({ key: "n/g", text: "x" });
      assert.deepEqual(await store.move("n/g", "n/f/g"), { moved: 1 });
    });

    test("a prefix move that would put a file under a file is PATH_CONFLICT", async ({ store }) => {
      await files(store, "/memories/d/1.md", "/memories/e");
      assert.deepEqual(
        await unchanged(store, () => store.movePrefix("/memories/d/", "/memories/e/")),
        {
          code: "PATH_CONFLICT",
          message:
            "cannot move to /memories/e/1.md: /memories/e is a file, so nothing can lie under it",
          conflict: "file",
          path: "/memories/e",
        },
      );
      assert.deepEqual(await store.movePrefix("/memories/d/", "/memories/g/"), { moved: 1 });
      assert.deepEqual(await keys(store), ["/memories/e", "/memories/g/1.md"]);
      assert.deepEqual((await store.get("/memories/g/1.md"))?.tags, FILE);
    });
  });
}
