/**
 * Memory files (keys under /memories, or tagged memory-file): their keys follow the memory-path
 * rules, and the tree stays well formed when a write gives a memory-file key existence: no file
 * under a file, no file where a directory is (PATH_CONFLICT).
 */
import assert from "node:assert/strict";
import {
  FILE,
  files,
  freshTest,
  keys,
  refusal,
  type StoreConformanceOptions,
  type TestApi,
  unchanged,
} from "./support.js";

export function memoryFileTests(t: TestApi, options: StoreConformanceOptions): void {
  const test = (name: string, body: Parameters<typeof freshTest>[3]) =>
    freshTest(t, options, name, body);

  t.describe("memory-file paths", () => {
    test("are held to the memory-path rules, by key or by tag, storing nothing when refused", async ({
      store,
    }) => {
      for (const key of [
        "/memories/../etc/passwd",
        "/memories/.hidden",
        "/memories//double",
        "/memories/a%2fb",
        "/memories/back\\slash",
        // Look-alikes of another name: a client that skips validation cannot create them.
        "/memories/cafe\u0301.md",
        "/memories/\uff21.md",
      ]) {
        const error = await refusal(() => store.remember({ key, text: "x" }));
        assert.equal(error.code, "INVALID_ARGUMENT", key);
        assert.match(error.message, /Invalid memory path/, key);
        assert.deepEqual(error.details, { key });
      }
      // Tagged memory-file, so it must be a memory path even though the key looks ordinary.
      assert.equal(
        (await refusal(() => store.remember({ key: "notes/x", text: "x", tags: FILE }))).code,
        "INVALID_ARGUMENT",
      );
      // Not a memory file: ordinary keys keep the ordinary rules.
      await store.remember({ key: "/memories_backup/x", text: "x" });
      await store.remember({ key: "/memories/ok.md", text: "x", tags: FILE });
      assert.deepEqual(await keys(store), ["/memories/ok.md", "/memories_backup/x"]);
    });

    test("cannot be moved or re-tagged onto an invalid path", async ({ store }) => {
      await files(store, "/memories/dir/a.md");
      await store.remember({ key: "plain", text: "x" });
      for (const action of [
        () => store.move("/memories/dir/a.md", "elsewhere/a.md"),
        () => store.move("plain", "/memories/.secret"),
        () => store.movePrefix("/memories/dir/", "/memories/.dir/"),
        () => store.move("/memories/dir/a.md", "/memories/dir/\ufb01le.md"),
        () => store.remember({ key: "plain", text: "y", tags: FILE }),
      ]) {
        assert.equal((await unchanged(store, action)).code, "INVALID_ARGUMENT");
      }
    });
  });

  t.describe("PATH_CONFLICT keeps the memory-file tree well formed", () => {
    test("a file where a directory is (conflict directory, path the key)", async ({ store }) => {
      await files(store, "/memories/a/b.md", "/memories/a/c/d.md");
      assert.deepEqual(
        await unchanged(store, () => store.remember({ key: "/memories/a", text: "x" })),
        {
          code: "PATH_CONFLICT",
          message:
            "cannot create /memories/a: /memories/a is a directory (/memories/a/b.md lies under it)",
          conflict: "directory",
          path: "/memories/a",
        },
      );
      assert.deepEqual(
        await unchanged(store, () => store.remember({ key: "/memories/a/c", text: "x" })),
        {
          code: "PATH_CONFLICT",
          message:
            "cannot create /memories/a/c: /memories/a/c is a directory (/memories/a/c/d.md lies under it)",
          conflict: "directory",
          path: "/memories/a/c",
        },
      );
    });

    test("a file under a file (conflict file, path the shortest such ancestor)", async ({
      store,
    }) => {
      await files(store, "/memories/a");
      assert.deepEqual(
        await unchanged(store, () => store.remember({ key: "/memories/a/b/c.md", text: "x" })),
        {
          code: "PATH_CONFLICT",
          message:
            "cannot create /memories/a/b/c.md: /memories/a is a file, so nothing can lie under it",
          conflict: "file",
          path: "/memories/a",
        },
      );
    });

    test("the root as a file while memories lie under it", async ({ store }) => {
      await files(store, "/memories/x.md");
      const error = await refusal(() => store.remember({ key: "/memories", text: "x" }));
      assert.equal(error.code, "PATH_CONFLICT");
      assert.deepEqual(error.details, { conflict: "directory", path: "/memories" });
    });

    test("keys that only share a string prefix do not conflict", async ({ store }) => {
      await files(store, "/memories/a.md", "/memories/ab/c.md", "/memories/a-b");
      await files(store, "/memories/a", "/memories/ab.md");
      assert.deepEqual(await keys(store), [
        "/memories/a",
        "/memories/a-b",
        "/memories/a.md",
        "/memories/ab.md",
        "/memories/ab/c.md",
      ]);
    });

    test("applies only to memory-file keys", async ({ store }) => {
      for (const key of ["notes/a/b", "notes/a", "notes/a/b/c"]) {
        await store.remember({ key, text: "x" });
      }
      assert.deepEqual(await keys(store), ["notes/a", "notes/a/b", "notes/a/b/c"]);
    });

    test("a create checks the expected version, then the path, then the tree", async ({
      store,
    }) => {
      await files(store, "/memories/f");
      const code = async (input: { key: string; expectedVersion?: number }) =>
        (await unchanged(store, () => store.remember({ text: "x", ...input }))).code;
      assert.equal(await code({ key: "/memories/f/.x", expectedVersion: 1 }), "NOT_FOUND");
      assert.equal(await code({ key: "/memories/f/.x" }), "INVALID_ARGUMENT");
      assert.equal(await code({ key: "/memories/f/x" }), "PATH_CONFLICT");
    });

    test("a refusal inside rememberMany stores none of the batch", async ({ store }) => {
      const error = await refusal(() =>
        store.rememberMany([
          { key: "/memories/a", text: "file" },
          { key: "/memories/a/b.md", text: "under the file" },
        ]),
      );
      assert.equal(error.code, "PATH_CONFLICT");
      assert.deepEqual(error.details, { conflict: "file", path: "/memories/a" });
      assert.deepEqual(await keys(store), []);
    });
  });
}
