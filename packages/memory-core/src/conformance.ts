import {
  type MemoryBackend,
  MemoryBackendError,
  type MemoryBackendErrorCode,
  type TreeOperations,
} from "./backend.js";

/**
 * The two functions of a test framework the suites need. vitest, jest, mocha and node:test
 * all provide them: `runBackendConformance(options, { describe, it })`.
 */
export interface TestApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
}

/** How {@link runBackendConformance} gets backends. */
export interface BackendFactory {
  /** A fresh, empty backend; called once per test. */
  makeBackend: () => MemoryBackend | Promise<MemoryBackend>;
  /** Called after each test (close connections, remove files). */
  disposeBackend?: (backend: MemoryBackend) => void | Promise<void>;
  /** Shown in the suite's name. */
  name?: string;
  /**
   * Whether the backends declare the tree capability ({@link MemoryBackend.tree}). The suite
   * checks that they do as said, and runs the tree tests only on backends that do.
   */
  tree: boolean;
}

/**
 * Registers tests that check a {@link MemoryBackend} keeps the contract the engine relies
 * on: reads, creates, compare-and-set updates and deletes with distinguishable refusals,
 * recursive listing in code point order with UTF-8 sizes, exact text round trips, the size
 * limit (if the backend declares one), the tree capability (when the factory says the
 * backends have it) and races between concurrent writers. The assertions are self-contained, so the suite
 * runs under any framework.
 */
