import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "./store.js";

describe("load", () => {
  let from: MemoryStore;
  let to: MemoryStore;
  beforeEach(() => {
    from = MemoryStore.open(":memory:");
    to = MemoryStore.open(":memory:");
  });
  afterEach(() => {
    from.close();
    to.close();
  });

  it("copies records with their versions and times, and later writes take newer versions", () => {
    from.remember({ key: "/memories/a.md", text: "alpha\n", tags: ["memory-file"] });
    from.remember({ key: "note", text: "n", tags: ["x"], metadata: { by: "me" } });
    from.remember({ key: "note", text: "n2" });
    const records = from.export().memories;
    expect(to.load(records)).toEqual({ loaded: 2 });
    expect(to.export().memories).toEqual(records);
    const largest = Math.max(...records.map((r) => r.version));
    const next = to.remember({ key: "other", text: "o" });
    expect(next.version).toBeGreaterThan(largest);
  });

  it("refuses a key that is present and loads nothing", () => {
    to.remember({ key: "b", text: "already" });
    from.remember({ key: "a", text: "a" });
    from.remember({ key: "b", text: "b" });
    expect(() => to.load(from.export().memories)).toThrow(/b already exists/);
    expect(to.list().items.map((i) => i.key)).toEqual(["b"]);
  });

  it("checks every record as a write is checked, before storing any", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const record = {
      key: "k",
      text: "t",
      tags: [],
      metadata: {},
      version: 3,
      hash: "",
      bytes: 1,
      created_at: at,
      updated_at: at,
    };
    expect(() => to.load([record, { ...record, key: "late", created_at: "not a time" }])).toThrow(
      /created_at/,
    );
    expect(() => to.load([{ ...record, version: 0 }])).toThrow(/version/);
    expect(() =>
      to.load([{ ...record, key: "/memories/.hidden", tags: ["memory-file"] }, record]),
    ).toThrow(/hidden/);
    expect(to.list().items).toEqual([]);
  });
});
