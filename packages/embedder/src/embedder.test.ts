import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Embedder, loadEmbedder } from "./embedder.js";
import { cosine } from "./pooling.js";

const norm = (v: Float32Array) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

describe("loadEmbedder with the real all-MiniLM-L6-v2 model", () => {
  let embedder: Embedder;

  beforeAll(async () => {
    embedder = await loadEmbedder(inject("modelDir"));
  });
  afterAll(async () => {
    await embedder.close();
  });

  it("describes its vectors", () => {
    expect(embedder.modelId).toBe("all-MiniLM-L6-v2-int8");
    expect(embedder.dimensions).toBe(384);
    expect(embedder.maxTokens).toBe(256);
    expect(embedder.normalized).toBe(true);
  });

  it("returns one unit-length Float32Array of 384 numbers per text, in order", async () => {
    const texts = ["first text", "a second, somewhat longer text about something else", "3"];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(3);
    for (const vector of vectors) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(384);
      expect(norm(vector)).toBeCloseTo(1, 5);
    }
    const reversed = await embedder.embed([...texts].reverse());
    expect(cosine(reversed[2] as Float32Array, vectors[0] as Float32Array)).toBeCloseTo(1, 6);
    expect(cosine(reversed[0] as Float32Array, vectors[2] as Float32Array)).toBeCloseTo(1, 6);
  });

  it("counts a text's tokens without special tokens and without the cut", () => {
    expect(embedder.countTokens("")).toBe(0);
    expect(embedder.countTokens("email")).toBe(1);
    const long = "word ".repeat(300);
    expect(embedder.countTokens(long)).toBe(300);
    expect(() => embedder.countTokens(42 as unknown as string)).toThrow(TypeError);
  });

  it("gives identical texts a cosine of 1", async () => {
    const [a, b] = await embedder.embed([
      "The deploy runs every Tuesday.",
      "The deploy runs every Tuesday.",
    ]);
    expect(cosine(a as Float32Array, b as Float32Array)).toBeCloseTo(1, 6);
  });

  it("scores a paraphrase above an unrelated sentence", async () => {
    const [text, paraphrase, unrelated] = await embedder.embed([
      "The cat is sleeping on the sofa.",
      "A cat naps on the couch.",
      "Quarterly interest rates rose sharply.",
    ]);
    const close = cosine(text as Float32Array, paraphrase as Float32Array);
    const far = cosine(text as Float32Array, unrelated as Float32Array);
    expect(close).toBeGreaterThan(far + 0.3);
  });

  it("finds the memory about a client when asked how to contact them", async () => {
    const [query, client, unrelated] = await embedder.embed([
      "how should I contact that client?",
      "Acme Corp prefers email follow-ups",
      "The build cache lives in the turbo directory",
    ]);
    expect(cosine(query as Float32Array, client as Float32Array)).toBeGreaterThan(
      cosine(query as Float32Array, unrelated as Float32Array),
    );
  });

  it("gives a text the same vector alone or batched with longer texts (padding is masked)", async () => {
    const text = "Acme Corp prefers email follow-ups";
    const long = "Alterations of cerebral white matter affect cortical development. ".repeat(20);
    const [alone] = await embedder.embed([text]);
    const [batched] = await embedder.embed([long, text, "hi"]).then((v) => [v[1]]);
    expect(cosine(alone as Float32Array, batched as Float32Array)).toBeCloseTo(1, 5);
  });

  it("cuts texts at 256 tokens: what follows the cut does not change the vector", async () => {
    const long = "memory files hold facts about users and projects ".repeat(40); // ~320 tokens
    const [cut, cutWithMore, shorter] = await embedder.embed([
      long,
      `${long} and a completely different ending about volcanoes`,
      "memory files hold facts about users and projects ".repeat(10),
    ]);
    expect(cosine(cut as Float32Array, cutWithMore as Float32Array)).toBeCloseTo(1, 6);
    expect(cosine(cut as Float32Array, shorter as Float32Array)).toBeLessThan(0.99999);
  });

  it("embeds an empty list as an empty list", async () => {
    expect(await embedder.embed([])).toEqual([]);
  });

  it("serves concurrent calls one after another with the same results", async () => {
    const texts = ["alpha beta", "gamma delta epsilon"];
    const [one, two] = await Promise.all([embedder.embed(texts), embedder.embed(texts)]);
    expect(cosine(one?.[1] as Float32Array, two?.[1] as Float32Array)).toBeCloseTo(1, 6);
  });

  it("refuses anything but an array of strings", async () => {
    await expect(embedder.embed("just a string" as unknown as string[])).rejects.toThrow(
      /array of strings/,
    );
    await expect(embedder.embed(["ok", 42 as unknown as string])).rejects.toThrow(
      /item 1 is number/,
    );
  });
});

describe("loadEmbedder options", () => {
  it("gives the same vectors whatever the batch size, thread count and spinning", async () => {
    const texts = ["short", "a rather longer sentence with more tokens in it", "mid length text"];
    const one = await loadEmbedder(inject("modelDir"), { batchSize: 1, threads: 1 });
    const many = await loadEmbedder(inject("modelDir"), {
      batchSize: 32,
      batchTokens: Number.POSITIVE_INFINITY,
      threads: 2,
      spin: true,
    });
    try {
      const a = await one.embed(texts);
      const b = await many.embed(texts);
      a.forEach((vector, i) => {
        expect(cosine(vector, b[i] as Float32Array)).toBeCloseTo(1, 5);
      });
    } finally {
      await one.close();
      await many.close();
    }
  });

  it("refuses a thread count or batch size that is not a positive integer", async () => {
    await expect(loadEmbedder(inject("modelDir"), { threads: 0 })).rejects.toThrow(
      /threads must be a positive integer, got 0/,
    );
    await expect(loadEmbedder(inject("modelDir"), { batchSize: 2.5 })).rejects.toThrow(
      /batchSize must be a positive integer, got 2.5/,
    );
    await expect(loadEmbedder(inject("modelDir"), { batchTokens: -1 })).rejects.toThrow(
      /batchTokens must be a positive integer or Infinity, got -1/,
    );
  });

  it("runs the native runtime when it is installed, and WebAssembly on request, to the same vectors", async () => {
    const texts = [
      "",
      "how should I contact that client?",
      "Alterations of cerebral white matter affect cortical development. ".repeat(20),
    ];
    const auto = await loadEmbedder(inject("modelDir"));
    const wasm = await loadEmbedder(inject("modelDir"), { runtime: "wasm", threads: 2 });
    try {
      // onnxruntime-node is a devDependency here, so auto finds it.
      expect(auto.runtime).toBe("onnxruntime-node");
      expect(wasm.runtime).toBe("onnxruntime-web");
      const a = await auto.embed(texts);
      const b = await wasm.embed(texts);
      a.forEach((vector, i) => {
        expect(cosine(vector, b[i] as Float32Array)).toBeGreaterThan(0.999);
      });
    } finally {
      await auto.close();
      await wasm.close();
    }
  });

  it("refuses an unknown runtime", async () => {
    await expect(
      loadEmbedder(inject("modelDir"), { runtime: "gpu" as unknown as "wasm" }),
    ).rejects.toThrow(/runtime must be one of auto, native, wasm, got "gpu"/);
  });

  it("fails embed calls after close", async () => {
    const embedder = await loadEmbedder(inject("modelDir"));
    await embedder.close();
    await expect(embedder.embed(["x"])).rejects.toThrow(/closed/);
  });
});
