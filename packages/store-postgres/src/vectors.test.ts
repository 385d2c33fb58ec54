/**
 * Hybrid recall's storage on PostgreSQL, against a real server: the queue fed by writes, claims
 * shared by replicas (each memory embedded once), leases taken over, stale vectors refused,
 * the model checked, the dense search never stale across replicas, and fused recall.
 */
import {
  EmbeddingModelMismatchError,
  isStoreError,
  MAX_RECALL_K,
  type PendingMemory,
} from "@hms/store";
import { type PostgresServer, startPostgres } from "@hms/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgEngine } from "./engine.js";
import { DenseSearch } from "./vectors-dense.js";

const MODEL = { id: "test-embedder-8", dimensions: 8 };
let server: PostgresServer;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.remove(), 60_000);

/** A deterministic embedder: words hashed into 8 dimensions, unit length. */
function embed(text: string): Float32Array {
  const out = new Float32Array(MODEL.dimensions);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 0;
    for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    const at = h % MODEL.dimensions;
    out[at] = (out[at] ?? 0) + 1;
  }
  const norm = Math.hypot(...out) || 1;
  return out.map((x) => x / norm);
}

function vectorsOf(memory: PendingMemory) {
  return {
    id: memory.id,
    hash: memory.hash,
    spans: [{ lineStart: 1, lineEnd: memory.text.split("\n").length }],
    vectors: embed(memory.text),
  };
}

/** Every memory of the default namespace by dense similarity to `words`, as `search` ranks it. */
async function scanDefault(engine: PgEngine, search: DenseSearch, words: string) {
  const { rows } = await engine.pool.query<{ id: number }>(
    "SELECT id FROM hms_namespaces WHERE name = 'default'",
  );
  const client = await engine.pool.connect();
  try {
    return (await search.scan(client, rows[0]?.id as number, embed(words))).best(1000);
  } finally {
    client.release();
  }
}

/** Embeds everything queued, `limit` memories per claim, as one replica's indexer would. */
async function embedQueued(engine: PgEngine, limit: number): Promise<void> {
  for (;;) {
    const batch = (await engine.embeddings?.claim({ worker: "w", limit, leaseMs: 60_000 })) ?? [];
    if (batch.length === 0) return;
    await engine.embeddings?.save(batch.map(vectorsOf));
  }
}

async function openEngines(url: string, n: number, model = MODEL): Promise<PgEngine[]> {
  return await Promise.all(
    Array.from({ length: n }, () => PgEngine.open({ url, poolSize: 3, embeddings: { model } })),
  );
}

