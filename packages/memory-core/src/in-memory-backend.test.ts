import { describe, expect, it } from "vitest";
import { isMemoryBackendError, MemoryBackendError } from "./backend.js";
import { InMemoryBackend } from "./in-memory-backend.js";

describe("InMemoryBackend", () => {
  it("starts with the given files and shows them in code point order", async () => {
    const backend = new InMemoryBackend({
      files: { "/memories/😀": "b", "/memories/\uff61": "a" },
    });
    expect(Object.keys(backend.snapshot())).toEqual(["/memories/\uff61", "/memories/😀"]);
    expect((await backend.read("/memories/😀"))?.content).toBe("b");
  });

  it("never reuses a version, even for a file deleted and created again", async () => {
    const backend = new InMemoryBackend();
    const first = await backend.create("/memories/a", "x");
    await backend.delete("/memories/a");
    const second = await backend.create("/memories/a", "x");
    expect(second).not.toBe(first);
    await expect(backend.update("/memories/a", "y", first)).rejects.toThrow(MemoryBackendError);
  });

  it("offers the atomic operations only when asked to", () => {
    const atomic = new InMemoryBackend();
    expect(typeof atomic.deletePrefix).toBe("function");
    expect(typeof atomic.move).toBe("function");
    expect(typeof atomic.movePrefix).toBe("function");
    expect(typeof atomic.deleteTree).toBe("function");
    expect(typeof atomic.moveTree).toBe("function");
    expect(atomic.enforcesTree).toBe(true);
    const older = new InMemoryBackend({ treeOperations: false });
    expect(typeof older.movePrefix).toBe("function");
    expect("deleteTree" in older || "moveTree" in older || older.enforcesTree).toBe(false);
    const plain = new InMemoryBackend({ atomicOperations: false });
    expect("deletePrefix" in plain || "move" in plain || "movePrefix" in plain).toBe(false);
    expect("deleteTree" in plain || "moveTree" in plain || plain.enforcesTree).toBe(false);
  });

  it("loads files as given, even a file and a directory of one name, which create refuses", async () => {
    const backend = new InMemoryBackend();
    backend.load({ "/memories/a": "file", "/memories/a/b": "under" });
    expect(backend.snapshot()).toEqual({ "/memories/a": "file", "/memories/a/b": "under" });
    await expect(backend.create("/memories/c/d", "x")).resolves.toBeDefined();
    await expect(backend.create("/memories/c", "x")).rejects.toMatchObject({
      code: "IS_DIRECTORY",
    });
  });

  it("changes nothing when the hook throws", async () => {
    const backend = new InMemoryBackend({
      files: { "/memories/a": "x" },
      beforeOperation: (operation) => {
        if (operation !== "read" && operation !== "list") throw new Error("offline");
      },
    });
    await expect(backend.create("/memories/b", "y")).rejects.toThrow("offline");
    await expect(backend.delete("/memories/a")).rejects.toThrow("offline");
    await expect(backend.movePrefix?.("/memories/", "/x/")).rejects.toThrow("offline");
    expect(backend.snapshot()).toEqual({ "/memories/a": "x" });
  });

  it("refuses a prefix move into itself", async () => {
    const backend = new InMemoryBackend({ files: { "/memories/a/x": "1" } });
    await expect(backend.movePrefix?.("/memories/a/", "/memories/a/b/")).rejects.toThrow(
      RangeError,
    );
  });

  it("throws errors the engine recognises by code, whichever copy of the class made them", () => {
    const error = new MemoryBackendError("EXISTS", "/memories/a");
    expect(isMemoryBackendError(error, "EXISTS")).toBe(true);
    expect(isMemoryBackendError(error, "NOT_FOUND")).toBe(false);
    const lookalike = Object.assign(new Error("x"), {
      name: "MemoryBackendError",
      code: "NOT_FOUND",
    });
    expect(isMemoryBackendError(lookalike, "NOT_FOUND")).toBe(true);
    expect(isMemoryBackendError(new Error("NOT_FOUND"))).toBe(false);
    expect(isMemoryBackendError(null)).toBe(false);
  });
});
