import { MemoryPathError } from "@hms/memory-paths";
import { describe, expect, it } from "vitest";
import {
  type MemoryBackend,
  MemoryBackendError,
  type RecallHit,
  type RecallTimeRange,
} from "./backend.js";
import { DEFAULT_MAX_FILE_BYTES, MemoryEngine } from "./engine.js";
import { MemoryToolError } from "./errors.js";
import { type BackendOperation, InMemoryBackend } from "./in-memory-backend.js";

const noWait = { sleep: async () => undefined };

async function failure(promise: Promise<unknown>): Promise<MemoryToolError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryToolError);
    return error as MemoryToolError;
  }
  throw new Error("expected the command to fail");
}

describe("MemoryEngine as an SDK handler object", () => {
  it("runs a session of commands end to end", async () => {
    const memory = new MemoryEngine(new InMemoryBackend());
    expect(await memory.view({ command: "view", path: "/memories" })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
    );
    await memory.create({ command: "create", path: "/memories/acme.md", file_text: "- email\n" });
    await memory.insert({
      command: "insert",
      path: "/memories/acme.md",
      insert_line: 1,
      insert_text: "- mornings\n",
    });
    await memory.str_replace({
      command: "str_replace",
      path: "/memories/acme.md",
      old_str: "email",
      new_str: "email, never phone",
    });
    await memory.rename({
      command: "rename",
      old_path: "/memories/acme.md",
      new_path: "/memories/clients/acme.md",
    });
    expect(await memory.view({ command: "view", path: "/memories/clients/acme.md" })).toBe(
      "Here's the content of /memories/clients/acme.md with line numbers:\n     1\t- email, never phone\n     2\t- mornings",
    );
    expect(await memory.delete({ command: "delete", path: "/memories/clients" })).toBe(
      "Successfully deleted /memories/clients",
    );
    expect((memory.backend as InMemoryBackend).snapshot()).toEqual({});
  });

  it("dispatches any command through execute and refuses what is not a command", async () => {
    const memory = new MemoryEngine(new InMemoryBackend({ files: { "/memories/a": "x\n" } }));
    expect(await memory.execute({ command: "view", path: "/memories/a" })).toContain("     1\tx");
    for (const input of [null, "view", ["view"], 42]) {
      const error = await failure(memory.execute(input as never));
      expect(error.code).toBe("invalid_command");
      expect(error.message).toMatch(/^Invalid memory command: expected an object/);
    }
    const error = await failure(memory.view(null as never));
    expect(error.message).toBe(
      'Invalid memory command: expected an object with a "command" field, got null.',
    );
  });

  it("keeps the MemoryPathError as the cause of an invalid_path error", async () => {
    const memory = new MemoryEngine(new InMemoryBackend());
    const error = await failure(memory.view({ command: "view", path: "/memories/../x" }));
    expect(error.code).toBe("invalid_path");
    expect(error.pathRule).toBe("dot-segment");
    expect(error.cause).toBeInstanceOf(MemoryPathError);
    expect(error).toBeInstanceOf(Error);
  });

  it("validates paths before touching storage", async () => {
    const operations: BackendOperation[] = [];
    const backend = new InMemoryBackend({ beforeOperation: (op) => void operations.push(op) });
    const memory = new MemoryEngine(backend);
    await failure(memory.create({ command: "create", path: "/memories/.x", file_text: "a" }));
    await failure(memory.rename({ command: "rename", old_path: "/memories/a", new_path: "/x" }));
    await failure(memory.view({ command: "view", path: "/memories/a", view_range: [1] }));
    await failure(
      memory.create({ command: "create", path: "/memories/a", file_text: "x".repeat(40_000) }),
    );
    expect(operations).toEqual([]);
  });
});

