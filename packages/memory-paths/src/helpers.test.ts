import { describe, expect, it } from "vitest";
import { MemoryPathError } from "./errors.js";
import {
  ancestorPaths,
  baseName,
  isSameOrUnder,
  isUnder,
  joinPath,
  parentPath,
  pathDepth,
  pathNames,
  rebasePath,
} from "./helpers.js";

describe("path helpers", () => {
  it("split a path into the names below /memories", () => {
    expect(pathNames("/memories")).toEqual([]);
    expect(pathNames("/memories/a/b.md")).toEqual(["a", "b.md"]);
    expect(pathDepth("/memories")).toBe(0);
    expect(pathDepth("/memories/a")).toBe(1);
    expect(pathDepth("/memories/a/b/c")).toBe(3);
  });

  it("give the parent and the base name", () => {
    expect(parentPath("/memories")).toBeNull();
    expect(parentPath("/memories/a")).toBe("/memories");
    expect(parentPath("/memories/a/b.md")).toBe("/memories/a");
    expect(baseName("/memories")).toBe("memories");
    expect(baseName("/memories/a/b.md")).toBe("b.md");
  });

  it("list the proper ancestors from the root down", () => {
    expect(ancestorPaths("/memories")).toEqual([]);
    expect(ancestorPaths("/memories/a")).toEqual(["/memories"]);
    expect(ancestorPaths("/memories/a/b/c.md")).toEqual([
      "/memories",
      "/memories/a",
      "/memories/a/b",
    ]);
  });

  it("join names and validate the result, so .. cannot escape", () => {
    expect(joinPath("/memories", "a.md")).toBe("/memories/a.md");
    expect(joinPath("/memories/a", "b/c.md")).toBe("/memories/a/b/c.md");
    expect(() => joinPath("/memories/a", "../../etc")).toThrow(MemoryPathError);
    expect(() => joinPath("/memories/a", "")).toThrow(/empty name/);
    expect(() => joinPath("/etc", "x")).toThrow(/must be \/memories/);
  });

  it("tell whether a path lies under another, segment by segment", () => {
    expect(isUnder("/memories/a/b", "/memories/a")).toBe(true);
    expect(isUnder("/memories/a", "/memories")).toBe(true);
    expect(isUnder("/memories/a", "/memories/a")).toBe(false);
    expect(isUnder("/memories/ab", "/memories/a")).toBe(false);
    expect(isSameOrUnder("/memories/a", "/memories/a")).toBe(true);
    expect(isSameOrUnder("/memories/a/b", "/memories/a")).toBe(true);
    expect(isSameOrUnder("/memories/ab", "/memories/a")).toBe(false);
    expect(isSameOrUnder("/memories", "/memories/a")).toBe(false);
  });

  it("refuse invalid paths instead of answering for them", () => {
    expect(() => isUnder("/memories/a/../../etc", "/memories/a")).toThrow(MemoryPathError);
    expect(() => isSameOrUnder("/memories/a", "/memories/a/")).toThrow(MemoryPathError);
    expect(() => parentPath("/memories/")).toThrow(MemoryPathError);
    expect(() => baseName("relative")).toThrow(MemoryPathError);
    expect(() => pathDepth("/memories/.x")).toThrow(MemoryPathError);
  });

  it("rebase a path from one directory to another", () => {
    expect(rebasePath("/memories/a/x/y.md", "/memories/a", "/memories/b")).toBe(
      "/memories/b/x/y.md",
    );
    expect(rebasePath("/memories/a", "/memories/a", "/memories/c/d")).toBe("/memories/c/d");
    expect(() => rebasePath("/memories/ab", "/memories/a", "/memories/b")).toThrow(RangeError);
  });

  it("refuse a rebase whose result would break a limit", () => {
    const deep = `/memories${"/d".repeat(15)}`;
    try {
      rebasePath("/memories/a/x/y", "/memories/a", deep);
      expect.unreachable("rebasing 2 levels under 15 must fail");
    } catch (error) {
      expect(error).toBeInstanceOf(MemoryPathError);
      expect((error as MemoryPathError).rule).toBe("too-deep");
    }
  });
});
