import { describe, expect, it } from "vitest";
import { buildTree, type FileEntry, filterFiles, foldersOf, shortPath, treeRows } from "./tree.js";

const file = (key: string, bytes = 10, updated_at = "2026-01-01T00:00:00.000Z"): FileEntry => ({
  key,
  bytes,
  version: 1,
  updated_at,
});

const FILES = [
  file("/memories/zeta.md", 5),
  file("/memories/customers/acme.md", 100, "2026-02-01T00:00:00.000Z"),
  file("/memories/customers/beta.md", 50),
  file("/memories/customers/eu/gamma.md", 7),
  file("/memories/alpha.md", 1),
];

describe("buildTree and treeRows", () => {
  it("lists folders before files, each by name, with their sizes and latest change", () => {
    const root = buildTree(FILES);
    const rows = treeRows(root, new Set());
    expect(rows.map((row) => `${"  ".repeat(row.depth)}${row.node.name}`)).toEqual([
      "customers",
      "  eu",
      "    gamma.md",
      "  acme.md",
      "  beta.md",
      "alpha.md",
      "zeta.md",
    ]);
    const customers = root.children[0];
    expect(customers).toMatchObject({
      kind: "folder",
      path: "/memories/customers/",
      bytes: 157,
      files: 3,
      updatedAt: "2026-02-01T00:00:00.000Z",
    });
    expect(root).toMatchObject({ bytes: 163, files: 5 });
  });

  it("hides what is under a collapsed folder", () => {
    const rows = treeRows(buildTree(FILES), new Set(["/memories/customers/"]));
    expect(rows.map((row) => row.node.name)).toEqual(["customers", "alpha.md", "zeta.md"]);
  });

  it("leaves out keys outside /memories/", () => {
    expect(treeRows(buildTree([file("notes/x.md"), file("/memoriesx.md")]), new Set())).toEqual([]);
  });
});

describe("paths", () => {
  it("names the folders above a file and shortens a key", () => {
    expect(foldersOf("/memories/a/b/c.md")).toEqual(["/memories/a/", "/memories/a/b/"]);
    expect(foldersOf("/memories/c.md")).toEqual([]);
    expect(shortPath("/memories/a/b.md")).toBe("a/b.md");
  });
});

describe("filterFiles", () => {
  it("keeps the files whose path holds the filter, in any case, those named so first", () => {
    const keys = (filter: string) => filterFiles(FILES, filter).map((f) => shortPath(f.key));
    expect(keys("")).toHaveLength(FILES.length);
    expect(keys("ACME")).toEqual(["customers/acme.md"]);
    // "cust" is in three paths, none of them a name.
    expect(keys("cust")).toEqual([
      "customers/acme.md",
      "customers/beta.md",
      "customers/eu/gamma.md",
    ]);
    // A file named so comes before one in a folder named so.
    const more = [...FILES, file("/memories/eu-notes.md")];
    expect(filterFiles(more, "eu").map((f) => shortPath(f.key))).toEqual([
      "eu-notes.md",
      "customers/eu/gamma.md",
    ]);
    expect(keys("nothing")).toEqual([]);
  });
});