describe("size limit", () => {
  it("defaults to 32 KiB: the limit passes, one byte more is refused and nothing stored", async () => {
    const memory = new MemoryEngine(new InMemoryBackend());
    expect(memory.maxFileBytes).toBe(DEFAULT_MAX_FILE_BYTES);
    await memory.create({
      command: "create",
      path: "/memories/full.md",
      file_text: `${"€".repeat(10_922)}aa`, // 32 766 + 2 = 32 768 bytes
    });
    const error = await failure(
      memory.create({
        command: "create",
        path: "/memories/over.md",
        file_text: "a".repeat(32_769),
      }),
    );
    expect(error.code).toBe("too_large");
    expect(error.message).toBe(
      "Cannot write /memories/over.md: the new content would be 32769 bytes, over the 32768-byte limit for a memory file. Split the content across several smaller files.",
    );
    expect(Object.keys((memory.backend as InMemoryBackend).snapshot())).toEqual([
      "/memories/full.md",
    ]);
  });

  it("applies to the result of insert and str_replace", async () => {
    const backend = new InMemoryBackend({ files: { "/memories/a": "x".repeat(32_767) } });
    const memory = new MemoryEngine(backend);
    const error = await failure(
      memory.insert({ command: "insert", path: "/memories/a", insert_line: 0, insert_text: "" }),
    );
    expect(error.message).toContain("would be 32769 bytes, over the 32768-byte limit");
    const replaced = await failure(
      memory.str_replace({
        command: "str_replace",
        path: "/memories/a",
        old_str: "xx",
        new_str: "x",
      }),
    );
    expect(replaced.code).toBe("multiple_matches");
    expect(backend.snapshot()["/memories/a"]).toHaveLength(32_767);
  });

  it("uses the smaller of the backend's limit and the option: the option only lowers it", async () => {
    expect(new MemoryEngine(new InMemoryBackend({ maxFileBytes: 100 })).maxFileBytes).toBe(100);
    const lower = new MemoryEngine(new InMemoryBackend({ maxFileBytes: 100 }), {
      maxFileBytes: 50,
    });
    expect(lower.maxFileBytes).toBe(50);
    const higher = new MemoryEngine(new InMemoryBackend({ maxFileBytes: 100 }), {
      maxFileBytes: 1000,
    });
    expect(higher.maxFileBytes).toBe(100);
    const error = await failure(
      higher.create({ command: "create", path: "/memories/a", file_text: "a".repeat(101) }),
    );
    expect(error.message).toContain("over the 100-byte limit");
  });

  it("reports a backend's own refusal with the backend's limit", async () => {
    // A backend that enforces 5 bytes without declaring it up front.
    const inner = new InMemoryBackend({ maxFileBytes: 5 });
    const backend: MemoryBackend = {
      read: (p) => inner.read(p),
      list: (p, l) => inner.list(p, l),
      create: (p, c) => inner.create(p, c),
      update: (p, c, v) => inner.update(p, c, v),
      delete: (p, v) => inner.delete(p, v),
    };
    const memory = new MemoryEngine(backend);
    const error = await failure(
      memory.create({ command: "create", path: "/memories/a", file_text: "123456" }),
    );
    expect(error.code).toBe("too_large");
    expect(error.message).toBe(
      "Cannot write /memories/a: the new content would be 6 bytes, over the 5-byte limit for a memory file. Split the content across several smaller files.",
    );
  });

  it("refuses options that are not positive integers", () => {
    const backend = new InMemoryBackend();
    expect(() => new MemoryEngine(backend, { maxFileBytes: 0 })).toThrow(RangeError);
    expect(() => new MemoryEngine(backend, { maxViewChars: 1.5 })).toThrow(RangeError);
    expect(() => new MemoryEngine(backend, { retry: { attempts: 0 } })).toThrow(RangeError);
  });
});

describe("long views", () => {
  it("cut at 16000 code points by default and name the view_range to continue with", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `entry ${i + 1}: ${"x".repeat(20)}`);
    const backend = new InMemoryBackend({ files: { "/memories/log.md": `${lines.join("\n")}\n` } });
    const memory = new MemoryEngine(backend, { maxFileBytes: 1_000_000 });
    const first = await memory.view({ command: "view", path: "/memories/log.md" });
    const body = first.split("\n").slice(1, -1).join("\n");
    expect(body.length).toBeLessThanOrEqual(16_000);
    const note = first.split("\n").at(-1) as string;
    const match =
      /^\[Output truncated after line (\d+) of 3000 to stay within 16000 characters\. To continue, view \/memories\/log\.md with view_range \[(\d+), -1\]\.\]$/.exec(
        note,
      );
    expect(match).not.toBeNull();
    const [last, next] = [Number(match?.[1]), Number(match?.[2])];
    expect(next).toBe(last + 1);
    // The cut is as late as possible: one more line would not have fitted.
    expect(
      body.length + 1 + `${String(next).padStart(6)}\t${lines[next - 1]}`.length,
    ).toBeGreaterThan(16_000);
    // Following the notes visits every line exactly once.
    const seen: number[] = [];
    let range: number[] | undefined;
    for (;;) {
      const out = await memory.view({
        command: "view",
        path: "/memories/log.md",
        view_range: range,
      });
      for (const line of out.split("\n").slice(1)) {
        const numbered = /^ *(\d+)\t/.exec(line);
        if (numbered) seen.push(Number(numbered[1]));
      }
      const more = /view_range \[(\d+), -1\]\.\]$/.exec(out);
      if (!more) break;
      range = [Number(more[1]), -1];
    }
    expect(seen).toEqual(Array.from({ length: 3000 }, (_, i) => i + 1));
  });
});

