import { describe, expect, it } from "vitest";
import { type MemoryBackend, MemoryBackendError, type TreeOperations } from "./backend.js";
import { runBackendConformance } from "./conformance.js";
import { InMemoryBackend } from "./in-memory-backend.js";

runBackendConformance(
  { name: "in-memory", makeBackend: () => new InMemoryBackend(), tree: true },
  { describe, it },
);
runBackendConformance(
  {
    name: "in-memory without the tree capability",
    makeBackend: () => new InMemoryBackend({ tree: false }),
    tree: false,
  },
  { describe, it },
);
runBackendConformance(
  {
    name: "in-memory with a 64-byte limit",
    makeBackend: () => new InMemoryBackend({ maxFileBytes: 64 }),
    tree: true,
  },
  { describe, it },
);

describe("the conformance suite itself", () => {
  // Runs the suite against a broken backend and collects which tests fail, to show the
  // suite can fail (a suite that passes everything would prove nothing).
  async function failuresOf(makeBackend: () => MemoryBackend): Promise<string[]> {
    const tests: Array<[string, () => Promise<void>]> = [];
    runBackendConformance(
      { makeBackend, tree: true },
      { describe: (_name, body) => body(), it: (name, body) => void tests.push([name, body]) },
    );
    const failed: string[] = [];
    for (const [name, body] of tests) {
      await body().catch(() => failed.push(name));
    }
    return failed;
  }

  it("catches a backend whose update ignores the expected version", async () => {
    const failed = await failuresOf(() => {
      const backend = new InMemoryBackend();
      const update = backend.update.bind(backend);
      backend.update = async (path, content) => {
        const file = await backend.read(path);
        return update(path, content, file?.version ?? 0);
      };
      return backend;
    });
    expect(failed).toContain(
      "update with a stale version fails with VERSION_CONFLICT and changes nothing",
    );
  });

  it("catches a backend that lists in UTF-16 order or by a path-unaware prefix", async () => {
    const failed = await failuresOf(() => {
      const backend = new InMemoryBackend();
      const list = backend.list.bind(backend);
      backend.list = async (prefix, limit) =>
        (await list(prefix.replace(/\/$/, ""), limit)).sort((a, b) => (a.path < b.path ? -1 : 1));
      return backend;
    });
    expect(failed).toContain("list orders keys by code point, not UTF-16 code unit");
    expect(failed).toContain(
      "list returns every file under a prefix, recursively, with UTF-8 sizes and versions",
    );
  });

  it("catches a backend that starts a re-created file's versions over", async () => {
    const failed = await failuresOf(() => {
      // Versions counted per file from 1, forgotten on delete: the ABA hazard.
      const backend = new InMemoryBackend({ tree: false });
      const versions = new Map<string, number>();
      const inner = new Map<string, number | string>();
      backend.create = async (path, content) => {
        inner.set(path, await InMemoryBackend.prototype.create.call(backend, path, content));
        versions.set(path, 1);
        return 1;
      };
      backend.update = async (path, content, expected) => {
        const current = versions.get(path);
        if (current === undefined) throw new MemoryBackendError("NOT_FOUND", path);
        if (current !== expected) throw new MemoryBackendError("VERSION_CONFLICT", path);
        const previous = inner.get(path) as number | string;
        inner.set(
          path,
          await InMemoryBackend.prototype.update.call(backend, path, content, previous),
        );
        versions.set(path, current + 1);
        return current + 1;
      };
      backend.delete = async (path, expected) => {
        const current = versions.get(path);
        if (current === undefined) throw new MemoryBackendError("NOT_FOUND", path);
        if (expected !== undefined && current !== expected) {
          throw new MemoryBackendError("VERSION_CONFLICT", path);
        }
        await InMemoryBackend.prototype.delete.call(backend, path);
        versions.delete(path);
      };
      return backend;
    });
    expect(failed).toContain(
      "a version is never reused: a stale version fails after a delete and a re-create",
    );
  });

  it("catches a tree move that checks the destination before the move into itself", async () => {
    const failed = await failuresOf(() => {
      const backend = new InMemoryBackend();
      const tree = backend.tree as TreeOperations;
      const hasty: TreeOperations = {
        deleteTree: tree.deleteTree,
        async moveTree(from, to) {
          if ((await backend.list(`${to}/`, 1)).length > 0) {
            throw new MemoryBackendError("EXISTS", from);
          }
          return tree.moveTree(from, to);
        },
      };
      return Object.assign(backend, { tree: hasty });
    });
    expect(failed).toEqual([
      "moveTree refuses in the contract's order, naming the file or the key",
    ]);
  });

  it("catches a create that lets a file and a directory of one name in", async () => {
    const failed = await failuresOf(() => {
      const backend = new InMemoryBackend();
      // Claims the tree rule, but its create does not make the checks.
      const plain = new InMemoryBackend({ tree: false });
      backend.create = plain.create.bind(plain);
      backend.read = plain.read.bind(plain);
      backend.list = plain.list.bind(plain);
      return backend;
    });
    expect(failed).toContain("create refuses a directory and a path under a file");
    expect(failed).toContain("create never lets a file and a directory of one name both in");
  });

  it("catches a backend that reports a missing file as a version conflict", async () => {
    const failed = await failuresOf(() => {
      const backend = new InMemoryBackend();
      const update = backend.update.bind(backend);
      backend.update = async (path, content, version) => {
        if (!(await backend.read(path))) {
          const { MemoryBackendError } = await import("./backend.js");
          throw new MemoryBackendError("VERSION_CONFLICT", path);
        }
        return update(path, content, version);
      };
      return backend;
    });
    expect(failed).toEqual(["update of a missing file fails with NOT_FOUND, not VERSION_CONFLICT"]);
  });
});

describe("a factory that says tree but makes backends without it", () => {
  it("fails the declaration test", async () => {
    const tests: Array<[string, () => Promise<void>]> = [];
    runBackendConformance(
      { makeBackend: () => new InMemoryBackend({ tree: false }), tree: true },
      { describe: (_name, body) => body(), it: (name, body) => void tests.push([name, body]) },
    );
    const declaration = tests.find(([name]) => name === "declares the tree capability: true");
    await expect(declaration?.[1]()).rejects.toThrow("whether the backend declares tree");
  });
});
