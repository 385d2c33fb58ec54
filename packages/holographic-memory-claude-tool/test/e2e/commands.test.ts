// End to end through a real hms-mcp, as a process over stdio and in this process
// (`connection: { inProcess }`): every shared vector through the tool's handlers, path
// traversal, directory moves, long-file paging and the size limit, the same either way.
// Commands are the Anthropic SDK's own command types. One server per connection serves the
// file; each test starts from an empty store.

import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import type {
  BetaMemoryTool20250818Command,
  BetaMemoryTool20250818ViewCommand,
} from "@anthropic-ai/sdk/resources/beta";
import type { HmsConnection, HmsMemoryBackend } from "@hms/memory-backend-hms";
import { compareOutcome, readCommandVectors, vectorEngineOptions } from "@hms/memory-core/testing";
import { checkMemoryPath } from "@hms/memory-paths";
import { hmsMcpCommand, seedFilesIn, storeArgs, storeOptions, tempDir } from "@hms/test-support";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HolographicMemoryError } from "../../src/errors.js";
import { HolographicMemoryTool } from "../../src/tool.js";

// Twenty-eight ways to reach outside /memories, or to hide there.
const TRAVERSALS = [
  "/memories/../etc/passwd",
  "/memories/a/../../secret",
  "/memories/a/..",
  "../memories/x",
  "/etc/passwd",
  "/",
  "",
  "memories/x",
  "//memories/x",
  "/MEMORIES/x",
  "/memories_backup/x",
  "/memories/./x",
  "/memories/..\\..\\x",
  "/memories\\..\\x",
  "/memories/%2e%2e/x",
  "/memories/%2E%2E/x",
  "/memories/..%2fx",
  "/memories/a%2fb",
  "/memories/a%5c..%5cb",
  "/memories/x\u0000.md",
  "/memories//x",
  "/memories/.hidden",
  "/memories/\u2025/x",
  "/memories/\uff0e\uff0e/x",
  "/memories/a\u2215..\u2215b",
  "/memories/\u202e/x",
  "/memories/a\n/b",
  "file:///memories/x",
];

/** The two ways to reach hms-mcp that these tests run through, on the store of `dir`. */
const CONNECTIONS: Record<string, (dir: string) => HmsConnection> = {
  "over stdio": (dir) => hmsMcpCommand([...storeArgs(dir), "--log-level", "warn"]),
  "in this process": (dir) => ({ inProcess: { ...storeOptions(dir), logLevel: "warn" } }),
};