describe("concurrent changes", () => {
  it("gives up after 25 lost races with a clear message and without writing", async () => {
    let races = 0;
    // A rival writer changes the file between each read of the engine and its write.
    const backend: InMemoryBackend = new InMemoryBackend({
      files: { "/memories/hot.md": "count: 0\n" },
      beforeOperation: rival(async (operation) => {
        if (operation !== "update") return;
        races++;
        const file = await backend.read("/memories/hot.md");
        await backend.update(
          "/memories/hot.md",
          `${file?.content}rival ${races}\n`,
          file?.version ?? 0,
        );
      }),
    });
    const memory = new MemoryEngine(backend, { retry: noWait });
    const error = await failure(
      memory.insert({
        command: "insert",
        path: "/memories/hot.md",
        insert_line: 0,
        insert_text: "x",
      }),
    );
    expect(error.code).toBe("conflict");
    expect(error.message).toBe(
      "Could not change /memories/hot.md: other writers changed it at the same time, and all 25 attempts to apply this change lost the race. Nothing was changed; view it and try again.",
    );
    expect(races).toBe(25);
    const content = backend.snapshot()["/memories/hot.md"] as string;
    expect(content.split("\n")).toHaveLength(1 + 25 + 1);
    expect(content).not.toMatch(/^x$/m);
  });

  it("reports a file deleted between the read and the write as missing", async () => {
    let deleted = false;
    const backend: InMemoryBackend = new InMemoryBackend({
      files: { "/memories/a.md": "a\n" },
      beforeOperation: rival(async (operation) => {
        if (operation === "update" && !deleted) {
          deleted = true;
          await backend.delete("/memories/a.md");
        }
      }),
    });
    const memory = new MemoryEngine(backend, { retry: noWait });
    const error = await failure(
      memory.str_replace({
        command: "str_replace",
        path: "/memories/a.md",
        old_str: "a",
        new_str: "b",
      }),
    );
    expect(error.code).toBe("not_found");
  });
});