export function runBackendConformance(factory: BackendFactory, t: TestApi): void {
  const test = (name: string, body: (backend: MemoryBackend) => Promise<void>) =>
    t.it(name, async () => {
      const backend = await factory.makeBackend();
      try {
        await body(backend);
      } finally {
        await factory.disposeBackend?.(backend);
      }
    });

  t.describe(`MemoryBackend conformance${factory.name ? `: ${factory.name}` : ""}`, () => {
    test("read of a missing file returns null", async (b) => {
      equal(await b.read("/memories/missing.md"), null, "read of a missing file");
    });

    test("create stores a file that read returns with its version", async (b) => {
      const version = await b.create("/memories/a.md", "hello\n");
      const file = await b.read("/memories/a.md");
      equal(file?.content, "hello\n", "content after create");
      equal(file?.version, version, "version after create");
    });

    test("create refuses an existing path with EXISTS and keeps the old text", async (b) => {
      await b.create("/memories/a.md", "first");
      await rejectsWith(b.create("/memories/a.md", "second"), "EXISTS", "second create");
      equal((await b.read("/memories/a.md"))?.content, "first", "content after refused create");
    });

    test("text round-trips exactly", async (b) => {
      const texts = [
        "",
        "\n",
        "no final newline",
        "crlf\r\nlines\r\n",
        "emoji 😀 and é € 日本",
        "$& $1 $$ \\n %2e",
        " leading and trailing spaces ",
        "\u0000\u0001 control and \u202e bidi in content are allowed",
      ];
      for (const [i, text] of texts.entries()) {
        await b.create(`/memories/t${i}`, text);
        equal(
          (await b.read(`/memories/t${i}`))?.content,
          text,
          `round trip of ${JSON.stringify(text)}`,
        );
      }
    });

    test("update with the current version replaces the text and changes the version", async (b) => {
      const v1 = await b.create("/memories/a.md", "one");
      const v2 = await b.update("/memories/a.md", "two", v1);
      check(v2 !== v1, "the version must change on update");
      const file = await b.read("/memories/a.md");
      equal(file?.content, "two", "content after update");
      equal(file?.version, v2, "version after update");
      const v3 = await b.update("/memories/a.md", "two", v2);
      check(v3 !== v2 && v3 !== v1, "an update to the same text still makes a new version");
    });

    test("update with a stale version fails with VERSION_CONFLICT and changes nothing", async (b) => {
      const v1 = await b.create("/memories/a.md", "one");
      await b.update("/memories/a.md", "two", v1);
      await rejectsWith(
        b.update("/memories/a.md", "three", v1),
        "VERSION_CONFLICT",
        "stale update",
      );
      equal((await b.read("/memories/a.md"))?.content, "two", "content after stale update");
    });

    test("update of a missing file fails with NOT_FOUND, not VERSION_CONFLICT", async (b) => {
      const v1 = await b.create("/memories/a.md", "one");
      await b.delete("/memories/a.md");
      await rejectsWith(b.update("/memories/a.md", "two", v1), "NOT_FOUND", "update of deleted");
      equal(await b.read("/memories/a.md"), null, "an update must not recreate the file");
    });

    test("a version is never reused: a stale version fails after a delete and a re-create", async (b) => {
      const first = await b.create("/memories/a.md", "first life");
      await b.delete("/memories/a.md");
      const second = await b.create("/memories/a.md", "second life");
      check(second !== first, "a re-created file must not get its old version back");
      await rejectsWith(
        b.update("/memories/a.md", "stale write", first),
        "VERSION_CONFLICT",
        "update of a re-created file with the first life's version",
      );
      await rejectsWith(
        b.delete("/memories/a.md", first),
        "VERSION_CONFLICT",
        "delete of a re-created file with the first life's version",
      );
      equal((await b.read("/memories/a.md"))?.content, "second life", "content after stale writes");
    });

    test("delete removes a file; a missing file is NOT_FOUND", async (b) => {
      await b.create("/memories/a.md", "x");
      await b.delete("/memories/a.md");
      equal(await b.read("/memories/a.md"), null, "read after delete");
      await rejectsWith(b.delete("/memories/a.md"), "NOT_FOUND", "second delete");
    });

    test("delete with an expected version is a compare-and-set", async (b) => {
      const v1 = await b.create("/memories/a.md", "one");
      const v2 = await b.update("/memories/a.md", "two", v1);
      await rejectsWith(b.delete("/memories/a.md", v1), "VERSION_CONFLICT", "stale delete");
      equal((await b.read("/memories/a.md"))?.content, "two", "content after stale delete");
      await b.delete("/memories/a.md", v2);
      equal(await b.read("/memories/a.md"), null, "read after delete at current version");
    });

    test("list returns every file under a prefix, recursively, with UTF-8 sizes and versions", async (b) => {
      const files: Record<string, string> = {
        "/memories/a/x.md": "x",
        "/memories/a/deep/er/y.md": "é€😀", // 9 bytes
        "/memories/ab.md": "ab", // shares the string prefix "/memories/a" but not the directory
        "/memories/b.md": "",
      };
      const versions: Record<string, unknown> = {};
      for (const [path, text] of Object.entries(files)) versions[path] = await b.create(path, text);
      const entries = await b.list("/memories/a/");
      equal(
        entries.map((e) => [e.path, e.bytes, e.version]),
        [
          ["/memories/a/deep/er/y.md", 9, versions["/memories/a/deep/er/y.md"]],
          ["/memories/a/x.md", 1, versions["/memories/a/x.md"]],
        ],
        "list of /memories/a/",
      );
      equal(
        (await b.list("/memories/")).map((e) => e.path),
        ["/memories/a/deep/er/y.md", "/memories/a/x.md", "/memories/ab.md", "/memories/b.md"],
        "list of /memories/",
      );
      equal(await b.list("/memories/none/"), [], "list of an empty prefix");
    });

    test("list orders keys by code point, not UTF-16 code unit", async (b) => {
      const names = ["\ufa0e", "😀", "z", "\ue000", "é", "Z", "a b", "a-b", "a"];
      for (const name of names) await b.create(`/memories/${name}`, name);
      const expected = [...names].sort((x, y) => compareBytes(x, y)).map((n) => `/memories/${n}`);
      equal(
        (await b.list("/memories/")).map((e) => e.path),
        expected,
        "listing order",
      );
    });

    test("list with a limit returns the first entries in order", async (b) => {
      for (const name of ["c", "a", "b", "d"]) await b.create(`/memories/d/${name}`, name);
      equal(
        (await b.list("/memories/d/", 1)).map((e) => e.path),
        ["/memories/d/a"],
        "limit 1",
      );
      equal(
        (await b.list("/memories/d/", 3)).map((e) => e.path),
        ["/memories/d/a", "/memories/d/b", "/memories/d/c"],
        "limit 3",
      );
    });

    test("the size limit, if declared, admits exactly the limit and stores nothing beyond", async (b) => {
      const limit = b.maxFileBytes;
      if (limit === undefined) return; // nothing declared: nothing to hold the backend to
      const atLimit = "é".repeat(Math.floor(limit / 2)) + (limit % 2 ? "a" : "");
      const over = `${atLimit}a`;
      const v1 = await b.create("/memories/limit.md", atLimit);
      equal((await b.read("/memories/limit.md"))?.content, atLimit, "content at the limit");
      await rejectsWith(b.create("/memories/over.md", over), "TOO_LARGE", "create over limit");
      equal(await b.read("/memories/over.md"), null, "nothing stored by a refused create");
      await rejectsWith(b.update("/memories/limit.md", over, v1), "TOO_LARGE", "update over limit");
      equal((await b.read("/memories/limit.md"))?.content, atLimit, "content after refused update");
    });

    test("concurrent creates of one path: exactly one wins", async (b) => {
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => b.create("/memories/race.md", `writer ${i}`)),
      );
      const won = results.filter((r) => r.status === "fulfilled");
      equal(won.length, 1, "successful creates");
      for (const r of results) {
        if (r.status === "rejected")
          check(MemoryBackendError.isInstance(r.reason, "EXISTS"), "losers get EXISTS");
      }
    });

    test("concurrent updates from one version: exactly one wins", async (b) => {
      const v1 = await b.create("/memories/race.md", "start");
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => b.update("/memories/race.md", `writer ${i}`, v1)),
      );
      const winners = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
      equal(winners.length, 1, "successful updates");
      equal((await b.read("/memories/race.md"))?.content, `writer ${winners[0]}`, "winner's text");
      for (const r of results) {
        if (r.status === "rejected") {
          check(
            MemoryBackendError.isInstance(r.reason, "VERSION_CONFLICT"),
            "losers get VERSION_CONFLICT",
          );
        }
      }
    });

    test(`declares the tree capability: ${factory.tree}`, async (b) => {
      equal(b.tree !== undefined, factory.tree, "whether the backend declares tree");
    });
  });

  if (!factory.tree) return;
  const treeTest = (
    name: string,
    body: (b: MemoryBackend, tree: TreeOperations) => Promise<void>,
  ) =>
    test(name, async (b) => {
      check(b.tree !== undefined, "the backend declares tree");
      await body(b, b.tree);
    });

  t.describe(
    `MemoryBackend conformance, tree capability${factory.name ? `: ${factory.name}` : ""}`,
    () => {
      treeTest(
        "a tree move gives a new version: moving back does not revive the old one",
        async (b, tree) => {
          const move = (from: string, to: string) => tree.moveTree(from, to);
          const first = await b.create("/memories/a.md", "text");
          await move("/memories/a.md", "/memories/b.md");
          await move("/memories/b.md", "/memories/a.md");
          await rejectsWith(
            b.update("/memories/a.md", "stale write", first),
            "VERSION_CONFLICT",
            "update with the version from before two moves",
          );
          equal((await b.read("/memories/a.md"))?.content, "text", "content after a stale write");
        },
      );

      treeTest("create refuses a directory and a path under a file", async (b) => {
        await b.create("/memories/d/x.md", "x");
        await b.create("/memories/f.md", "f");
        const directory = await rejectsWith(
          b.create("/memories/d", "d"),
          "IS_DIRECTORY",
          "create of a directory's path",
        );
        equal(directory.path, "/memories/d", "IS_DIRECTORY path");
        const underFile = await rejectsWith(
          b.create("/memories/f.md/g/h.md", "h"),
          "UNDER_FILE",
          "create under a file",
        );
        equal(underFile.path, "/memories/f.md/g/h.md", "UNDER_FILE path");
        equal(underFile.file, "/memories/f.md", "UNDER_FILE file");
        await rejectsWith(b.create("/memories/f.md", "again"), "EXISTS", "create of a file's path");
        equal(
          (await b.list("/memories/")).map((e) => e.path),
          ["/memories/d/x.md", "/memories/f.md"],
          "nothing stored by refused creates",
        );
        await b.create("/memories/d.md", "a sibling whose name only starts like the directory");
        await b.create("/memories/f.md2/x", "under a name that only starts like the file");
      });

      treeTest("create never lets a file and a directory of one name both in", async (b) => {
        for (let round = 0; round < 8; round++) {
          const base = `/memories/race${round}`;
          const [file, under] = await Promise.allSettled([
            b.create(base, "file"),
            b.create(`${base}/b.md`, "under"),
          ]);
          const won = [file, under].filter((r) => r.status === "fulfilled").length;
          equal(won, 1, `round ${round}: creates of ${base} and ${base}/b.md that succeeded`);
          if (file.status === "rejected") {
            check(
              MemoryBackendError.isInstance(file.reason, "IS_DIRECTORY"),
              "the file's create: IS_DIRECTORY",
            );
          }
          if (under.status === "rejected") {
            check(
              MemoryBackendError.isInstance(under.reason, "UNDER_FILE"),
              "the nested create: UNDER_FILE",
            );
          }
        }
      });

      treeTest(
        "deleteTree deletes a file or a directory and everything under it",
        async (b, tree) => {
          const paths = ["/memories/d/a", "/memories/d/e/f", "/memories/dd", "/memories/f.md"];
          for (const p of paths) await b.create(p, p);
          equal(await tree.deleteTree("/memories/d"), 2, "count deleted for a directory");
          equal(await tree.deleteTree("/memories/f.md"), 1, "count deleted for a file");
          equal(
            (await b.list("/memories/")).map((e) => e.path),
            ["/memories/dd"],
            "left after the tree deletes",
          );
          await rejectsWith(tree.deleteTree("/memories/d"), "NOT_FOUND", "tree delete of nothing");
          await rejectsWith(
            tree.deleteTree("/memories/d"),
            "NOT_FOUND",
            "tree delete of a name that only prefixes another (/memories/dd)",
          );
          equal(
            (await b.read("/memories/dd"))?.content,
            "/memories/dd",
            "the prefixed file is kept",
          );
        },
      );

      treeTest("moveTree moves a file or a directory and everything under it", async (b, tree) => {
        for (const p of ["/memories/s/a", "/memories/s/b/c", "/memories/s2", "/memories/f.md"]) {
          await b.create(p, p);
        }
        const before = await b.read("/memories/s/b/c");
        equal(await tree.moveTree("/memories/s", "/memories/u/v"), 2, "count moved (directory)");
        equal(await tree.moveTree("/memories/f.md", "/memories/u/g.md"), 1, "count moved (file)");
        equal(
          (await b.list("/memories/")).map((e) => e.path),
          ["/memories/s2", "/memories/u/g.md", "/memories/u/v/a", "/memories/u/v/b/c"],
          "after the tree moves",
        );
        const after = await b.read("/memories/u/v/b/c");
        equal(after?.content, "/memories/s/b/c", "moved text");
        check(after?.version !== before?.version, "a moved file gets a new version");
        await b.update("/memories/u/v/b/c", "edited", after?.version ?? 0);
        equal((await b.read("/memories/u/v/b/c"))?.content, "edited", "a moved file is editable");
      });

      treeTest(
        "moveTree refuses in the contract's order, naming the file or the key",
        async (b, tree) => {
          const files = [
            "/memories/d/a.md",
            "/memories/d/sub/\ufa0e", // first in code point order, second in UTF-16 order
            "/memories/d/sub/😀",
            "/memories/e/x.md",
            "/memories/f.md",
            "/memories/g.md",
          ];
          for (const p of files) await b.create(p, p);
          const move = (from: string, to: string) => tree.moveTree(from, to);
          // 1. nothing to move comes first, even onto itself
          await rejectsWith(
            move("/memories/none", "/memories/none"),
            "NOT_FOUND",
            "missing source",
          );
          await rejectsWith(
            move("/memories/d/a", "/memories/z"),
            "NOT_FOUND",
            "a name prefix only",
          );
          // 2. onto itself
          await rejectsWith(
            move("/memories/f.md", "/memories/f.md"),
            "EXISTS",
            "a file onto itself",
          );
          await rejectsWith(
            move("/memories/d", "/memories/d"),
            "EXISTS",
            "a directory onto itself",
          );
          // 3. a directory into itself, before the destination's existence
          await rejectsWith(move("/memories/d", "/memories/d/sub"), "INTO_ITSELF", "into itself");
          await rejectsWith(move("/memories/d", "/memories/d/new"), "INTO_ITSELF", "into itself");
          // 4. the destination exists, as a file or as a directory
          await rejectsWith(move("/memories/d", "/memories/f.md"), "EXISTS", "onto a file");
          await rejectsWith(move("/memories/g.md", "/memories/e"), "EXISTS", "onto a directory");
          // 5. the destination lies under a file (a file under itself included)
          const under = await rejectsWith(
            move("/memories/d", "/memories/f.md/x/y"),
            "UNDER_FILE",
            "under a file",
          );
          equal(under.file, "/memories/f.md", "the file named by UNDER_FILE");
          const itself = await rejectsWith(
            move("/memories/g.md", "/memories/g.md/h.md"),
            "UNDER_FILE",
            "a file under itself",
          );
          equal(itself.file, "/memories/g.md", "the file named for a file moved under itself");
          // 6. a new path breaks a path rule: 16 levels is the most, so the files two levels
          // below d break it at a destination 15 levels deep; the first in code point order is named
          const deep = `/memories/${Array.from({ length: 15 }, (_, i) => `l${i}`).join("/")}`;
          const invalid = await rejectsWith(move("/memories/d", deep), "INVALID_KEY", "too deep");
          equal(invalid.key, `${deep}/sub/\ufa0e`, "the first invalid new key");
          equal(
            (await b.list("/memories/")).map((e) => e.path),
            files,
            "nothing changed by refused tree moves",
          );
        },
      );
    },
  );
}

// ---------------------------------------------------------------------------------------
// Self-contained assertions.

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`conformance: ${what}`);
}

function equal(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`conformance: ${what}: expected ${e}, got ${a}`);
}

async function rejectsWith(
  operation: Promise<unknown>,
  code: MemoryBackendErrorCode,
  what: string,
): Promise<MemoryBackendError> {
  try {
    await operation;
  } catch (error) {
    if (MemoryBackendError.isInstance(error, code)) return error;
    throw new Error(
      `conformance: ${what}: expected a MemoryBackendError ${code}, got ${String(error)}`,
    );
  }
  throw new Error(`conformance: ${what}: expected a MemoryBackendError ${code}, but it succeeded`);
}

function compareBytes(a: string, b: string): number {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x.length - y.length;
}
