import { describe, expect, it } from "vitest";
import { MemoryBackendError } from "./backend.js";
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

  it("declares the tree capability unless told not to", () => {
    const withTree = new InMemoryBackend();
    expect(typeof withTree.tree?.deleteTree).toBe("function");
    expect(typeof withTree.tree?.moveTree).toBe("function");
    expect(new InMemoryBackend({ tree: false }).tree).toBeUndefined();
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
    await expect(backend.tree?.moveTree("/memories/a", "/memories/x")).rejects.toThrow("offline");
    await expect(backend.tree?.deleteTree("/memories/a")).rejects.toThrow("offline");
    expect(backend.snapshot()).toEqual({ "/memories/a": "x" });
  });

  it("throws errors the engine recognises by code, whichever copy of the class made them", () => {
    const error = new MemoryBackendError("EXISTS", "/memories/a");
    expect(MemoryBackendError.isInstance(error, "EXISTS")).toBe(true);
    expect(MemoryBackendError.isInstance(error, "NOT_FOUND")).toBe(false);
    // Another copy of the package (a CJS build beside the ESM one) brands with the same symbols.
    const fromAnotherCopy = Object.assign(new Error("x"), {
      [Symbol.for("hms.error")]: true,
      [Symbol.for("hms.error.MemoryBackendError")]: true,
      code: "NOT_FOUND",
    });
    expect(MemoryBackendError.isInstance(fromAnotherCopy, "NOT_FOUND")).toBe(true);
    // A look-alike by name is not enough any more.
    const byName = Object.assign(new Error("x"), { name: "MemoryBackendError", code: "EXISTS" });
    expect(MemoryBackendError.isInstance(byName)).toBe(false);
    expect(MemoryBackendError.isInstance(new Error("NOT_FOUND"))).toBe(false);
    expect(MemoryBackendError.isInstance(null)).toBe(false);
  });
});