describe("rename without the tree capability", () => {
  it("undoes its copies when a copy fails, leaving the original in place", async () => {
    let creates = 0;
    const files = { "/memories/d/a": "1", "/memories/d/b": "2", "/memories/d/c": "3" };
    const backend = new InMemoryBackend({
      files,
      tree: false,
      beforeOperation: (operation) => {
        if (operation === "create" && ++creates === 3) throw new Error("disk full");
      },
    });
    const memory = new MemoryEngine(backend);
    await expect(
      memory.rename({ command: "rename", old_path: "/memories/d", new_path: "/memories/e" }),
    ).rejects.toThrow("disk full");
    expect(backend.snapshot()).toEqual(files);
  });

  it("carries an edit made to a file after it was copied over to the new place", async () => {
    let edited = false;
    const backend: InMemoryBackend = new InMemoryBackend({
      files: { "/memories/d/a": "old" },
      tree: false,
      beforeOperation: rival(async (operation, path) => {
        if (operation === "delete" && path === "/memories/d/a" && !edited) {
          edited = true; // another writer edits the original between copy and delete
          const file = await backend.read(path);
          await backend.update(path, "new", file?.version ?? 0);
        }
      }),
    });
    const memory = new MemoryEngine(backend, { retry: noWait });
    await memory.rename({ command: "rename", old_path: "/memories/d", new_path: "/memories/e" });
    expect(backend.snapshot()).toEqual({ "/memories/e/a": "new" });
  });

  it("leaves in place, and names, a file that other writers keep changing", async () => {
    let edits = 0;
    const backend: InMemoryBackend = new InMemoryBackend({
      files: { "/memories/d/a": "a", "/memories/d/hot": "0", "/memories/d/z": "z" },
      tree: false,
      // Every attempt to delete the original of /memories/d/hot finds it edited again.
      beforeOperation: rival(async (operation, path) => {
        if (operation !== "delete" || path !== "/memories/d/hot") return;
        const file = await backend.read(path);
        if (file) await backend.update(path, String(++edits), file.version);
      }),
    });
    const memory = new MemoryEngine(backend, { retry: noWait });
    const error = await failure(
      memory.rename({ command: "rename", old_path: "/memories/d", new_path: "/memories/e" }),
    );
    expect(error.code).toBe("conflict");
    expect(error.message).toBe(
      "Renamed /memories/d to /memories/e except 1 file that other writers kept changing, left in place: /memories/d/hot. View and rename it again.",
    );
    expect(backend.snapshot()).toEqual({
      "/memories/d/hot": "25",
      "/memories/e/a": "a",
      "/memories/e/z": "z",
    });
  });

  it("undoes a single-file copy whose original keeps changing", async () => {
    const backend: InMemoryBackend = new InMemoryBackend({
      files: { "/memories/hot": "0" },
      tree: false,
      beforeOperation: rival(async (operation, path) => {
        if (operation !== "delete" || path !== "/memories/hot") return;
        const file = await backend.read(path);
        if (file) await backend.update(path, `${Number(file.content) + 1}`, file.version);
      }),
    });
    const memory = new MemoryEngine(backend, { retry: noWait });
    const error = await failure(
      memory.rename({ command: "rename", old_path: "/memories/hot", new_path: "/memories/cold" }),
    );
    expect(error.message).toBe(
      "Could not change /memories/hot: other writers changed it at the same time, and all 25 attempts to apply this change lost the race. Nothing was changed; view it and try again.",
    );
    expect(backend.snapshot()).toEqual({ "/memories/hot": "25" }); // 25 rival edits, no copy left
  });

  it("moves a single file the same way", async () => {
    const backend = new InMemoryBackend({ files: { "/memories/a": "x" }, tree: false });
    const memory = new MemoryEngine(backend);
    expect(
      await memory.rename({
        command: "rename",
        old_path: "/memories/a",
        new_path: "/memories/b/c",
      }),
    ).toBe("Successfully renamed /memories/a to /memories/b/c");
    expect(backend.snapshot()).toEqual({ "/memories/b/c": "x" });
  });
});

describe("backend calls per command", () => {
  // Which backend operations each command makes, in order (calls started together are listed
  // in the order they were started). A remote backend pays one round trip per step.
  async function callsOf(
    options: { tree?: boolean },
    command: Record<string, unknown>,
  ): Promise<BackendOperation[]> {
    const calls: BackendOperation[] = [];
    const backend = new InMemoryBackend({
      ...options,
      files: { "/memories/d/a.md": "a", "/memories/d/e/b.md": "b", "/memories/f.md": "f" },
      beforeOperation: (operation) => void calls.push(operation),
    });
    await new MemoryEngine(backend).execute(command);
    return calls;
  }
  const create = { command: "create", path: "/memories/d/e/new.md", file_text: "x" };
  const deleteDirectory = { command: "delete", path: "/memories/d" };
  const renameDirectory = { command: "rename", old_path: "/memories/d", new_path: "/memories/n" };

  it("with the tree operations, a create, a delete and a rename are one call each", async () => {
    expect(await callsOf({}, create)).toEqual(["create"]);
    expect(await callsOf({}, deleteDirectory)).toEqual(["deleteTree"]);
    expect(await callsOf({}, renameDirectory)).toEqual(["moveTree"]);
  });

  it("without the tree capability, the engine checks first, then goes file by file", async () => {
    // The directory check and every ancestor's read together, then the create.
    expect(await callsOf({ tree: false }, create)).toEqual(["list", "read", "read", "create"]);
    // Is it a file, is it a directory; then every file under it, one by one.
    expect(await callsOf({ tree: false }, deleteDirectory)).toEqual([
      "read",
      "list",
      "list",
      "delete",
      "delete",
    ]);
    // Every check's reads together; then each file copied, then each original deleted.
    expect(await callsOf({ tree: false }, renameDirectory)).toEqual([
      "read",
      "list",
      "read",
      "list",
      "read",
      "create",
      "read",
      "create",
      "delete",
      "delete",
    ]);
  });
});

