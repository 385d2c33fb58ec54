import { describe, expect, it } from "vitest";
import type { MemoryBackend } from "./backend.js";
import { runBackendConformance } from "./conformance.js";
import { InMemoryBackend } from "./in-memory-backend.js";

runBackendConformance(
  { name: "in-memory", makeBackend: () => new InMemoryBackend() },
  { describe, it },
);
runBackendConformance(
  {
    name: "in-memory without atomic operations",
    makeBackend: () => new InMemoryBackend({ atomicOperations: false }),
  },
  { describe, it },
);
runBackendConformance(
  {
    name: "in-memory with a 64-byte limit",
    makeBackend: () => new InMemoryBackend({ maxFileBytes: 64 }),
  },
  { describe, it },
);

describe("the conformance suite itself", () => {
  // Runs the suite against a broken backend and collects which tests fail, to show the
  // suite can fail (a suite that passes everything would prove nothing).
  async function failuresOf(makeBackend: () => MemoryBackend): Promise<string[]> {
    const tests: Array<[string, () => Promise<void>]> = [];
    runBackendConformance(
      { makeBackend },
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
