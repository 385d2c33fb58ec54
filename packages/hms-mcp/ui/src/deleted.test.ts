import { describe, expect, it } from "vitest";
import { type Change, deletedFiles } from "./deleted.js";

let seq = 100;
const change = (
  op: Change["op"],
  key: string,
  version: number,
  from_key: string | null = null,
): Change => ({
  seq: seq--,
  key,
  op,
  from_key,
  version,
  bytes: 10,
  at: `2026-01-01T00:00:${String(seq % 60).padStart(2, "0")}.000Z`,
  actor: null,
  command: null,
});

describe("deletedFiles", () => {
  it("lists files whose latest change is a delete, with the version to bring back", () => {
    // Newest first, as history answers.
    const changes = [
      change("delete", "/memories/gone.md", 7),
      change("update", "/memories/gone.md", 7),
      change("create", "/memories/gone.md", 3),
      change("create", "/memories/kept.md", 2),
    ];
    expect(deletedFiles(changes, new Set(["/memories/kept.md"]))).toEqual([
      expect.objectContaining({ key: "/memories/gone.md", version: 7 }),
    ]);
  });

  it("leaves out a file written again after its delete, and one that exists now", () => {
    const changes = [
      change("create", "/memories/back.md", 9),
      change("delete", "/memories/back.md", 4),
      change("delete", "/memories/exists.md", 2),
    ];
    expect(deletedFiles(changes, new Set(["/memories/exists.md"]))).toEqual([]);
  });

  it("does not count a file moved away as deleted", () => {
    const changes = [change("move", "/memories/new.md", 5, "/memories/old.md")];
    expect(deletedFiles(changes, new Set(["/memories/new.md"]))).toEqual([]);
    // A file deleted before it was moved onto and away again is not listed by its old delete.
    const older = [
      change("move", "/memories/b.md", 8, "/memories/a.md"),
      change("delete", "/memories/a.md", 2),
    ];
    expect(deletedFiles(older, new Set(["/memories/b.md"]))).toEqual([]);
  });
});