describe("edits of a file the engine has just read or written", () => {
  function counted(files: Record<string, string>) {
    const calls: BackendOperation[] = [];
    const backend = new InMemoryBackend({ files, beforeOperation: (op) => void calls.push(op) });
    return { backend, calls, memory: new MemoryEngine(backend, { retry: noWait }) };
  }
  const path = "/memories/notes.md";
  const replace = (old_str: string, new_str: string) =>
    ({ command: "str_replace", path, old_str, new_str }) as const;

  it("skip the read: after a view or a write an edit is one call", async () => {
    const { memory, calls } = counted({ [path]: "a\nb\n" });
    await memory.view({ command: "view", path });
    calls.length = 0;
    await memory.str_replace(replace("a", "A"));
    await memory.insert({ command: "insert", path, insert_line: 2, insert_text: "c" });
    expect(calls).toEqual(["update", "update"]);
    await memory.create({ command: "create", path: "/memories/new.md", file_text: "x\n" });
    calls.length = 0;
    await memory.str_replace({ ...replace("x", "y"), path: "/memories/new.md" });
    expect(calls).toEqual(["update"]);
  });

  it("apply to the current text when another writer changed the file since", async () => {
    const { memory, backend, calls } = counted({ [path]: "one\n" });
    await memory.view({ command: "view", path });
    const other = new MemoryEngine(backend);
    await other.insert({ command: "insert", path, insert_line: 1, insert_text: "two" });
    calls.length = 0;
    expect(
      await memory.insert({ command: "insert", path, insert_line: 0, insert_text: "zero" }),
    ).toBe(`The file ${path} has been edited.`);
    // The remembered version lost; the edit read the file and applied to what it holds now.
    expect(calls).toEqual(["update", "read", "update"]);
    expect(backend.snapshot()[path]).toBe("zero\none\ntwo\n");
  });

  it("judge a refusal on the current text, not the remembered one", async () => {
    const { memory, backend } = counted({ [path]: "old\n" });
    await memory.view({ command: "view", path });
    await new MemoryEngine(backend).str_replace(replace("old", "new"));
    // "new" is not in the remembered text, but it is in the file.
    await memory.str_replace(replace("new", "newer"));
    expect(backend.snapshot()[path]).toBe("newer\n");
    // And a text the remembered copy holds but the file no longer does is not found.
    const error = await failure(memory.str_replace(replace("old", "x")));
    expect(error.message).toBe(
      `No replacement was performed, old_str \`old\` did not appear verbatim in ${path}.`,
    );
  });

  it("never write over a file deleted and created again since it was read", async () => {
    const { memory, backend } = counted({ [path]: "first life\n" });
    await memory.view({ command: "view", path });
    const other = new MemoryEngine(backend);
    await other.delete({ command: "delete", path });
    await other.create({ command: "create", path, file_text: "second life\n" });
    await memory.str_replace(replace("life", "LIFE"));
    expect(backend.snapshot()[path]).toBe("second LIFE\n");
  });

  it("are forgotten with a delete or rename of the file or a directory above it", async () => {
    const { memory, calls } = counted({ "/memories/d/a.md": "a\n" });
    await memory.view({ command: "view", path: "/memories/d/a.md" });
    await memory.rename({ command: "rename", old_path: "/memories/d", new_path: "/memories/e" });
    await memory.create({ command: "create", path: "/memories/d/a.md", file_text: "a\n" });
    await memory.delete({ command: "delete", path: "/memories/d" });
    calls.length = 0;
    const error = await failure(
      memory.str_replace({
        command: "str_replace",
        path: "/memories/d/a.md",
        old_str: "a",
        new_str: "b",
      }),
    );
    expect(error.code).toBe("not_found");
    expect(calls[0]).toBe("read");
  });
});

