import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite, type SqliteDatabase } from "../sqlite/driver.js";
import { MemoryStore } from "../store.js";
import { VectorIndex } from "./vector-index.js";

const MODEL = { id: "test-model-4d", dimensions: 4 };

let dir: string;
let store: MemoryStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-vector-index-"));
  store = MemoryStore.open(join(dir, "store.sqlite"), { embeddings: { model: MODEL } });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A unit vector at angle `degrees` in the plane of the first two axes. */
function at(degrees: number): number[] {
  const r = (degrees * Math.PI) / 180;
  return [Math.cos(r), Math.sin(r), 0, 0];
}

/** Stores memories `name → passage angles` and embeds them; returns name → memory id. */
function load(memories: Record<string, number[]>): Map<string, number> {
  store.rememberMany(Object.keys(memories).map((key) => ({ key, text: key })));
  const ids = new Map<string, number>();
  const pending = store.embeddings?.pending(10000) ?? [];
  store.embeddings?.save(
    pending.map((memory) => {
      const angles = memories[memory.text] as number[];
      ids.set(memory.text, memory.id);
      return {
        ...memory,
        spans: angles.map((_, i) => ({ lineStart: i + 1, lineEnd: i + 1 })),
        vectors: Float32Array.from(angles.flatMap(at)),
      };
    }),
  );
  return ids;
}

const dbs: SqliteDatabase[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

/** A fresh index over the store's file on its own connection, as another process builds it. */
function freshIndex(): VectorIndex {
  const db = openSqlite(join(dir, "store.sqlite"));
  dbs.push(db);
  return new VectorIndex(db, 4);
}

describe("VectorIndex", () => {
  it("scores a memory by its best passage and names that passage", () => {
    const ids = load({ a: [90, 10], b: [45], c: [180] });
    const index = freshIndex();
    index.sync();
    expect(index.size).toBe(3);
    const hits = index.nearest(Float32Array.from(at(0)), 2);
    expect(hits.map((hit) => hit.id)).toEqual([ids.get("a"), ids.get("b")]);
    expect(hits[0]?.score).toBeCloseTo(Math.cos((10 * Math.PI) / 180), 5);
    expect(hits[0]?.passage).toEqual({ lineStart: 2, lineEnd: 2 });
    expect(index.score(Float32Array.from(at(0)), ids.get("c") as number)?.score).toBeCloseTo(-1, 5);
  });

  it("skips memories the filter refuses", () => {
    const ids = load({ a: [0], b: [5], c: [10] });
    const index = freshIndex();
    index.sync();
    const refused = ids.get("a");
    const hits = index.nearest(Float32Array.from(at(0)), 2, (id) => id !== refused);
    expect(hits.map((hit) => hit.id)).toEqual([ids.get("b"), ids.get("c")]);
  });

  it("stays exact through many replacements and deletions (compaction)", () => {
    const memories: Record<string, number[]> = {};
    for (let i = 0; i < 1500; i++) memories[`m${i}`] = [i % 360, (i * 7) % 360];
    load(memories);
    const index = freshIndex();
    index.sync();
    // Delete most memories, so the index compacts its rows on the next sync.
    store.forgetPrefix("m1");
    store.forgetPrefix("m2");
    store.forgetPrefix("m3");
    store.forgetPrefix("m4");
    store.forgetPrefix("m5");
    index.sync();
    const survivors = store.list({ limit: 1000 }).items.map((item) => item.key);
    expect(index.size).toBe(survivors.length);
    const query = Float32Array.from(at(33));
    const brute = survivors
      .map((key) => {
        const i = Number(key.slice(1));
        const best = Math.max(
          ...[i % 360, (i * 7) % 360].map((deg) => Math.cos(((deg - 33) * Math.PI) / 180)),
        );
        return { key, best };
      })
      .sort((a, b) => b.best - a.best);
    const hits = index.nearest(query, 5);
    expect(hits.map((hit) => hit.score)).toEqual(
      brute.slice(0, 5).map((entry) => expect.closeTo(entry.best, 5)),
    );
  });

  it("ranks the same with or without the WebAssembly kernel", () => {
    const memories: Record<string, number[]> = {};
    for (let i = 0; i < 200; i++) memories[`m${i}`] = [(i * 37) % 360, (i * 11) % 360, i % 360];
    load(memories);
    const simd = freshIndex();
    const db = openSqlite(join(dir, "store.sqlite"));
    dbs.push(db);
    const plain = new VectorIndex(db, 4, { simd: false });
    simd.sync();
    plain.sync();
    const query = Float32Array.from(at(123));
    const a = simd.nearest(query, 20);
    const b = plain.nearest(query, 20);
    // The same best scores (float32 sums may order exact ties differently).
    expect(a).toHaveLength(20);
    a.forEach((hit, i) => {
      expect(hit.score).toBeCloseTo(b[i]?.score as number, 5);
    });
    for (const hit of a) {
      expect(hit.score).toBeCloseTo(plain.score(query, hit.id)?.score as number, 5);
    }
  });

  it("refuses a scan used after the index changed", () => {
    const ids = load({ a: [0] });
    const index = freshIndex();
    index.sync();
    const scan = index.scan(Float32Array.from(at(0)));
    expect(scan.score(ids.get("a") as number)?.score).toBeCloseTo(1, 5);
    index.scan(Float32Array.from(at(90)));
    expect(() => scan.best(1)).toThrow(/after the index scanned again/);
  });

  it("refuses a query of the wrong length", () => {
    const index = freshIndex();
    expect(() => index.nearest(new Float32Array(3), 1)).toThrow(/4 float32 dimensions/);
  });
});
