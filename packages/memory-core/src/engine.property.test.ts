// Property-based tests of the engine: semantic invariants of insert, str_replace and view
// paging over generated file contents (with CR, blank lines, multi-byte and astral
// characters, with and without a final newline).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryEngine } from "./engine.js";
import { MemoryToolError } from "./errors.js";
import { InMemoryBackend } from "./in-memory-backend.js";

const PATH = "/memories/f.md";
const piece = fc.constantFrom("a", "b", "ab", " ", "\n", "\n", "\r", "é", "😀", "$&", "x\ny");
const text = fc.array(piece, { maxLength: 30 }).map((parts) => parts.join(""));

/** The file's lines as `view` shows them, read back through the engine. */
async function viewLines(memory: MemoryEngine): Promise<string[]> {
  const out = await memory.view({ command: "view", path: PATH });
  const body = out.slice(out.indexOf("\n") + 1);
  if (body === "(this file is empty)") return [];
  return body.split("\n").map((line) => line.slice(line.indexOf("\t") + 1));
}

function setup(content: string, options = {}) {
  const backend = new InMemoryBackend({ files: { [PATH]: content } });
  return { backend, memory: new MemoryEngine(backend, options) };
}

describe("properties", () => {
  it("insert puts the text's lines after the given line and keeps every other line", async () => {
    await fc.assert(
      fc.asyncProperty(text, text, fc.nat(), async (content, insertText, seed) => {
        const { backend, memory } = setup(content);
        const before = await viewLines(memory);
        const line = seed % (before.length + 1);
        await memory.insert({
          command: "insert",
          path: PATH,
          insert_line: line,
          insert_text: insertText,
        });
        const after = await viewLines(memory);
        const inserted = after.length - before.length;
        expect(inserted).toBeGreaterThanOrEqual(1);
        expect(after.slice(0, line)).toEqual(before.slice(0, line));
        expect(after.slice(line + inserted)).toEqual(before.slice(line));
        expect(after.slice(line, line + inserted).join("\n")).toBe(insertText.replace(/\n$/, ""));
        expect(backend.snapshot()[PATH]?.endsWith("\n")).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("an out-of-range insert_line is refused and changes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: -5, max: 40 }), async (content, line) => {
        const { backend, memory } = setup(content);
        const lines = (await viewLines(memory)).length;
        fc.pre(line < 0 || line > lines);
        const error = await memory
          .insert({ command: "insert", path: PATH, insert_line: line, insert_text: "x" })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(MemoryToolError);
        expect((error as MemoryToolError).message).toBe(
          `Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lines}]`,
        );
        expect(backend.snapshot()[PATH]).toBe(content);
      }),
      { numRuns: 200 },
    );
  });

  it("str_replace replaces a unique occurrence literally and refuses zero or several", async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        text.filter((s) => s.length > 0),
        text,
        async (content, oldStr, newStr) => {
          const { backend, memory } = setup(content);
          let count = 0;
          for (let i = content.indexOf(oldStr); i !== -1; i = content.indexOf(oldStr, i + 1))
            count++;
          const result = await memory
            .str_replace({ command: "str_replace", path: PATH, old_str: oldStr, new_str: newStr })
            .catch((e: unknown) => e);
          if (count === 1) {
            expect(result).toMatch(/^The memory file has been edited\./);
            const at = content.indexOf(oldStr);
            expect(backend.snapshot()[PATH]).toBe(
              content.slice(0, at) + newStr + content.slice(at + oldStr.length),
            );
          } else {
            expect((result as MemoryToolError).code).toBe(
              count === 0 ? "no_match" : "multiple_matches",
            );
            expect(backend.snapshot()[PATH]).toBe(content);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("following the truncation notes shows every line exactly once, in order", async () => {
    const line = fc.array(fc.constantFrom("a", "é", "😀", " ", "\r"), { maxLength: 25 });
    const lines = fc.array(
      line.map((cs) => cs.join("")),
      { minLength: 1, maxLength: 40 },
    );
    await fc.assert(
      fc.asyncProperty(lines, fc.integer({ min: 1, max: 120 }), async (fileLines, maxViewChars) => {
        const { memory } = setup(`${fileLines.join("\n")}\n`, { maxViewChars });
        const seen: string[] = [];
        let range: number[] | undefined;
        for (let guard = 0; guard <= fileLines.length; guard++) {
          const out = await memory.view({ command: "view", path: PATH, view_range: range });
          const rows = out.split("\n").slice(1);
          const note =
            /^\[Output truncated after line (\d+) of \d+ .* view_range \[(\d+), -1\]\.\]$/.exec(
              rows.at(-1) as string,
            );
          if (note) rows.pop();
          for (const row of rows) seen.push(row.slice(row.indexOf("\t") + 1));
          if (!note) break;
          range = [Number(note[2]), -1];
        }
        expect(seen).toEqual(fileLines);
      }),
      { numRuns: 200 },
    );
  });
});
