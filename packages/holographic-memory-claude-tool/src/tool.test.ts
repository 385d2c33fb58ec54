// The SDK glue over the reference in-memory backend: the same engine and strings as over
// hms-mcp (test/e2e runs those), without a server.

import { InMemoryBackend, type RecallHit } from "@hms/memory-core";
import { HmsError } from "@hms/memory-paths";
import { describe, expect, it } from "vitest";
import { HolographicMemoryError } from "./errors.js";
import { HolographicMemoryTool } from "./tool.js";

describe("HolographicMemoryTool over any backend", () => {
  it("runs the memory commands and throws refusals as the SDK's ToolError", async () => {
    const memory = new HolographicMemoryTool(new InMemoryBackend());
    expect(
      await memory.create({ command: "create", path: "/memories/a.md", file_text: "hi\n" }),
    ).toBe("File created successfully at: /memories/a.md");
    const refused = await memory
      .execute({ command: "view", path: "/memories/../etc" })
      .catch((error: unknown) => error);
    expect(HolographicMemoryError.isInstance(refused)).toBe(true);
    expect(HmsError.isInstance(refused)).toBe(true);
    expect((refused as HolographicMemoryError).code).toBe("invalid_path");
  });

  it("answers execute(undefined) and execute(null) with the engine's tool error", async () => {
    // null is pinned for both languages by the shared vector command/null; undefined has no
    // JSON form (Python has no such value), so it is pinned here: "nothing", as in every port.
    const memory = new HolographicMemoryTool(new InMemoryBackend());
    for (const [input, what] of [
      [undefined, "nothing"],
      [null, "null"],
    ] as const) {
      const refused = await memory
        .execute(input as unknown as Record<string, unknown>)
        .catch((error: unknown) => error);
      expect(HolographicMemoryError.isInstance(refused)).toBe(true);
      expect((refused as HolographicMemoryError).code).toBe("invalid_command");
      expect((refused as Error).message).toBe(
        `Invalid memory command: expected an object with a "command" field, got ${what}.`,
      );
    }
  });

  it("refuses recallTool() at once when the backend cannot recall", () => {
    const memory = new HolographicMemoryTool(new InMemoryBackend());
    expect(() => memory.recallTool()).toThrowError(
      "recallTool() needs a backend that can recall, such as hms-mcp's (connect()); this tool's backend (InMemoryBackend) has no recall.",
    );
  });

  it("refuses history() and restore() over a backend that keeps no history", async () => {
    const memory = new HolographicMemoryTool(new InMemoryBackend());
    for (const call of [memory.history("/memories/a.md"), memory.restore("/memories/a.md", 1)]) {
      const error = await call.catch((caught: unknown) => caught);
      expect(HolographicMemoryError.isInstance(error)).toBe(true);
      expect((error as HolographicMemoryError).code).toBe("unsupported");
      expect((error as Error).message).toContain("(InMemoryBackend) has none");
    }
  });

  it("serves memory_recall from a backend that can recall", async () => {
    const hit: RecallHit = {
      path: "/memories/a.md",
      score: 0.5,
      excerpt: "Acme prefers email",
      lineStart: 2,
      lineEnd: 2,
    };
    const backend = Object.assign(new InMemoryBackend(), { recall: async () => [hit] });
    const memory = new HolographicMemoryTool(backend);
    const tool = memory.recallTool();
    expect(tool.name).toBe("memory_recall");
    expect(await tool.run({ query: "acme" })).toContain(
      "1. /memories/a.md (line 2, score 0.5000)\n    Acme prefers email",
    );
    expect(await memory.recall("acme", 1)).toEqual([hit]);
    const refused = await Promise.resolve(tool.run({ query: "" })).catch((e: unknown) => e);
    expect((refused as HolographicMemoryError).code).toBe("invalid_argument");
  });
});

describe("the package's exports", () => {
  it("include the errors connect() can throw, so callers can tell them apart", async () => {
    const exported = await import("./index.js");
    const error = new exported.HmsMcpError("PROTOCOL", "x");
    expect(exported.HmsMcpError.isInstance(error)).toBe(true);
    expect(exported.HmsConnectionError.isInstance(error)).toBe(false);
    expect(typeof exported.HmsMcpNotFoundError.isInstance).toBe("function");
  });
});