describe("a backend that keeps the tree well formed", () => {
  it("never lets a file and a directory of one name both be created by racing engines", async () => {
    // Both engines run their commands at once; the backend yields before every operation, so
    // each engine's checks run before either create. Without the tree rule in the backend,
    // both checks pass and both creates succeed; with it, exactly one does.
    const race = async (options: { tree?: boolean }) => {
      const backend = new InMemoryBackend({
        ...options,
        beforeOperation: () => new Promise((resolve) => setImmediate(resolve)),
      });
      const results = await Promise.allSettled([
        new MemoryEngine(backend).create({
          command: "create",
          path: "/memories/a",
          file_text: "file",
        }),
        new MemoryEngine(backend).create({
          command: "create",
          path: "/memories/a/b.md",
          file_text: "under",
        }),
      ]);
      return { results, files: Object.keys(backend.snapshot()) };
    };

    const unchecked = await race({ tree: false });
    expect(unchecked.files).toEqual(["/memories/a", "/memories/a/b.md"]); // the race the rule closes

    const checked = await race({});
    expect(checked.files).toHaveLength(1);
    const refused = checked.results.find((r) => r.status === "rejected");
    const reason = (refused as PromiseRejectedResult).reason as MemoryToolError;
    expect([reason.code, reason.message]).toEqual(
      checked.files[0] === "/memories/a"
        ? [
            "not_a_directory",
            "Cannot create /memories/a/b.md because /memories/a is a file, not a directory. Choose a path that is not inside /memories/a.",
          ]
        : [
            "is_a_directory",
            "Cannot create /memories/a because it is a directory. Create a file inside it instead (a path starting with /memories/a/).",
          ],
    );
  });

  it("does not let a delete and re-create between a read and a write be overwritten", async () => {
    // An edit reads the file, then another writer deletes and re-creates it before the
    // edit's compare-and-set: the old version must not match the new file.
    let replaced = false;
    const backend: InMemoryBackend = new InMemoryBackend({
      files: { "/memories/a.md": "one\n" },
      beforeOperation: rival(async (operation) => {
        if (operation !== "update" || replaced) return;
        replaced = true;
        await backend.delete("/memories/a.md");
        await backend.create("/memories/a.md", "two\n");
      }),
    });
    const memory = new MemoryEngine(backend, { retry: noWait });
    const error = await failure(
      memory.str_replace({
        command: "str_replace",
        path: "/memories/a.md",
        old_str: "one",
        new_str: "ONE",
      }),
    );
    // The retry re-read the new file, which has no "one" in it: nothing was overwritten.
    expect(error.code).toBe("no_match");
    expect(backend.snapshot()).toEqual({ "/memories/a.md": "two\n" });
  });

  it("names the blocking file itself when the backend's refusal does not", async () => {
    const backend = new InMemoryBackend({ files: { "/memories/f": "x" } });
    const create = backend.create.bind(backend);
    backend.create = async (path, content) => {
      try {
        return await create(path, content);
      } catch (error) {
        if (!(error instanceof MemoryBackendError)) throw error;
        throw new MemoryBackendError(error.code, error.path); // no `file`
      }
    };
    const error = await failure(
      new MemoryEngine(backend).create({
        command: "create",
        path: "/memories/f/g/h.md",
        file_text: "y",
      }),
    );
    expect(error.message).toBe(
      "Cannot create /memories/f/g/h.md because /memories/f is a file, not a directory. Choose a path that is not inside /memories/f.",
    );
  });

  it("passes on a backend's invalid-key refusal that the path rules do not explain", async () => {
    const backend = new InMemoryBackend({ files: { "/memories/a": "x" } });
    const odd = new MemoryBackendError("INVALID_KEY", "/memories/a", "INVALID_KEY: too odd", {
      key: "/memories/b",
    });
    Object.assign(backend, {
      tree: {
        ...backend.tree,
        moveTree: async () => {
          throw odd;
        },
      },
    });
    await expect(
      new MemoryEngine(backend).rename({
        command: "rename",
        old_path: "/memories/a",
        new_path: "/memories/b",
      }),
    ).rejects.toBe(odd);
  });
});

describe("keys another writer stored", () => {
  it("are left out of listings when they are not valid memory paths", async () => {
    const backend = new InMemoryBackend({
      files: {
        "/memories/ok.md": "1",
        "/memories/.hidden": "22",
        "/memories/bad\nname": "333",
        "/memories/d//x": "4444",
      },
    });
    const memory = new MemoryEngine(backend);
    expect(await memory.view({ command: "view", path: "/memories" })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n1B\t/memories\n1B\t/memories/ok.md",
    );
  });
});

/**
 * A beforeOperation hook that acts as a rival writer of the same backend: its own calls to
 * the backend run the hook again, which then does nothing.
 */