describe("embedding queue on PostgreSQL", () => {
  it("3 replicas embedding one queue of 121 memories embed each exactly once", async () => {
    const url = server.createDatabase("queue_once");
    const engines = await openEngines(url, 3);
    try {
      const store = await (engines[0] as PgEngine).get("default");
      for (let i = 0; i < 120; i++) {
        await store.remember({ key: `/m/${i}`, text: `memory number ${i} about topic ${i % 7}` });
      }
      expect(await store.embeddingCounts()).toEqual({ pending: 120, embedded: 0 });
      // Every replica sees the whole queue's backlog, other namespaces' included.
      await (await (engines[1] as PgEngine).get("other")).remember({ key: "/o", text: "other" });
      for (const engine of engines) expect(await engine.embeddings?.backlog()).toBe(121);
      const calls = new Map<number, number>();
      const worker = async (engine: PgEngine, name: string) => {
        const embeddings = engine.embeddings;
        if (embeddings === undefined) throw new Error("no embeddings");
        for (;;) {
          const batch = await embeddings.claim({ worker: name, limit: 4, leaseMs: 60_000 });
          if (batch.length === 0) return;
          for (const memory of batch) calls.set(memory.id, (calls.get(memory.id) ?? 0) + 1);
          // Let the other replicas run between claim and save, as a model would.
          await new Promise((resolve) => setTimeout(resolve, 5));
          expect(await embeddings.save(batch.map(vectorsOf))).toBe(batch.length);
        }
      };
      await Promise.all(engines.map((engine, i) => worker(engine, `replica-${i}`)));
      expect(calls.size).toBe(121);
      expect([...calls.values()].every((n) => n === 1)).toBe(true);
      expect(await store.embeddingCounts()).toEqual({ pending: 0, embedded: 120 });
      for (const engine of engines) expect(await engine.embeddings?.backlog()).toBe(0);
      // Every replica's dense search finds each memory's own vector nearest to itself.
      for (const engine of engines) {
        const other = await engine.get("default");
        const text = "memory number 42 about topic 0";
        const result = await other.recall("zzzz", { vector: embed(text), k: 20 });
        expect(result.build).toBe("hybrid");
        // Hashed words can collide: every memory with the very same vector ties for first.
        const best = result.hits[0]?.score;
        const top = result.hits.filter((hit) => hit.score === best).map((hit) => hit.key);
        expect(top).toContain("/m/42");
      }
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
    }
  }, 120_000);

  it("a claim whose replica died is taken over once its lease expires", async () => {
    const url = server.createDatabase("queue_lease");
    const [a, b] = (await openEngines(url, 2)) as [PgEngine, PgEngine];
    try {
      const store = await a.get("default");
      await store.remember({ key: "/m/one", text: "one" });
      const taken = await a.embeddings?.claim({ worker: "a", limit: 10, leaseMs: 500 });
      expect(taken?.map((m) => m.text)).toEqual(["one"]);
      // Replica a "dies" holding the claim: b finds nothing until the lease runs out.
      expect(await b.embeddings?.claim({ worker: "b", limit: 10, leaseMs: 500 })).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 700));
      const retaken =
        (await b.embeddings?.claim({ worker: "b", limit: 10, leaseMs: 60_000 })) ?? [];
      expect(retaken.map((m) => m.text)).toEqual(["one"]);
      expect(await b.embeddings?.save(retaken.map(vectorsOf))).toBe(1);
      expect(await store.embeddingCounts()).toEqual({ pending: 0, embedded: 1 });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it("vectors of a text changed since the claim are not saved; the new text stays queued", async () => {
    const url = server.createDatabase("queue_stale");
    const [engine] = (await openEngines(url, 1)) as [PgEngine];
    try {
      const store = await engine.get("default");
      await store.remember({ key: "/m/a", text: "first text" });
      const [claimed] =
        (await engine.embeddings?.claim({ worker: "w", limit: 1, leaseMs: 60_000 })) ?? [];
      await store.remember({ key: "/m/a", text: "second text" });
      expect(await engine.embeddings?.save([vectorsOf(claimed as PendingMemory)])).toBe(0);
      expect(await store.embeddingCounts()).toEqual({ pending: 1, embedded: 0 });
      // The rewrite released the claim: the new text can be claimed at once.
      const again =
        (await engine.embeddings?.claim({ worker: "w", limit: 1, leaseMs: 60_000 })) ?? [];
      expect(again.map((m) => m.text)).toEqual(["second text"]);
      expect(await engine.embeddings?.save(again.map(vectorsOf))).toBe(1);
      // Tags alone do not change the text: nothing is queued; a move keeps the vectors.
      await store.remember({ key: "/m/a", text: "second text", tags: ["t"] });
      await store.move("/m/a", "/m/b");
      expect(await store.embeddingCounts()).toEqual({ pending: 0, embedded: 1 });
      expect(await store.queuedIds(["/m/b"])).toEqual([]);
      await store.forget("/m/b");
      expect(await store.embeddingCounts()).toEqual({ pending: 0, embedded: 0 });
    } finally {
      await engine.close();
    }
  }, 60_000);

  it("a replica's dense search never serves vectors another replica deleted or replaced", async () => {
    const url = server.createDatabase("dense_fresh");
    const [a, b] = (await openEngines(url, 2)) as [PgEngine, PgEngine];
    try {
      const store = await a.get("default");
      await store.remember({ key: "/m/x", text: "alpha beta" });
      await store.remember({ key: "/m/y", text: "gamma delta" });
      const batch = (await a.embeddings?.claim({ worker: "a", limit: 10, leaseMs: 60_000 })) ?? [];
      await a.embeddings?.save(batch.map(vectorsOf));
      const reader = await b.get("default");
      const first = await reader.recall("qqqq", { vector: embed("alpha beta"), k: 5 });
      expect(first.hits.map((hit) => hit.key)).toContain("/m/x");
      await store.forget("/m/x");
      const second = await reader.recall("qqqq", { vector: embed("alpha beta"), k: 5 });
      expect(second.hits.map((hit) => hit.key)).not.toContain("/m/x");
      // y's text replaced by x's words: its new vectors are served once saved.
      await store.remember({ key: "/m/y", text: "alpha beta" });
      const again = (await a.embeddings?.claim({ worker: "a", limit: 10, leaseMs: 60_000 })) ?? [];
      await a.embeddings?.save(again.map(vectorsOf));
      const third = await reader.recall("qqqq", { vector: embed("alpha beta"), k: 5 });
      expect(third.hits.map((hit) => hit.key)).toEqual(["/m/y"]);
      expect(third.hits[0]?.excerpt).toBe("alpha beta");
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it("a replica's copy applies every change made since it was read, and only those", async () => {
    const url = server.createDatabase("dense_incremental");
    const [writer, reader] = (await openEngines(url, 2)) as [PgEngine, PgEngine];
    const embedQueue = (limit: number) => embedQueued(writer, limit);
    // Every memory's dense similarity and best passage, as the engine's copy gives them, and
    // as a new copy read whole from the database gives them.
    const nearest = (dense: DenseSearch, words: string) => scanDefault(reader, dense, words);
    try {
      const store = await writer.get("default");
      for (let i = 0; i < 20; i++) {
        await store.remember({ key: `/m/${i}`, text: `note ${i} about topic ${i % 5}` });
      }
      await embedQueue(50);
      const dense = reader.embeddings?.dense as DenseSearch;
      await nearest(dense, "topic 1");
      expect(dense.counters).toMatchObject({ full: 1, incremental: 0 });
      let next = 20;
      for (let round = 0; round < 4; round++) {
        // New memories, rewritten ones (saved in their own transactions), deletions.
        for (let j = 0; j < 3; j++) {
          await store.remember({ key: `/m/${next}`, text: `note ${next} about topic ${next % 5}` });
          next++;
        }
        await store.remember({ key: `/m/${round}`, text: `rewritten ${round} words ${round * 7}` });
        await store.remember({ key: `/m/${round + 10}`, text: `rewritten topic ${round}` });
        await store.forget(`/m/${round + 5}`);
        await embedQueue(round % 2 === 0 ? 1 : 50);
        for (const words of ["topic 1", `rewritten ${round}`, "note about"]) {
          const kept = await nearest(dense, words);
          expect(kept).toEqual(await nearest(new DenseSearch(), words));
          expect(kept).toHaveLength(20 + 3 * (round + 1) - (round + 1));
        }
        // Recall through the store ranks with the same copy.
        const recalled = await (await reader.get("default")).recall("zzzz", {
          vector: embed(`rewritten ${round} words ${round * 7}`),
          k: MAX_RECALL_K,
        });
        expect(recalled.hits[0]?.key).toBe(`/m/${round}`);
      }
      // Brought up to date from the log, never read whole again; only what changed was read
      // (3 new, 2 rewritten and 1 deleted memory per round).
      expect(dense.counters).toEqual({ full: 1, incremental: 4, changedMemories: 4 * 6 });
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  }, 120_000);

  it("drops old tombstones from the change log; a copy older than that is read whole", async () => {
    const url = server.createDatabase("dense_pruned");
    const [writer, reader] = (await openEngines(url, 2)) as [PgEngine, PgEngine];
    const embedQueue = () => embedQueued(writer, 50);
    const log = async () => {
      const { rows } = await writer.pool.query<{ tombstones: number; pruned_through: number }>(
        `SELECT (SELECT count(*)::integer FROM hms_vector_changes c
                 WHERE NOT EXISTS (SELECT 1 FROM hms_memory_vectors v WHERE v.memory_id = c.memory_id))
                  AS tombstones,
                (SELECT pruned_through FROM hms_embedding_models) AS pruned_through`,
      );
      return rows[0];
    };
    const dense = reader.embeddings?.dense as DenseSearch;
    const keysNearest = (search: DenseSearch, words: string) => scanDefault(reader, search, words);
    try {
      const store = await writer.get("default");
      for (let i = 0; i < 10; i++) {
        await store.remember({ key: `/m/${i}`, text: `note ${i} about topic ${i % 3}` });
      }
      await embedQueue();
      expect(await keysNearest(dense, "topic 1")).toHaveLength(10);
      expect(dense.counters.full).toBe(1);

      // Deletions leave tombstones; recent ones are kept by the default horizon.
      for (const i of [2, 5, 7]) await store.forget(`/m/${i}`);
      await store.remember({ key: "/m/new", text: "a new note about topic 1" });
      await embedQueue();
      expect(await log()).toEqual({ tombstones: 3, pruned_through: 0 });
      expect(await writer.embeddings?.pruneVectorChanges()).toBe(0);

      // Pruned to the counter: the reader's copy predates the horizon, so it is read whole
      // (its log no longer says which memories were deleted) and ranks none of them.
      expect(await writer.embeddings?.pruneVectorChanges(0)).toBe(3);
      expect(await log()).toMatchObject({ tombstones: 0 });
      expect((await log())?.pruned_through).toBeGreaterThan(0);
      const after = await keysNearest(dense, "topic 1");
      expect(after).toEqual(await keysNearest(new DenseSearch(), "topic 1"));
      expect(after).toHaveLength(8);
      expect(dense.counters.full).toBe(2);

      // Later changes are applied from the log again.
      await store.forget("/m/0");
      const incremental = dense.counters.incremental;
      expect(await keysNearest(dense, "topic 1")).toHaveLength(7);
      expect(dense.counters).toMatchObject({ full: 2, incremental: incremental + 1 });
      await expect(writer.embeddings?.pruneVectorChanges(-1)).rejects.toThrow(/keepChanges/);
    } finally {
      await Promise.all([writer.close(), reader.close()]);
    }
  }, 120_000);

  it("hybrid recall fuses BM25 with the nearest vectors, filters both, shows the passage", async () => {
    const url = server.createDatabase("hybrid_recall");
    const [engine] = (await openEngines(url, 1)) as [PgEngine];
    try {
      const store = await engine.get("default");
      await store.remember({ key: "/a/lexical", text: "the quick brown fox" });
      await store.remember({ key: "/a/dense", text: "title\nsomething entirely else\nmore" });
      await store.remember({ key: "/b/dense", text: "title\nsomething entirely else\nmore" });
      const batch =
        (await engine.embeddings?.claim({ worker: "w", limit: 10, leaseMs: 60_000 })) ?? [];
      await engine.embeddings?.save(
        batch.map((memory) => ({
          ...vectorsOf(memory),
          spans: [{ lineStart: 2, lineEnd: 2 }],
        })),
      );
      // This server has no pgvector (Debian 12 does not package it): the exact scan serves.
      expect(engine.embeddings?.pgvector).toBe(false);
      expect(engine.embeddings?.dense).toBeInstanceOf(DenseSearch);
      const vector = embed("title something entirely else more");
      const lexical = await store.recall("quick fox", {});
      expect(lexical).toMatchObject({ build: "lexical" });
      expect(lexical.hits.map((hit) => hit.key)).toEqual(["/a/lexical"]);
      const hybrid = await store.recall("quick fox", { vector, prefix: "/a/" });
      expect(hybrid.build).toBe("hybrid");
      expect(hybrid.hits.map((hit) => hit.key).sort()).toEqual(["/a/dense", "/a/lexical"]);
      const dense = hybrid.hits.find((hit) => hit.key === "/a/dense");
      // A semantic-only hit's excerpt starts at its best passage, not at the first line.
      expect(dense).toMatchObject({ line_start: 2 });
      expect(dense?.excerpt).toMatch(/^something entirely else/);
      expect((await store.stats()).recall).toEqual({
        build: "hybrid",
        model: MODEL.id,
        pending: 0,
      });
    } finally {
      await engine.close();
    }
  }, 60_000);

  it("hybrid recall filters both rankings by time before taking k", async () => {
    const url = server.createDatabase("hybrid_time");
    const [engine] = (await openEngines(url, 1)) as [PgEngine];
    try {
      const store = await engine.get("default");
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
      // The old memories match the query better, by word and by meaning.
      await store.load([
        record("/old/lexical", "quick fox quick fox", "2026-01-01T00:00:00.000Z"),
        record("/old/dense", "something entirely else", "2026-01-02T00:00:00.000Z"),
        record("/new/lexical", "a quick fox among other words", "2026-06-01T00:00:00.000Z"),
        record("/new/dense", "something entirely else and more", "2026-06-02T00:00:00.000Z"),
      ]);
      await embedQueued(engine, 10);
      const vector = embed("something entirely else");
      const found = async (options: { modifiedAfter?: string; modifiedBefore?: string }) =>
        (await store.recall("quick fox", { vector, k: 2, ...options })).hits
          .map((hit) => [hit.key, hit.updated_at])
          .sort();
      // The best two hold an old one, so a filter applied after taking them would leave one.
      expect((await found({})).filter(([key]) => key?.startsWith("/old/")).length).toBeGreaterThan(
        0,
      );
      expect(await found({ modifiedAfter: "2026-05-01T00:00:00Z" })).toEqual([
        ["/new/dense", "2026-06-02T00:00:00.000Z"],
        ["/new/lexical", "2026-06-01T00:00:00.000Z"],
      ]);
      expect(
        await found({
          modifiedAfter: "2026-01-01T12:00:00.001+12:00",
          modifiedBefore: "2026-06-01T00:00:00Z",
        }),
      ).toEqual([["/old/dense", "2026-01-02T00:00:00.000Z"]]);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it("hybrid recall takes each lexical candidate's BM25 as a share of the query's ceiling", async () => {
    const url = server.createDatabase("hybrid_ceiling");
    const [engine] = (await openEngines(url, 1)) as [PgEngine];
    try {
      const store = await engine.get("default");
      await store.remember({ key: "/a", text: "alpha beta gamma" });
      await store.remember({ key: "/b", text: "beta delta" });
      for (const key of ["/c", "/d", "/e"]) await store.remember({ key, text: "epsilon zeta" });
      // No memory has vectors yet, so fusion scores each by its lexical share alone: the same
      // score lexical recall gives it (fused raw BM25 would be clamped to 1 instead).
      const lexical = await store.recall("alpha beta", { k: 5 });
      const hybrid = await store.recall("alpha beta", { k: 5, vector: embed("alpha beta") });
      expect(hybrid.build).toBe("hybrid");
      expect(lexical.hits.map((hit) => hit.key)).toEqual(["/a", "/b"]);
      expect(hybrid.hits.map((hit) => hit.key)).toEqual(["/a", "/b"]);
      hybrid.hits.forEach((hit, i) => {
        expect(hit.score).toBeCloseTo(lexical.hits[i]?.score as number, 12);
      });
      expect(hybrid.hits[0]?.score).toBeLessThan(0.6);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it("a namespace holding another model's vectors is refused, unless reembed", async () => {
    const url = server.createDatabase("model_check");
    const [engine] = (await openEngines(url, 1)) as [PgEngine];
    await (await engine.get("default")).remember({ key: "/m/a", text: "a" });
    await engine.close();
    const other = { id: "other-model", dimensions: 8 };
    const [wrong] = (await openEngines(url, 1, other)) as [PgEngine];
    try {
      const error = await wrong.get("default").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(EmbeddingModelMismatchError);
      expect((error as Error).message).toMatch(
        /namespace default holds vectors made by the embedding model test-embedder-8, not other-model/,
      );
    } finally {
      await wrong.close();
    }
    const replacing = await PgEngine.open({ url, embeddings: { model: other, reembed: true } });
    try {
      const store = await replacing.get("default");
      expect(await store.embeddingCounts()).toEqual({ pending: 1, embedded: 0 });
      expect((await store.stats()).recall.model).toBe("other-model");
    } finally {
      await replacing.close();
    }
  }, 60_000);

  it("a namespace of a model the new one replaces is re-embedded on its own (an upgrade)", async () => {
    const url = server.createDatabase("model_upgrade");
    const [engine] = (await openEngines(url, 1)) as [PgEngine];
    await (await engine.get("default")).remember({ key: "/m/a", text: "a" });
    await engine.close();
    const upgraded = { id: "upgraded-model", dimensions: 8 };
    // Naming another model is not enough: that namespace is still refused.
    const unrelated = await PgEngine.open({
      url,
      embeddings: { model: upgraded, replaces: ["x"] },
    });
    try {
      await expect(unrelated.get("default")).rejects.toBeInstanceOf(EmbeddingModelMismatchError);
    } finally {
      await unrelated.close();
    }
    const upgrade = await PgEngine.open({
      url,
      embeddings: { model: upgraded, replaces: ["test-embedder-8"] },
    });
    try {
      const store = await upgrade.get("default");
      expect(await store.embeddingCounts()).toEqual({ pending: 1, embedded: 0 });
      expect((await store.stats()).recall.model).toBe("upgraded-model");
    } finally {
      await upgrade.close();
    }
  }, 60_000);

  it("refuses a bad model or claim with a reason", async () => {
    const url = server.createDatabase("refusals");
    await expect(
      PgEngine.open({ url, embeddings: { model: { id: "bad id", dimensions: 8 } } }),
    ).rejects.toThrow(/printable ASCII/);
    await expect(
      PgEngine.open({ url, embeddings: { model: { id: "m", dimensions: 0 } } }),
    ).rejects.toThrow(/1 to 8192 dimensions/);
    await expect(
      PgEngine.open({
        url,
        embeddings: { model: MODEL, dense: "hnsw" as unknown as "auto" },
      }),
    ).rejects.toThrow(/embeddings.dense is "auto" or "exact"/);
    const [engine] = (await openEngines(url, 1)) as [PgEngine];
    try {
      const error = await engine.embeddings
        ?.claim({ worker: "w", limit: 0, leaseMs: 1000 })
        .catch((e: unknown) => e);
      expect(isStoreError(error, "INVALID_ARGUMENT")).toBe(true);
      await expect(
        engine.embeddings?.save([
          { id: 1, hash: "h", spans: [{ lineStart: 1, lineEnd: 1 }], vectors: new Float32Array(3) },
        ]),
      ).rejects.toThrow(/1 passages need 8 floats, got 3/);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
