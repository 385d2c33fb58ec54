import { describe, expect, it } from "vitest";
import { InMemoryBackend } from "./in-memory-backend.js";
import { readCommandVectors, runCommandVectors } from "./vectors.js";

// Every case of vectors/commands.json, against the in-memory backend with and without the
// tree capability, so both paths through the engine are held to the same strings and results:
// tree operations (one call per create, delete and rename), and none (checks, then
// copy-then-delete).
runCommandVectors(
  {
    name: "in-memory, tree operations",
    makeBackend: () => new InMemoryBackend(),
    // Its create refuses a file and a directory of one name, which a case may start from:
    // store the starting files as given, as another program's writes could have.
    seedFiles: async (backend, files) => (backend as InMemoryBackend).load(files),
  },
  { describe, it },
);
runCommandVectors(
  {
    name: "in-memory, without the tree capability",
    makeBackend: () => new InMemoryBackend({ tree: false }),
  },
  { describe, it },
);

describe("the vectors file", () => {
  const vectors = readCommandVectors();
  const commands = ["view", "create", "str_replace", "insert", "delete", "rename"];

  it("has at least 80 uniquely named cases, each with exactly one expectation", () => {
    expect(vectors.format).toBe(1);
    expect(vectors.cases.length).toBeGreaterThanOrEqual(80);
    expect(new Set(vectors.cases.map((c) => c.name)).size).toBe(vectors.cases.length);
    for (const c of vectors.cases) {
      expect((c.output === undefined) !== (c.error === undefined), c.name).toBe(true);
      if (c.error !== undefined) {
        expect(c.error_code, c.name).toBeTypeOf("string");
        expect(c.files_after, `${c.name}: a failed command changes nothing`).toBeUndefined();
      }
    }
  });

  it("covers every command with successes and failures", () => {
    for (const command of commands) {
      const cases = vectors.cases.filter(
        (c) => (c.command as { command?: unknown } | null)?.command === command,
      );
      expect(
        cases.some((c) => c.output !== undefined),
        `${command} success`,
      ).toBe(true);
      expect(
        cases.some((c) => c.error !== undefined),
        `${command} error`,
      ).toBe(true);
    }
  });

  it("covers every error code and every path rule it can reach", () => {
    const codes = new Set(vectors.cases.map((c) => c.error_code).filter(Boolean));
    for (const code of [
      "invalid_command",
      "invalid_argument",
      "invalid_path",
      "out_of_range",
      "not_found",
      "already_exists",
      "not_a_file",
      "is_a_directory",
      "not_a_directory",
      "no_match",
      "multiple_matches",
      "too_large",
      "forbidden",
    ]) {
      expect(codes.has(code as never), code).toBe(true);
    }
  });
});
