import { describe, expect, it } from "vitest";
import { embeddingThreads } from "./semantic.js";
import { Affinity, shareOut } from "./worker-pool.js";

describe("shareOut", () => {
  it("gives every item to one part, each part in the items' order", () => {
    const sizes = [5, 90, 12, 40, 40, 3, 77, 8];
    const parts = shareOut(sizes, 3);
    expect(parts.flat().sort((a, b) => a - b)).toEqual(sizes.map((_, i) => i));
    for (const part of parts) expect(part).toEqual([...part].sort((a, b) => a - b));
  });

  it("balances the parts' total sizes, largest items first", () => {
    const sizes = [100, 10, 10, 10, 60, 10];
    const parts = shareOut(sizes, 2);
    const totals = parts.map((part) => part.reduce((sum, i) => sum + (sizes[i] ?? 0), 0));
    expect(totals.sort()).toEqual([100, 100]);
  });

  it("puts an item with a preferred part there, and balances the others around it", () => {
    // Items 0 and 1 belong to part 1; the rest fill part 0 first.
    expect(shareOut([50, 50, 40, 30, 20], 2, [1, 1])).toEqual([
      [2, 3, 4],
      [0, 1],
    ]);
    // A preference for a part that does not exist is ignored.
    expect(shareOut([10, 10], 2, [5, undefined])).toEqual([[0], [1]]);
  });

  it("leaves parts empty when there are fewer items than parts", () => {
    expect(shareOut([7], 2)).toEqual([[0], []]);
    expect(shareOut([], 2)).toEqual([[], []]);
  });
});

describe("embeddingThreads", () => {
  it("runs one worker with the available cores, at most 4, by default", () => {
    const defaults = { workers: undefined, threads: undefined };
    expect(embeddingThreads(defaults, 1)).toEqual({ workers: 1, threads: 1 });
    expect(embeddingThreads(defaults, 2)).toEqual({ workers: 1, threads: 2 });
    expect(embeddingThreads(defaults, 16)).toEqual({ workers: 1, threads: 4 });
  });

  it("shares the threads out between the workers asked for, unless told how many", () => {
    expect(embeddingThreads({ workers: 2, threads: undefined }, 2)).toEqual({
      workers: 2,
      threads: 1,
    });
    expect(embeddingThreads({ workers: 2, threads: undefined }, 16)).toEqual({
      workers: 2,
      threads: 2,
    });
    expect(embeddingThreads({ workers: 3, threads: undefined }, 2)).toEqual({
      workers: 3,
      threads: 1,
    });
    expect(embeddingThreads({ workers: 2, threads: 6 }, 2)).toEqual({ workers: 2, threads: 6 });
  });
});

describe("Affinity", () => {
  it("remembers each memory's worker by its key", () => {
    const affinity = new Affinity(10);
    affinity.set("default:7", 1);
    expect(affinity.of("default:7")).toBe(1);
    expect(affinity.of("other:7")).toBeUndefined();
  });

  it("forgets the least recently set first", () => {
    const affinity = new Affinity(2);
    affinity.set("a", 0);
    affinity.set("b", 1);
    affinity.set("a", 0);
    affinity.set("c", 1);
    expect([affinity.of("a"), affinity.of("b"), affinity.of("c")]).toEqual([0, undefined, 1]);
  });
});
