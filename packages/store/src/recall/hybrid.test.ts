import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MemoryVectors, PassageSpan } from "../embeddings.js";
import { openSqlite } from "../sqlite/driver.js";
import { MemoryStore } from "../store.js";
import {
  type Candidate,
  calibrated,
  DEFAULT_FUSION,
  type FusionParams,
  fuse,
  HybridRanker,
} from "./hybrid.js";
import { VectorIndex } from "./vector-index.js";

const MODEL = { id: "test-model-4d", dimensions: 4 };

let dir: string;
let file: string;
const open: MemoryStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-hybrid-"));
  file = join(dir, "store.sqlite");
});
afterEach(() => {
  for (const store of open.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

function hybrid(): MemoryStore {
  const store = MemoryStore.open(file, { embeddings: { model: MODEL } });
  open.push(store);
  return store;
}

/** A unit vector pointing mostly along `axis`, tilted by `tilt` towards the next axis. */
function direction(axis: number, tilt = 0): Float32Array {
  const v = new Float32Array(4);
  v[axis % 4] = Math.cos(tilt);
  v[(axis + 1) % 4] = Math.sin(tilt);
  return v;
}

/** Embeds every pending memory of `store` with the vectors `vectorsOf` gives its text. */
function embedPending(
  store: MemoryStore,
  vectorsOf: (text: string) => { spans: PassageSpan[]; vectors: Float32Array },
): void {
  const embeddings = store.embeddings;
  if (embeddings === undefined) throw new Error("not a hybrid store");
  const items: MemoryVectors[] = embeddings
    .pending(1000)
    .map((memory) => ({ id: memory.id, hash: memory.hash, ...vectorsOf(memory.text) }));
  embeddings.save(items);
}

const ONE_LINE: PassageSpan[] = [{ lineStart: 1, lineEnd: 1 }];
const TOPICS: Record<string, Float32Array> = {
  "Acme Corp prefers email follow-ups": direction(0),
  "The cafeteria serves lunch at noon": direction(1),
  "Budget review is quarterly": direction(2),
};
const byTopic = (text: string) => ({
  spans: ONE_LINE,
  vectors: TOPICS[text] ?? direction(3),
});
const CONTACT = "how should I contact that client?";

/** How many memories have vectors in the file, read by a connection of its own. */
function vectorRows(): number {
  const db = openSqlite(file, { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM memory_vectors").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function keys(result: { hits: { key: string }[] }): string[] {
  return result.hits.map((hit) => hit.key);
}

describe("hybrid recall in the store", () => {
  it("finds a memory that shares no word with the query through its vector", () => {
    const store = hybrid();
    store.remember({ key: "acme", text: "Acme Corp prefers email follow-ups" });
    store.remember({ key: "lunch", text: "The cafeteria serves lunch at noon" });
    store.remember({ key: "budget", text: "Budget review is quarterly" });
    embedPending(store, byTopic);

    expect(store.recall(CONTACT).hits).toEqual([]);
    const result = store.recall(CONTACT, { k: 1, vector: direction(0, 0.2) });
    expect(result.build).toBe("hybrid");
    expect(result.hits).toEqual([
      {
        key: "acme",
        score: expect.any(Number),
        excerpt: "Acme Corp prefers email follow-ups",
        line_start: 1,
        line_end: 1,
        updated_at: store.get("acme")?.updated_at,
      },
    ]);
  });

  it("returns no hit of score 0: a memory without a query word and unrelated in meaning is left out", () => {
    const store = hybrid();
    store.remember({ key: "acme", text: "Acme Corp prefers email follow-ups" });
    store.remember({ key: "lunch", text: "The cafeteria serves lunch at noon" });
    store.remember({ key: "budget", text: "Budget review is quarterly" });
    embedPending(store, byTopic);

    // "budget" (axis 2) is orthogonal to the query (axis 0, tilted towards axis 1: cosine 0.48
    // with "lunch", above the floor).
    const result = store.recall(CONTACT, { k: 10, vector: direction(0, 0.5) });
    expect(keys(result)).toEqual(["acme", "lunch"]);
    for (const hit of result.hits) expect(hit.score).toBeGreaterThan(0);
  });

  it("says lexical when no query vector is given", () => {
    const store = hybrid();
    store.remember({ key: "acme", text: "Acme Corp prefers email follow-ups" });
    expect(store.recall("email").build).toBe("lexical");
    expect(store.stats().recall.build).toBe("hybrid");
  });

  it("excerpts the passage most similar to the query when no query word occurs", () => {
    const store = hybrid();
    const text = ["# Accounts", "", "Globex pays late.", "", "Acme Corp", "prefers email."].join(
      "\n",
    );
    store.remember({ key: "clients.md", text });
    embedPending(store, () => ({
      spans: [
        { lineStart: 1, lineEnd: 3 },
        { lineStart: 5, lineEnd: 6 },
      ],
      vectors: Float32Array.from([...direction(1), ...direction(0)]),
    }));
    const [hit] = store.recall(CONTACT, { vector: direction(0) }).hits;
    expect(hit).toMatchObject({ key: "clients.md", line_start: 5 });
    expect(text).toContain(hit?.excerpt);
    expect(hit?.excerpt.startsWith("Acme Corp")).toBe(true);
  });

  it("blends both: a lexical match and a semantic match both rank", () => {
    const store = hybrid();
    store.remember({ key: "acme", text: "Acme Corp prefers email follow-ups" });
    store.remember({ key: "lunch", text: "The cafeteria serves lunch at noon" });
    store.remember({ key: "budget", text: "Budget review is quarterly" });
    embedPending(store, byTopic);
    const result = store.recall("client lunch", { k: 3, vector: direction(0) });
    expect(keys(result).slice(0, 2).sort()).toEqual(["acme", "lunch"]);
    const scores = result.hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it("applies tag and prefix filters to semantic hits too", () => {
    const store = hybrid();
    store.remember({ key: "a/acme", text: "Acme Corp prefers email follow-ups", tags: ["crm"] });
    store.remember({ key: "b/acme", text: "Acme Corp prefers email follow-ups" });
    embedPending(store, byTopic);
    const vector = direction(0);
    expect(keys(store.recall(CONTACT, { vector })).sort()).toEqual(["a/acme", "b/acme"]);
    expect(keys(store.recall(CONTACT, { vector, tag: "crm" }))).toEqual(["a/acme"]);
    expect(keys(store.recall(CONTACT, { vector, prefix: "b/" }))).toEqual(["b/acme"]);
    expect(keys(store.recall(CONTACT, { vector, prefix: "b/", tag: "crm" }))).toEqual([]);
  });

  it("finds the one match of a narrow filter among many nearer memories", () => {
    const store = hybrid();
    const batch = Array.from({ length: 300 }, (_, i) => ({ key: `near/${i}`, text: `note ${i}` }));
    store.rememberMany(batch);
    store.remember({ key: "far/x", text: "far away", tags: ["rare"] });
    embedPending(store, (text) => ({
      spans: ONE_LINE,
      // Cosine 0.54 with the query: related, but less than every "near" memory (0.99995).
      vectors: text === "far away" ? direction(0, 1) : direction(0, 0.01),
    }));
    const vector = direction(0);
    expect(keys(store.recall(CONTACT, { vector, k: 3 }))).not.toContain("far/x");
    expect(keys(store.recall(CONTACT, { vector, tag: "rare" }))).toEqual(["far/x"]);
    expect(keys(store.recall(CONTACT, { vector, prefix: "far/" }))).toEqual(["far/x"]);
  });

  it("filters semantic hits by time before taking k, among many nearer memories", () => {
    const store = hybrid();
    // 500 old memories nearer the query than one recent memory: more than the nearest
    // 4 × denseDepth the filter is first tried on, so the memories in range are read.
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
    const record = (key: string, text: string, time: string) => ({
      key,
      text,
      tags: [],
      metadata: {},
      version: 1,
      hash: "",
      bytes: 0,
      created_at: time,
      updated_at: time,
    });
    store.load([
      ...Array.from({ length: 500 }, (_, i) => record(`near/${i}`, `note ${i}`, at(i))),
      record("far/x", "far away", "2026-06-01T00:00:00.000Z"),
    ]);
    embedPending(store, (text) => ({
      spans: ONE_LINE,
      // Cosine 0.54 with the query: related, but less than every "near" memory (0.99995).
      vectors: text === "far away" ? direction(0, 1) : direction(0, 0.01),
    }));
    const vector = direction(0);
    const recent = store.recall(CONTACT, { vector, modifiedAfter: "2026-05-01T00:00:00Z" });
    expect(recent.build).toBe("hybrid");
    expect(recent.hits.map((hit) => [hit.key, hit.updated_at])).toEqual([
      ["far/x", "2026-06-01T00:00:00.000Z"],
    ]);
    // A window of three old ones, and a filter that the nearest memories pass.
    expect(
      keys(
        store.recall(CONTACT, {
          vector,
          modifiedAfter: at(100),
          modifiedBefore: at(103),
        }),
      ).sort(),
    ).toEqual(["near/100", "near/101", "near/102"]);
    const old = store.recall(CONTACT, { vector, k: 5, modifiedBefore: "2026-05-01T00:00:00Z" });
    expect(old.hits).toHaveLength(5);
    expect(keys(old)).not.toContain("far/x");
  });

  it("vectors follow a move, go with a delete and are replaced with a new text", () => {
    const store = hybrid();
    store.remember({ key: "acme", text: "Acme Corp prefers email follow-ups" });
    store.remember({ key: "lunch", text: "The cafeteria serves lunch at noon" });
    embedPending(store, byTopic);
    const vector = direction(0);

    store.move("acme", "clients/acme");
    expect(store.stats().recall.pending).toBe(0);
    expect(keys(store.recall(CONTACT, { vector, k: 1 }))).toEqual(["clients/acme"]);

    store.remember({ key: "clients/acme", text: "Budget review is quarterly" });
    expect(store.stats().recall.pending).toBe(1);
    embedPending(store, byTopic);
    expect(keys(store.recall(CONTACT, { vector: direction(2), k: 1 }))).toEqual(["clients/acme"]);
    // Its old vector (along axis 0) is gone: a query near axis 0 now prefers lunch (axis 1).
    expect(keys(store.recall(CONTACT, { vector: direction(0, 0.3), k: 1 }))).toEqual(["lunch"]);

    store.forget("clients/acme");
    expect(keys(store.recall(CONTACT, { vector: direction(1, -0.5) }))).toEqual(["lunch"]);
    store.forgetPrefix("l");
    expect(store.recall(CONTACT, { vector: direction(1, -0.5) }).hits).toEqual([]);
  });

  it("vectors follow a tree move and go with a tree delete", () => {
    const store = hybrid();
    store.remember({
      key: "/memories/clients/acme.md",
      text: "Acme Corp prefers email follow-ups",
    });
    store.remember({ key: "/memories/clients/x/budget.md", text: "Budget review is quarterly" });
    store.remember({ key: "/memories/lunch.md", text: "The cafeteria serves lunch at noon" });
    embedPending(store, byTopic);

    expect(store.moveTree("/memories/clients", "/memories/archive/clients")).toEqual({ moved: 2 });
    // Nothing to re-embed: the vectors moved with their records.
    expect(store.stats().recall.pending).toBe(0);
    expect(keys(store.recall(CONTACT, { vector: direction(0), k: 1 }))).toEqual([
      "/memories/archive/clients/acme.md",
    ]);
    expect(keys(store.recall(CONTACT, { vector: direction(2), k: 1 }))).toEqual([
      "/memories/archive/clients/x/budget.md",
    ]);

    expect(vectorRows()).toBe(3);

    expect(store.forgetTree("/memories/archive")).toEqual({ deleted: 2 });
    expect(vectorRows()).toBe(1);
    expect(keys(store.recall(CONTACT, { vector: direction(0, 0.5) }))).toEqual([
      "/memories/lunch.md",
    ]);
    expect(store.stats().recall.pending).toBe(0);
  });

  it("ranks a memory whose vectors are pending by its BM25 score", () => {
    const store = hybrid();
    store.remember({ key: "lunch", text: "The cafeteria serves lunch at noon" });
    embedPending(store, byTopic);
    store.remember({ key: "fresh", text: "lunch with Acme on Friday" });
    expect(store.stats().recall.pending).toBe(1);
    const result = store.recall("lunch", { vector: direction(3) });
    expect(result.build).toBe("hybrid");
    expect(keys(result).sort()).toEqual(["fresh", "lunch"]);
  });

  it("sees vectors saved and memories deleted by another connection", () => {
    const reader = hybrid();
    const writer = hybrid();
    writer.remember({ key: "acme", text: "Acme Corp prefers email follow-ups" });
    const vector = direction(0);
    expect(reader.recall(CONTACT, { vector }).hits).toEqual([]);
    embedPending(writer, byTopic);
    expect(keys(reader.recall(CONTACT, { vector }))).toEqual(["acme"]);
    writer.forget("acme");
    expect(reader.recall(CONTACT, { vector }).hits).toEqual([]);
  });
});

describe("fuse", () => {
  const hit = (id: number, score: number) => ({ id, score, passage: ONE_LINE[0] as PassageSpan });

  it("blends the BM25 share and the calibrated cosine with the weights", () => {
    const params = { ...DEFAULT_FUSION, lexicalWeight: 0.25, cosineFloor: 0.2, cosineCeiling: 0.8 };
    const candidates: Candidate[] = [
      { id: 1, lexical: 0.4, dense: hit(1, 0.2) },
      { id: 2, lexical: 0.2, dense: hit(2, 0.65) },
      { id: 3, lexical: undefined, dense: hit(3, 0.5) },
      { id: 4, lexical: 0.1, dense: hit(4, 0.95) },
    ];
    const w = 0.25;
    const expected = new Map([
      [1, w * 0.4 + (1 - w) * 0],
      [2, w * 0.2 + (1 - w) * 0.75],
      [3, w * 0 + (1 - w) * 0.5],
      [4, w * 0.1 + (1 - w) * 1],
    ]);
    const fused = fuse(candidates, params);
    expect(fused.map((r) => r.id)).toEqual([4, 2, 3, 1]);
    for (const r of fused) expect(r.score).toBeCloseTo(expected.get(r.id) as number, 10);
  });

  it("maps cosines to 0 at the floor and below, 1 at the ceiling and above, linearly between", () => {
    const params = { ...DEFAULT_FUSION, cosineFloor: 0.2, cosineCeiling: 0.8 };
    expect([-0.3, 0.1, 0.2, 0.35, 0.5, 0.8, 0.97].map((c) => calibrated(c, params))).toEqual([
      0,
      0,
      0,
      expect.closeTo(0.25, 10),
      expect.closeTo(0.5, 10),
      1,
      1,
    ]);
  });

  it("gives a candidate the same score whatever the other candidates are", () => {
    const acme: Candidate = { id: 1, lexical: undefined, dense: hit(1, 0.45) };
    const alone = fuse([acme], DEFAULT_FUSION)[0]?.score;
    const among = fuse(
      [
        acme,
        { id: 2, lexical: 0.05, dense: hit(2, 0.3) },
        { id: 3, lexical: undefined, dense: hit(3, 0.21) },
        { id: 4, lexical: 0.3, dense: hit(4, 0.6) },
      ],
      DEFAULT_FUSION,
    ).find((r) => r.id === 1)?.score;
    expect(alone).toBeGreaterThan(0);
    expect(among).toBe(alone);
  });

  it("scores a query that matches nothing well low, not as if its best candidate were good", () => {
    // Off-topic queries among thousands of notes: a stray common word and cosines of noise
    // (0.17 to 0.24 measured for MiniLM in the distractor bench).
    const fused = fuse(
      [
        { id: 1, lexical: 0.04, dense: hit(1, 0.24) },
        { id: 2, lexical: undefined, dense: hit(2, 0.22) },
        { id: 3, lexical: 0.02, dense: hit(3, 0.18) },
      ],
      DEFAULT_FUSION,
    );
    expect(fused.length).toBeGreaterThan(0);
    for (const r of fused) expect(r.score).toBeLessThan(0.2);
  });

  it("keeps every fused score in [0, 1], whatever the weight", () => {
    const candidates: Candidate[] = [
      { id: 1, lexical: 0.93, dense: hit(1, 0.99) },
      { id: 2, lexical: 0.02, dense: hit(2, -0.3) },
      { id: 3, lexical: undefined, dense: hit(3, 0.55) },
      { id: 4, lexical: 0.7, dense: undefined },
    ];
    for (let i = 0; i <= 20; i++) {
      const lexicalWeight = i / 20 + (i % 3) * 1e-9;
      for (const { score } of fuse(candidates, { ...DEFAULT_FUSION, lexicalWeight })) {
        expect({ lexicalWeight, inRange: score >= 0 && score <= 1 }).toEqual({
          lexicalWeight,
          inRange: true,
        });
      }
    }
  });

  it("refuses parameters that would not give scores in [0, 1], saying why", () => {
    hybrid();
    const db = openSqlite(file);
    try {
      const index = new VectorIndex(db, 4);
      const make = (params: Partial<FusionParams>) => () =>
        new HybridRanker(db, "m", index, { ...DEFAULT_FUSION, ...params });
      expect(make({ lexicalWeight: 1.5 })).toThrow("lexicalWeight 1.5 is not in [0, 1]");
      expect(make({ cosineFloor: 0.5, cosineCeiling: 0.5 })).toThrow(
        "cosineCeiling (0.5) must be above cosineFloor (0.5)",
      );
      expect(make({ cosineFloor: Number.NaN })).toThrow("must be above cosineFloor");
      expect(make({})).not.toThrow();
    } finally {
      db.close();
    }
  });

  it("leaves out a candidate whose fused score is 0", () => {
    const fused = fuse(
      [
        { id: 1, lexical: 0.4, dense: hit(1, 0.7) },
        { id: 2, lexical: undefined, dense: hit(2, 0.5) },
        // No query term and a cosine at or below the floor (0): 0 on both parts.
        { id: 3, lexical: undefined, dense: hit(3, -0.1) },
        { id: 4, lexical: undefined, dense: hit(4, 0) },
      ],
      DEFAULT_FUSION,
    );
    expect(fused.map((r) => r.id)).toEqual([1, 2]);
    for (const r of fused) expect(r.score).toBeGreaterThan(0);
  });

  it("uses the lexical score for a candidate without vectors", () => {
    const fused = fuse(
      [
        { id: 1, lexical: 0.3, dense: undefined },
        { id: 2, lexical: 0.2, dense: hit(2, 0.9) },
        { id: 3, lexical: 0.1, dense: hit(3, 0.1) },
      ],
      { ...DEFAULT_FUSION, lexicalWeight: 0.5 },
    );
    expect(fused.find((r) => r.id === 1)?.score).toBeCloseTo(0.3, 10);
  });
});
