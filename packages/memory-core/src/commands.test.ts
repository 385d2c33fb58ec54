import { describe, expect, it } from "vitest";
import { commandName, describeValue, firstUnpairedSurrogate, isInteger } from "./commands.js";
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
      commandName({ command: "x\u001b[2J" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(MemoryToolError);
      expect((error as Error).message).toBe(
        "Unknown memory command `x<U+001B>[2J`. Use one of: view, create, str_replace, insert, delete, rename.",
      );
    }
  });
});
