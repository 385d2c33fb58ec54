import { describe, expect, it } from "vitest";
import { describeValue, firstUnpairedSurrogate, isInteger, parseCommand } from "./commands.js";
import { MemoryToolError } from "./errors.js";

describe("command input checks", () => {
  it("names JSON values the same way the Python port does", () => {
    const values = [undefined, null, [], {}, true, 3, 3.5, 2 ** 60, Number.NaN, "s"];
    expect(values.map(describeValue)).toEqual([
      "nothing",
      "null",
      "an array",
      "an object",
      "a boolean",
      "an integer",
      "a fractional number",
      "an integer too large to be exact",
      "a number",
      "a string",
    ]);
  });

  it("counts only safe integers as integers (3.0 from JSON is 3)", () => {
    expect(isInteger(3)).toBe(true);
    expect(isInteger(JSON.parse("3.0"))).toBe(true);
    expect(isInteger(-1)).toBe(true);
    expect(isInteger(1.5)).toBe(false);
    expect(isInteger(2 ** 53)).toBe(false);
    expect(isInteger("3")).toBe(false);
    expect(isInteger(Number.NaN)).toBe(false);
  });

  it("finds the first unpaired surrogate", () => {
    expect(firstUnpairedSurrogate("ok 😀")).toBeNull();
    expect(firstUnpairedSurrogate("a\ud800")).toBe(0xd800);
    expect(firstUnpairedSurrogate("\udc00\ud800")).toBe(0xdc00);
    expect(firstUnpairedSurrogate("😀\ud83d")).toBe(0xd83d);
  });

  it("shows an unknown command name safely", () => {
    try {
      parseCommand({ command: "x\u001b[2J" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(MemoryToolError);
      expect((error as Error).message).toBe(
        "Unknown memory command `x<U+001B>[2J`. Use one of: view, create, str_replace, insert, delete, rename.",
      );
    }
  });
});

describe("parseCommand", () => {
  it("returns a typed command with every field checked and renamed", () => {
    expect(
      parseCommand({ command: "str_replace", path: "/memories/a.md", old_str: "x", new_str: null }),
    ).toEqual({ command: "str_replace", path: "/memories/a.md", oldStr: "x", newStr: "" });
    expect(parseCommand({ command: "view", path: "/memories", view_range: [2, -1] })).toEqual({
      command: "view",
      path: "/memories",
      viewRange: [2, -1],
    });
    expect(
      parseCommand({ command: "rename", old_path: "/memories/a", new_path: "/memories/b" }),
    ).toEqual({ command: "rename", oldPath: "/memories/a", newPath: "/memories/b" });
  });

  it("reports the first problem in the order the fields are documented", () => {
    // Both the path and old_str are wrong: the path is named.
    expect(() =>
      parseCommand({ command: "str_replace", path: "memories/a", old_str: "" }),
    ).toThrowError(/memories\/a/);
    // A valid path, an empty old_str: refused while parsing, before any storage is touched.
    expect(() =>
      parseCommand({ command: "str_replace", path: "/memories/a", old_str: "" }),
    ).toThrowError(/Invalid `old_str` parameter: it is empty/);
  });

  it("refuses a non-object and an unknown command", () => {
    expect(() => parseCommand("view")).toThrowError(
      'Invalid memory command: expected an object with a "command" field, got a string.',
    );
    expect(() => parseCommand({ command: 3 })).toThrowError(/must be one of/);
  });
});