for (const [name, connection] of Object.entries(CONNECTIONS)) {
  describe(`hms-mcp ${name}`, () => {
    const data = tempDir();
    let memory: HolographicMemoryTool;
    let backend: HmsMemoryBackend;

    beforeAll(async () => {
      memory = await HolographicMemoryTool.connect({ connection: connection(data.dir) });
      backend = memory.backend as HmsMemoryBackend;
    });
    afterAll(async () => {
      await memory?.close();
      data.remove();
    });
    beforeEach(async () => {
      await backend.call("forget", { prefix: "/memories/" });
    });

    /** Every key in the store, memory files or not: proof that a refusal stored nothing. */
    async function allKeys(): Promise<string[]> {
      const page = await backend.call("list", { limit: 1000 });
      return (page.items as Array<{ key: string }>).map((item) => item.key);
    }

    /** Runs a command and returns its result or the error it was refused with. */
    async function run(
      tool: HolographicMemoryTool,
      command: BetaMemoryTool20250818Command,
    ): Promise<{ output?: string; error?: HolographicMemoryError }> {
      try {
        return { output: await tool.execute(command) };
      } catch (error) {
        expect(error).toBeInstanceOf(HolographicMemoryError);
        expect(error).toBeInstanceOf(ToolError); // the SDK's: Claude gets the bare message
        return { error: error as HolographicMemoryError };
      }
    }

    async function files(): Promise<Record<string, string>> {
      const result: Record<string, string> = {};
      for (const entry of await backend.list("/memories/")) {
        result[entry.path] = (await backend.read(entry.path))?.content ?? "";
      }
      return result;
    }

    describe("the shared vectors through HolographicMemoryTool and hms-mcp", () => {
      for (const vector of readCommandVectors().cases) {
        it(vector.name, async () => {
          // A case may start from a file and a directory of one name, which the server refuses to
          // create: that file is written into the store as a store from before the rule holds it.
          await seedFilesIn(data.dir)(backend, vector.files);
          const tool = new HolographicMemoryTool(backend, vectorEngineOptions(vector));
          const { output, error } = await run(
            tool,
            vector.command as BetaMemoryTool20250818Command,
          );
          const problems = compareOutcome(vector, {
            output,
            error: error?.message,
            errorCode: error?.code,
            filesAfter: await files(),
          });
          expect(problems).toEqual([]);
        });
      }
    });

    describe("path traversal is refused by every command, and stores nothing", () => {
      it("has at least 20 forms", () => {
        expect(TRAVERSALS.length).toBeGreaterThanOrEqual(20);
        for (const path of TRAVERSALS) expect(checkMemoryPath(path), path).not.toBeNull();
      });

      for (const path of TRAVERSALS) {
        it(JSON.stringify(path), async () => {
          await backend.create("/memories/keep.md", "keep\n");
          const before = await allKeys();
          const expected = checkMemoryPath(path)?.message;
          const commands: BetaMemoryTool20250818Command[] = [
            { command: "view", path },
            { command: "create", path, file_text: "x" },
            { command: "str_replace", path, old_str: "keep", new_str: "x" },
            { command: "insert", path, insert_line: 0, insert_text: "x" },
            { command: "delete", path },
            { command: "rename", old_path: path, new_path: "/memories/moved.md" },
            { command: "rename", old_path: "/memories/keep.md", new_path: path },
          ];
          for (const command of commands) {
            const { output, error } = await run(memory, command);
            expect(output, JSON.stringify(command)).toBeUndefined();
            expect(error?.code).toBe("invalid_path");
            expect(error?.message).toBe(expected);
          }
          expect(await allKeys()).toEqual(before);
        });
      }
    });

    describe("directory moves", () => {
      async function tree(paths: string[]) {
        for (const path of paths) await backend.create(path, `${path}\n`);
      }

      it("moves a whole directory, deeper, in one step", async () => {
        await tree([
          "/memories/a/x.md",
          "/memories/a/b/y.md",
          "/memories/a/b/c/z.md",
          "/memories/ab.md",
        ]);
        expect(
          await memory.rename({
            command: "rename",
            old_path: "/memories/a",
            new_path: "/memories/archive/2025/a",
          }),
        ).toBe("Successfully renamed /memories/a to /memories/archive/2025/a");
        expect(Object.keys(await files())).toEqual([
          "/memories/ab.md",
          "/memories/archive/2025/a/b/c/z.md",
          "/memories/archive/2025/a/b/y.md",
          "/memories/archive/2025/a/x.md",
        ]);
        expect((await files())["/memories/archive/2025/a/b/y.md"]).toBe("/memories/a/b/y.md\n");
      });

      it("refuses a destination that exists (file or directory) and changes nothing", async () => {
        await tree(["/memories/a/x.md", "/memories/b/x.md", "/memories/f.md"]);
        const before = await files();
        for (const [to, message] of [
          ["/memories/b", "The destination /memories/b already exists"],
          ["/memories/f.md", "The destination /memories/f.md already exists"],
          ["/memories", "The destination /memories already exists"],
        ] as const) {
          const { error } = await run(memory, {
            command: "rename",
            old_path: "/memories/a",
            new_path: to,
          });
          expect(error?.message).toBe(message);
          expect(error?.code).toBe("already_exists");
        }
        expect(await files()).toEqual(before);
      });

      it("refuses to move a directory into itself or under a file, and /memories itself", async () => {
        await tree(["/memories/a/x.md", "/memories/f.md"]);
        const before = await files();
        expect(
          (
            await run(memory, {
              command: "rename",
              old_path: "/memories/a",
              new_path: "/memories/a/b",
            })
          ).error?.message,
        ).toBe(
          "Cannot rename /memories/a to /memories/a/b: a directory cannot be moved inside itself.",
        );
        expect(
          (
            await run(memory, {
              command: "rename",
              old_path: "/memories/a",
              new_path: "/memories/f.md/a",
            })
          ).error?.message,
        ).toBe(
          "Cannot rename /memories/a to /memories/f.md/a because /memories/f.md is a file, not a directory. Choose a destination that is not inside /memories/f.md.",
        );
        expect(
          (await run(memory, { command: "rename", old_path: "/memories", new_path: "/memories/x" }))
            .error?.message,
        ).toBe("Cannot rename the /memories directory itself");
        expect(
          (
            await run(memory, {
              command: "rename",
              old_path: "/memories/nope",
              new_path: "/memories/x",
            })
          ).error?.message,
        ).toBe("The path /memories/nope does not exist");
        expect(await files()).toEqual(before);
      });

      it("deletes a directory with everything under it, and never /memories", async () => {
        await tree(["/memories/a/x.md", "/memories/a/b/y.md", "/memories/ab.md"]);
        expect(await memory.delete({ command: "delete", path: "/memories/a" })).toBe(
          "Successfully deleted /memories/a",
        );
        expect(Object.keys(await files())).toEqual(["/memories/ab.md"]);
        expect((await run(memory, { command: "delete", path: "/memories" })).error?.message).toBe(
          "Cannot delete the /memories directory itself",
        );
      });
    });

    describe("long files", () => {
      it("are paged at line boundaries, and following the notes reads every line once", async () => {
        const lines = Array.from({ length: 3000 }, (_, i) => `row ${i + 1}${"-".repeat(i % 3)}`);
        const text = `${lines.join("\n")}\n`;
        await memory.create({ command: "create", path: "/memories/long.md", file_text: text });
        const seen: string[] = [];
        let truncations = 0;
        let command: BetaMemoryTool20250818ViewCommand = {
          command: "view",
          path: "/memories/long.md",
        };
        for (let pages = 0; pages < 20; pages++) {
          const output = await memory.view(command);
          const [header, ...body] = output.split("\n");
          expect(header).toBe("Here's the content of /memories/long.md with line numbers:");
          const last = body.at(-1) ?? "";
          const note =
            /^\[Output truncated after line (\d+) of 3000 to stay within 16000 characters\. To continue, view \/memories\/long\.md with view_range \[(\d+), -1\]\.\]$/.exec(
              last,
            );
          const numbered = note ? body.slice(0, -1) : body;
          for (const row of numbered) {
            const match = /^ *(\d+)\t(.*)$/.exec(row);
            expect(Number(match?.[1])).toBe(seen.length + 1);
            seen.push(match?.[2] ?? "");
          }
          expect(numbered.join("\n").length).toBeLessThanOrEqual(16000);
          if (!note) break;
          truncations++;
          expect(Number(note[1])).toBe(seen.length);
          command = {
            command: "view",
            path: "/memories/long.md",
            view_range: [Number(note[2]), -1],
          };
        }
        expect(seen).toEqual(lines);
        expect(truncations).toBeGreaterThanOrEqual(2);
      });
    });

    describe("the size limit (the server's 32768 bytes)", () => {
      it("admits a file of exactly the limit and refuses one byte more, storing nothing", async () => {
        expect(memory.maxFileBytes).toBe(32768);
        const atLimit = `${"é".repeat(16383)}ab`; // 32768 bytes
        expect(
          await memory.create({ command: "create", path: "/memories/full.md", file_text: atLimit }),
        ).toBe("File created successfully at: /memories/full.md");
        const over = await run(memory, {
          command: "create",
          path: "/memories/over.md",
          file_text: `${atLimit}c`,
        });
        expect(over.error?.message).toBe(
          "Cannot write /memories/over.md: the new content would be 32769 bytes, over the 32768-byte limit for a memory file. Split the content across several smaller files.",
        );
        expect(over.error?.code).toBe("too_large");
        const grow = await run(memory, {
          command: "str_replace",
          path: "/memories/full.md",
          old_str: "ab",
          new_str: "abc",
        });
        expect(grow.error?.message).toBe(
          "Cannot write /memories/full.md: the new content would be 32769 bytes, over the 32768-byte limit for a memory file. Split the content across several smaller files.",
        );
        const insert = await run(memory, {
          command: "insert",
          path: "/memories/full.md",
          insert_line: 0,
          insert_text: "",
        });
        expect(insert.error?.code).toBe("too_large");
        expect(await files()).toEqual({ "/memories/full.md": atLimit });
      });
    });
  });
}
