import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  EmbeddingModelMismatchError,
  type MemoryVectors,
  type PendingMemory,
} from "./embeddings.js";
import { openSqlite } from "./sqlite/driver.js";
import { MemoryStore } from "./store.js";

const MODEL = { id: "test-model-4d", dimensions: 4 };

let dir: string;
let file: string;
const open: MemoryStore[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hms-embeddings-"));
  file = join(dir, "store.sqlite");
});
afterEach(() => {
  for (const store of open.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

function openStore(options: Parameters<typeof MemoryStore.open>[1] = {}): MemoryStore {
  const store = MemoryStore.open(file, options);
  open.push(store);
  return store;
}

function hybrid(reembed = false, model = MODEL): MemoryStore {
  return openStore({ embeddings: { model, reembed } });
}

/** One unit vector per memory: axis `axis` of the 4 dimensions. */
function axisVectors(memory: PendingMemory, axis: number): MemoryVectors {
  const vectors = new Float32Array(4);
  vectors[axis] = 1;
  return { id: memory.id, hash: memory.hash, spans: [{ lineStart: 1, lineEnd: 1 }], vectors };
}

describe("the embedding queue", () => {
  it("stays empty in a store that never had a model", () => {
    const store = openStore();
    store.remember({ key: "a", text: "alpha" });
    const db = openSqlite(file);
    expect(db.prepare("SELECT count(*) AS n FROM embedding_queue").get()).toEqual({ n: 0 });
    db.close();
    expect(store.stats().recall).toEqual({ build: "lexical", model: null, pending: 0 });
  });

  it("queues every existing memory when a model is added (the backfill), newest first", () => {
    const lexical = openStore();
    lexical.remember({ key: "old", text: "first" });
    lexical.remember({ key: "new", text: "second" });
    lexical.close();

    const store = hybrid();
    expect(store.stats().recall).toEqual({ build: "hybrid", model: MODEL.id, pending: 2 });
    const pending = store.embeddings?.pending(10) ?? [];
    expect(pending.map((memory) => memory.text)).toEqual(["second", "first"]);
  });

  it("queues new and changed texts, but not a rewrite with the same text", () => {
    const store = hybrid();
    const embeddings = store.embeddings;
    if (embeddings === undefined) throw new Error("no embeddings");
    store.remember({ key: "a", text: "alpha" });
    store.remember({ key: "b", text: "beta" });
    expect(embeddings.save(embeddings.pending(10).map((m, i) => axisVectors(m, i)))).toBe(2);
    expect(embeddings.pendingCount()).toBe(0);

    store.remember({ key: "a", text: "alpha", tags: ["x"] });
    store.move("b", "c");
    expect(embeddings.pendingCount()).toBe(0);

    store.remember({ key: "a", text: "alpha, changed" });
    expect(embeddings.pending(10).map((m) => m.text)).toEqual(["alpha, changed"]);
  });

  it("drops vectors computed from a text that changed meanwhile", () => {
    const store = hybrid();
    const embeddings = store.embeddings;
    if (embeddings === undefined) throw new Error("no embeddings");
    store.remember({ key: "a", text: "before" });
    const [stale] = embeddings.pending(1);
    if (stale === undefined) throw new Error("nothing pending");
    store.remember({ key: "a", text: "after" });
    expect(embeddings.save([axisVectors(stale, 0)])).toBe(0);
    expect(embeddings.pending(10).map((m) => m.text)).toEqual(["after"]);
  });

  it("refuses vectors of the wrong size", () => {
    const store = hybrid();
    store.remember({ key: "a", text: "alpha" });
    const [memory] = store.embeddings?.pending(1) ?? [];
    if (memory === undefined) throw new Error("nothing pending");
    expect(() =>
      store.embeddings?.save([{ ...axisVectors(memory, 0), vectors: new Float32Array(3) }]),
    ).toThrow(/4 floats, got 3/);
  });

  it("finds a queued memory by key and the queued ones among given ids", () => {
    const store = hybrid();
    const embeddings = store.embeddings;
    if (embeddings === undefined) throw new Error("no embeddings");
    expect(embeddings.queuedIdOf("a")).toBeUndefined();
    for (const key of ["a", "b", "c"]) store.remember({ key, text: key });
    const a = embeddings.queuedIdOf("a");
    const c = embeddings.queuedIdOf("c");
    if (a === undefined || c === undefined) throw new Error("not queued");
    expect(embeddings.pendingAmong([a, c]).map((m) => m.text)).toEqual(["c", "a"]);
    expect(embeddings.pendingAmong([])).toEqual([]);
    const [first] = embeddings.pendingAmong([a]);
    if (first === undefined) throw new Error("nothing pending");
    expect(embeddings.embeddedCount()).toBe(0);
    embeddings.save([axisVectors(first, 0)]);
    expect(embeddings.embeddedCount()).toBe(1);
    expect(embeddings.queuedIdOf("a")).toBeUndefined();
    expect(embeddings.pendingAmong([a, c]).map((m) => m.text)).toEqual(["c"]);
    expect(embeddings.pendingCount()).toBe(2);
  });
});

describe("the store's embedding model", () => {
  it("is recorded on first open and accepted again", () => {
    hybrid().close();
    expect(hybrid().stats().recall.model).toBe(MODEL.id);
  });

  it("refuses a store whose vectors another model made, saying which", () => {
    hybrid().close();
    const other = { id: "other-model", dimensions: 4 };
    let error: unknown;
    try {
      hybrid(false, other);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(EmbeddingModelMismatchError);
    expect((error as Error).message).toContain(`vectors made by the embedding model ${MODEL.id}`);
    expect((error as EmbeddingModelMismatchError).stored).toBe(MODEL.id);
  });

  it("re-embeds everything with another model only when asked", () => {
    const first = hybrid();
    first.remember({ key: "a", text: "alpha" });
    const embeddings = first.embeddings;
    if (embeddings === undefined) throw new Error("no embeddings");
    embeddings.save(embeddings.pending(10).map((m) => axisVectors(m, 0)));
    expect(first.stats().recall.pending).toBe(0);
    first.close();

    const other = { id: "other-model", dimensions: 4 };
    const second = hybrid(true, other);
    expect(second.stats().recall).toEqual({
      build: "hybrid",
      model: "other-model",
      pending: 1,
      replacing: MODEL.id,
    });
    second.close();
    expect(() => hybrid(false, MODEL)).toThrow(EmbeddingModelMismatchError);
  });

  it("re-embeds a store of a model the new one replaces, and says so until it is done", () => {
    const first = hybrid();
    first.remember({ key: "a", text: "alpha" });
    first.remember({ key: "b", text: "beta" });
    const old = first.embeddings;
    if (old === undefined) throw new Error("no embeddings");
    old.save(old.pending(10).map((m) => axisVectors(m, 0)));
    first.close();

    // A model that does not name the stored one is still refused.
    const unrelated = { id: "unrelated-model", dimensions: 4 };
    expect(() => openStore({ embeddings: { model: unrelated, replaces: ["x"] } })).toThrow(
      EmbeddingModelMismatchError,
    );

    const upgrade = { id: "upgraded-model", dimensions: 4 };
    const second = openStore({ embeddings: { model: upgrade, replaces: [MODEL.id] } });
    expect(second.stats().recall).toEqual({
      build: "hybrid",
      model: "upgraded-model",
      pending: 2,
      replacing: MODEL.id,
    });
    // Recall answers meanwhile: the memories not re-embedded yet rank lexically.
    expect(second.recall("beta", { vector: new Float32Array([0, 1, 0, 0]) }).hits[0]?.key).toBe(
      "b",
    );
    const embeddings = second.embeddings;
    if (embeddings === undefined) throw new Error("no embeddings");
    const [newest, ...rest] = embeddings.pending(10);
    embeddings.save([axisVectors(newest as PendingMemory, 1)]);
    expect(second.stats().recall).toMatchObject({ pending: 1, replacing: MODEL.id });
    embeddings.save(rest.map((m) => axisVectors(m, 1)));
    expect(second.stats().recall).toEqual({ build: "hybrid", model: "upgraded-model", pending: 0 });
    second.close();
    // Reopened with the new model: nothing to replace any more.
    expect(hybrid(false, upgrade).stats().recall).toEqual({
      build: "hybrid",
      model: "upgraded-model",
      pending: 0,
    });
  });

  it("a lexical open of a hybrid store still works and keeps queueing", () => {
    hybrid().close();
    const lexical = openStore();
    lexical.remember({ key: "a", text: "written without the model" });
    expect(lexical.recall("model").hits.map((hit) => hit.key)).toEqual(["a"]);
    lexical.close();
    expect(hybrid().stats().recall.pending).toBe(1);
  });
});
