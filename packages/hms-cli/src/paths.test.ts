import { describe, expect, it } from "vitest";
import { CliError, EXIT } from "./errors.js";
import { memoryPath } from "./paths.js";

describe("memoryPath", () => {
  it("reads a relative path, memories/... and /memories/... as the same file", () => {
    for (const argument of ["notes/a.md", "memories/notes/a.md", "/memories/notes/a.md"]) {
      expect(memoryPath(argument)).toBe("/memories/notes/a.md");
    }
  });

  it("takes no argument, '' and / as the root, and drops a trailing slash", () => {
    expect(memoryPath(undefined)).toBe("/memories");
    expect(memoryPath("")).toBe("/memories");
    expect(memoryPath("/")).toBe("/memories");
    expect(memoryPath("notes/")).toBe("/memories/notes");
  });

  it("refuses what Claude's memory tool refuses, as a usage error that says why", () => {
    for (const argument of ["../etc/passwd", "notes/.hidden", "/etc/passwd", "a\\b.md"]) {
      let error: unknown;
      try {
        memoryPath(argument);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(EXIT.usage);
      expect((error as CliError).message).toContain("is not a memory path");
    }
  });
});