function rival(
  act: (operation: BackendOperation, path: string) => Promise<void>,
): (operation: BackendOperation, path: string) => Promise<void> {
  let acting = false;
  return async (operation, path) => {
    if (acting) return;
    acting = true;
    try {
      await act(operation, path);
    } finally {
      acting = false;
    }
  };
}

describe("recall", () => {
  // A backend that recalls by substring, to show the engine's side: checks, limits, text. Its
  // score is what hms-mcp's lexical build gives a memory of average length holding the query's
  // one word once: 1 / (k1 + 1), an absolute score, not 1 for the best hit.
  function recalling(files: Record<string, string>) {
    const backend = new InMemoryBackend({ files });
    const queries: Array<[string, number]> = [];
    const recall = async (query: string, k: number): Promise<RecallHit[]> => {
      queries.push([query, k]);
      return Object.entries(backend.snapshot())
        .filter(([, text]) => text.includes(query))
        .slice(0, k)
        .map(([path, text]) => ({ path, score: 1 / 2.2, excerpt: text, lineStart: 1, lineEnd: 1 }));
    };
    return { engine: new MemoryEngine(Object.assign(backend, { recall })), queries };
  }

  it("checks the input, asks the backend and formats the hits", async () => {
    const { engine, queries } = recalling({ "/memories/acme.md": "email", "/memories/b": "x" });
    expect(await engine.recall({ query: "email" })).toBe(
      "Found 1 memory file matching the query, most relevant first. View a file with the memory tool to read all of it; view_range [start, end] shows just the lines given for a hit.\n\n1. /memories/acme.md (line 1, score 0.4545)\n    email",
    );
    expect(queries).toEqual([["email", 5]]);
    expect(await engine.recallHits("x", 2)).toHaveLength(1);
  });

  it("refuses bad input before the backend is asked", async () => {
    const { engine, queries } = recalling({});
    const error = await failure(engine.recall({ query: "", k: 3 }));
    expect(error.code).toBe("invalid_argument");
    await expect(engine.recallHits("q", 51)).rejects.toThrow("It should be from 1 to 50.");
    expect(queries).toEqual([]);
  });

  /** A backend whose files changed at the given times, recalling by substring in a range. */
  function dated(files: Record<string, [string, string]>, honoursRange = true) {
    const backend = new InMemoryBackend({
      files: Object.fromEntries(Object.entries(files).map(([path, [text]]) => [path, text])),
    });
    const ranges: Array<RecallTimeRange | undefined> = [];
    const recall = async (query: string, k: number, range?: RecallTimeRange) => {
      ranges.push(range);
      const { modifiedAfter = "", modifiedBefore = "~" } = (honoursRange && range) || {};
      return Object.entries(files)
        .filter(([, [text, at]]) => text.includes(query) && at >= modifiedAfter)
        .filter(([, [, at]]) => at < modifiedBefore)
        .slice(0, k)
        .map(([path, [text, at]]): RecallHit => {
          return { path, score: 0.5, excerpt: text, lineStart: 1, lineEnd: 1, updatedAt: at };
        });
    };
    return { engine: new MemoryEngine(Object.assign(backend, { recall })), ranges };
  }

  it("passes a time range to the backend normalized to UTC, and shows it and each hit's time", async () => {
    const { engine, ranges } = dated({
      "/memories/old.md": ["plan", "2026-06-01T00:00:00.000Z"],
      "/memories/new.md": ["plan", "2026-07-02T08:00:00.000Z"],
    });
    expect(
      await engine.recall({ query: "plan", modified_after: "2026-07-01T02:00:00+02:00" }),
    ).toBe(
      "Found 1 memory file modified at or after 2026-07-01T00:00:00.000Z matching the query, most relevant first. View a file with the memory tool to read all of it; view_range [start, end] shows just the lines given for a hit.\n\n1. /memories/new.md (line 1, score 0.5000, modified 2026-07-02T08:00:00.000Z)\n    plan",
    );
    expect(await engine.recall({ query: "plan", modified_before: "2026-05-01T00:00:00Z" })).toBe(
      "No memory files modified before 2026-05-01T00:00:00.000Z matched the query. Leave out modified_after and modified_before to search every file.",
    );
    const hits = await engine.recallHits("plan", 5, { modifiedBefore: "2026-07-01T00:00Z" });
    expect(hits.map((hit) => hit.path)).toEqual(["/memories/old.md"]);
    // Without a range the backend is called as before: two arguments.
    await engine.recall({ query: "plan" });
    expect(ranges).toEqual([
      { modifiedAfter: "2026-07-01T00:00:00.000Z" },
      { modifiedBefore: "2026-05-01T00:00:00.000Z" },
      { modifiedBefore: "2026-07-01T00:00:00.000Z" },
      undefined,
    ]);
  });

  it("refuses a bad time before the backend is asked", async () => {
    const { engine, ranges } = dated({});
    const error = await failure(engine.recall({ query: "plan", modified_after: "2026-07-01" }));
    expect([error.code, error.message]).toEqual([
      "invalid_argument",
      "Invalid `modified_after` parameter: 2026-07-01 has no timezone. Add Z for UTC (2026-07-01T00:00:00Z) or an offset such as +02:00.",
    ]);
    await expect(
      engine.recallHits("plan", 5, {
        modifiedAfter: "2026-07-02T00:00:00Z",
        modifiedBefore: "2026-07-01T00:00:00Z",
      }),
    ).rejects.toThrow("is later than 2026-07-01T00:00:00Z, so no file could match.");
    expect(ranges).toEqual([]);
  });

  it("refuses a backend that ignores the range or gives no times, rather than show other files", async () => {
    const files: Record<string, [string, string]> = {
      "/memories/old.md": ["plan", "2026-06-01T00:00:00.000Z"],
    };
    const unsupported = [
      "unsupported",
      "memory_recall cannot filter by time with this memory backend: it does not report when files changed. Recall without modified_after and modified_before.",
    ];
    const ignoring = dated(files, false).engine;
    const since = { query: "plan", modified_after: "2026-07-01T00:00:00Z" };
    const error = await failure(ignoring.recall(since));
    expect([error.code, error.message]).toEqual(unsupported);
    const { engine: timeless } = recalling({ "/memories/a.md": "plan" });
    const none = await failure(timeless.recall(since));
    expect([none.code, none.message]).toEqual(unsupported);
    // Without a range, a backend without times serves as before.
    expect(await timeless.recall({ query: "plan" })).toContain("(line 1, score 0.4545)\n");
  });

  it("says so when the backend cannot recall", async () => {
    const engine = new MemoryEngine(new InMemoryBackend());
    expect(engine.canRecall).toBe(false);
    const error = await failure(engine.recall({ query: "email" }));
    expect([error.code, error.message]).toEqual([
      "unsupported",
      "memory_recall is not available: this memory backend cannot search its files. Use the memory tool's view command to find what you stored.",
    ]);
  });
});

describe("echoing the caller's old_str", () => {
  it("cuts an old_str over 200 code points in a no-match message, counting the rest", async () => {
    const memory = new MemoryEngine(new InMemoryBackend({ files: { "/memories/a.md": "x\n" } }));
    // 5 MiB of old_str, starting with a code point outside the BMP (two UTF-16 units).
    const oldStr = `😀${"y".repeat(5 * 1024 * 1024)}`;
    const error = await failure(
      memory.str_replace({ command: "str_replace", path: "/memories/a.md", old_str: oldStr }),
    );
    expect(error.code).toBe("no_match");
    expect(error.message).toBe(
      `No replacement was performed, old_str \`😀${"y".repeat(199)}… (${5 * 1024 * 1024 - 199} more characters)\` did not appear verbatim in /memories/a.md.`,
    );
  });

  it("shows an old_str of exactly 200 code points whole, and cuts one of 201", async () => {
    const text = `${"q".repeat(201)}\n${"q".repeat(201)}\n`;
    const memory = new MemoryEngine(new InMemoryBackend({ files: { "/memories/a.md": text } }));
    const whole = await failure(
      memory.str_replace({
        command: "str_replace",
        path: "/memories/a.md",
        old_str: "q".repeat(200),
      }),
    );
    expect(whole.message).toContain(`old_str \`${"q".repeat(200)}\` in lines: 1`);
    const cut = await failure(
      memory.str_replace({
        command: "str_replace",
        path: "/memories/a.md",
        old_str: "q".repeat(201),
      }),
    );
    expect(cut.code).toBe("multiple_matches");
    expect(cut.message).toContain(`old_str \`${"q".repeat(200)}… (1 more characters)\` in lines`);
  });
});
