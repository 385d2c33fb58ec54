/**
 * Hybrid recall through the real hms-mcp process and the real embedding model
 * (all-MiniLM-L6-v2, fetched by the test set-up): semantic hits, the lexical build beside it,
 * backfill, vectors following edits, moves and deletes, the model-mismatch refusal, the
 * server staying responsive while it embeds, and the lexical build never loading the model.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryStore, storeFileName } from "@hms/store";
import { openSqlite } from "@hms/store/internal";
import {
  cleanEnv,
  hmsMcpBin,
  ok,
  PARAPHRASES,
  refused,
  startHybridWithParaphrases,
  startStdio,
  tempDir,
  untilEmbedded,
} from "@hms/test-support";
import { afterEach, describe, expect, inject, it } from "vitest";

const MODEL_ID = "all-MiniLM-L6-v2-int8";
const modelDir = inject("modelDir");
const hybridArgs = ["--model-dir", modelDir];
const BLOCK_EMBEDDER = fileURLToPath(new URL("./fixtures/block-embedder.mjs", import.meta.url));
const BLOCK_NATIVE = fileURLToPath(new URL("./fixtures/block-native-runtime.mjs", import.meta.url));
const WORKER_DIES = fileURLToPath(new URL("./fixtures/worker-dies.mjs", import.meta.url));
/** A text that ends the embedding worker of a server started with WORKER_DIES. */
const DIE_MARKER = "END THE EMBEDDING WORKER NOW";

const { query: CONTACT, answer: ACME, others: OTHERS } = PARAPHRASES;

interface Hit {
  key: string;
  score: number;
  excerpt: string;
  line_start: number;
  line_end: number;
}
interface Recall {
  hits: Hit[];
  build: string;
}
interface Stats {
  recall: {
    build: string;
    model: string | null;
    pending: number;
    failure: string | null;
    embedded: number;
    embedded_per_second: number | null;
    replacing?: string | null;
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dataDir(): string {
  const data = tempDir();
  cleanups.push(data.remove);
  return data.dir;
}

async function server(dir: string, args: string[] = [], nodeArgs: string[] = []) {
  const started = await startStdio({ dataDir: dir, args, nodeArgs });
  cleanups.push(started.close);
  return started;
}

/** The store file of a namespace in a data directory, for set-up and inspection. */
function storeFile(dir: string, namespace = "default"): string {
  mkdirSync(join(dir, "namespaces"), { recursive: true });
  return join(dir, "namespaces", storeFileName(namespace));
}

function run(args: string[]) {
  const result = spawnSync(process.execPath, [hmsMcpBin(), ...args], {
    env: cleanEnv(),
    encoding: "utf8",
    input: "",
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// Embedding runs the model on the CPU: two of these tests took over 60 s under
// ./scripts/test.sh at load 25-35 (every package's tests at once). The limit only stops a hang.
describe("hybrid recall (hms-mcp --model-dir)", { timeout: 240_000 }, () => {
  it("finds a memory with no word in common with the query; the lexical build does not", async () => {
    const dir = dataDir();
    const hybrid = await startHybridWithParaphrases({ dataDir: dir, modelDir });
    cleanups.push(hybrid.close);
    // Right after the writes: recall waits (bounded) for them to be embedded.
    const found = await ok<Recall>(hybrid.client, "recall", { query: CONTACT, k: 2 });
    expect(found.build).toBe("hybrid");
    expect(found.hits[0]).toEqual({
      key: "/memories/acme.md",
      score: expect.any(Number),
      excerpt: ACME,
      line_start: 1,
      line_end: 1,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    // Fused scores: in [0, 1], best first.
    const scores = found.hits.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const score of scores) expect(score >= 0 && score <= 1).toBe(true);
    expect(await ok<Stats>(hybrid.client, "stats")).toMatchObject({
      recall: { build: "hybrid", model: MODEL_ID, pending: 0 },
    });
    await hybrid.close();

    // The same store served without a model: lexical, and no word of the query is in it.
    const lexical = await server(dir);
    expect(await ok<Recall>(lexical.client, "recall", { query: CONTACT })).toEqual({
      hits: [],
      build: "lexical",
    });
    expect(
      (await ok<Recall>(lexical.client, "recall", { query: "email" })).hits.map((h) => h.key),
    ).toEqual(["/memories/acme.md"]);
    expect(await ok<Stats>(lexical.client, "stats")).toMatchObject({
      recall: { build: "lexical", model: null, pending: 0 },
    });
  });

  it("embeds memories written before the model was added (backfill), reporting progress", async () => {
    const dir = dataDir();
    const lexical = await server(dir);
    await ok(lexical.client, "remember", { key: "clients/acme", text: ACME });
    for (let i = 0; i < 80; i++) {
      await ok(lexical.client, "remember", { key: `notes/${i}`, text: `${OTHERS[i % 3]} (${i})` });
    }
    await lexical.close();

    const hybrid = await server(dir, [...hybridArgs, "--log-level", "info"]);
    await untilEmbedded(hybrid.client);
    const result = await ok<Recall>(hybrid.client, "recall", { query: CONTACT, k: 1 });
    expect(result.hits.map((hit) => hit.key)).toEqual(["clients/acme"]);
    expect(hybrid.stderr()).toContain("embedding 81 memories in the background");
    expect(hybrid.stderr()).toMatch(/embedding done: 81 memories/);
  });

  it("keeps vectors with their memory through moves, edits and deletes", async () => {
    const hybrid = await server(dataDir(), hybridArgs);
    const { client } = hybrid;
    await ok(client, "remember", { key: "a/acme", text: ACME });
    for (const [i, text] of OTHERS.entries()) await ok(client, "remember", { key: `b/${i}`, text });
    const top = async (query: string) =>
      (await ok<Recall>(client, "recall", { query, k: 1 })).hits[0]?.key;
    expect(await top(CONTACT)).toBe("a/acme");

    await ok(client, "move", { from: "a/acme", to: "clients/acme" });
    expect(await ok<Stats>(client, "stats")).toMatchObject({ recall: { pending: 0 } });
    expect(await top(CONTACT)).toBe("clients/acme");

    await ok(client, "move", { from_prefix: "clients/", to_prefix: "crm/" });
    expect(await top(CONTACT)).toBe("crm/acme");

    await ok(client, "remember", { key: "crm/acme", text: "Tomatoes need full sun" });
    expect(await top("which plants like sunshine?")).toBe("crm/acme");
    expect(await top(CONTACT)).not.toBe("crm/acme");

    await ok(client, "remember", {
      key: "crm/globex",
      text: "Globex wants phone calls, never email",
    });
    expect(await top(CONTACT)).toBe("crm/globex");
    await ok(client, "forget", { key: "crm/globex" });
    expect(await top(CONTACT)).not.toBe("crm/globex");
    await ok(client, "forget", { prefix: "crm/" });
    // A word of each (a hit of fused score 0 is not returned), so every memory left is found.
    const left = await ok<Recall>(client, "recall", { query: "lunch budget server", k: 50 });
    expect(left.hits.map((hit) => hit.key).sort()).toEqual(["b/0", "b/1", "b/2"]);
  });

  it("applies tag and prefix filters to semantic hits", async () => {
    const hybrid = await server(dataDir(), hybridArgs);
    const { client } = hybrid;
    await ok(client, "remember", { key: "/memories/acme.md", text: ACME, tags: ["memory-file"] });
    await ok(client, "remember", { key: "other/acme", text: ACME });
    const keys = async (args: Record<string, unknown>) =>
      (await ok<Recall>(client, "recall", { query: CONTACT, ...args })).hits.map((h) => h.key);
    expect(await keys({ tag: "memory-file" })).toEqual(["/memories/acme.md"]);
    expect(await keys({ prefix: "other/" })).toEqual(["other/acme"]);
  });

  it("refuses a store whose vectors another model made, and re-embeds it only when asked", async () => {
    const dir = dataDir();
    const first = await server(dir, hybridArgs);
    await ok(first.client, "remember", { key: "acme", text: ACME });
    await untilEmbedded(first.client);
    await first.close();
    const db = openSqlite(storeFile(dir));
    db.prepare(
      "UPDATE store_info SET value = 'some-other-model' WHERE name = 'embedding_model'",
    ).run();
    db.close();

    const atStart = run(["--data-dir", dir, ...hybridArgs]);
    expect(atStart.status).toBe(2);
    expect(atStart.stderr).toContain(
      `namespace default holds vectors made by the embedding model some-other-model, and this server runs ${MODEL_ID}`,
    );
    expect(atStart.stderr).toContain("--reembed");
    // A namespace opened on demand is refused per call, with the same explanation.
    const other = await server(dir, [...hybridArgs, "--namespace", "other", "--namespace-arg"]);
    const call = await refused(other.client, "stats", { namespace: "default" });
    expect(call.code).toBe("INTERNAL");
    expect(call.text).toContain("holds vectors made by the embedding model some-other-model");
    await other.close();

    // More memories, so that the re-embedding is seen under way.
    const more = MemoryStore.open(storeFile(dir), { namespace: "default" });
    more.rememberMany(
      Array.from({ length: 60 }, (_, i) => ({ key: `notes/${i}`, text: `${OTHERS[i % 3]} ${i}` })),
    );
    more.close();
    const replaced = await server(dir, [...hybridArgs, "--reembed"]);
    // Every answer while memories wait says which model's vectors are being replaced.
    const during: Stats[] = [];
    for (;;) {
      const stats = await ok<Stats>(replaced.client, "stats");
      if (stats.recall.pending === 0) break;
      during.push(stats);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const stats of during) expect(stats.recall.replacing).toBe("some-other-model");
    expect(await ok<Stats>(replaced.client, "stats")).toMatchObject({
      recall: { build: "hybrid", model: MODEL_ID, replacing: null },
    });
    const result = await ok<Recall>(replaced.client, "recall", { query: CONTACT });
    expect(result.hits[0]?.key).toBe("acme");
  });

  it("shares embedding between workers, each memory getting its own vectors", async () => {
    // Memories of very different lengths (one passage to several), written before the model
    // is added, so the backfill hands the workers jobs of many memories to share out.
    const texts = Array.from({ length: 24 }, (_, i) => {
      const sentence = `Item ${i} is about ${OTHERS[i % 3]?.toLowerCase()} and topic ${i}.`;
      return Array.from({ length: 1 + ((i * 7) % 23) }, () => sentence).join(" ");
    });
    const vectorsWith = async (workers: number) => {
      const dir = dataDir();
      const store = MemoryStore.open(storeFile(dir), { namespace: "default" });
      store.rememberMany(texts.map((text, i) => ({ key: `notes/${i}`, text })));
      store.close();
      const hybrid = await server(dir, [
        ...hybridArgs,
        "--embed-workers",
        String(workers),
        "--log-level",
        "info",
      ]);
      await untilEmbedded(hybrid.client);
      expect(hybrid.stderr()).toContain(`"workers":${workers}`);
      await hybrid.close();
      const db = openSqlite(storeFile(dir), { readOnly: true });
      const rows = db
        .prepare(
          "SELECT m.key, v.spans, v.vectors FROM memory_vectors v JOIN memories m ON m.id = v.memory_id",
        )
        .all() as { key: string; spans: Buffer; vectors: Buffer }[];
      db.close();
      const floats = (blob: Buffer) =>
        Array.from(new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4));
      return new Map(
        rows.map((row) => [row.key, { spans: row.spans, vectors: floats(row.vectors) }]),
      );
    };
    const one = await vectorsWith(1);
    const two = await vectorsWith(2);
    expect([...two.keys()].sort()).toEqual([...one.keys()].sort());
    expect(one.size).toBe(texts.length);
    for (const [key, mine] of two) {
      const reference = one.get(key);
      expect({ key, spans: mine.spans }).toEqual({ key, spans: reference?.spans });
      // The same text gives the same vector whichever worker (and batch) embedded it.
      const worst = Math.max(
        ...mine.vectors.map((x, i) => Math.abs(x - (reference?.vectors[i] ?? 9))),
      );
      expect({ key, close: worst < 1e-4 }).toEqual({ key, close: true });
    }
  });

  it("re-embeds only the passages an edit changed, giving the vectors a fresh embedding would", async () => {
    // A memory file of many passages (about 126 tokens each); appending a line changes its last.
    const lines = [
      "# Project notes",
      ...Array.from(
        { length: 24 },
        (_, i) =>
          `Meeting ${i}: the team reviewed milestone ${i}, agreed on owners for the open ` +
          `tasks, and planned the next review of budget line ${i} with the finance group.`,
      ),
    ];
    const before = lines.join("\n");
    const after = `${before}\nFollow-up: send the revised budget to Acme by email.`;
    const embeddedLog = (stderr: string) =>
      stderr
        .split("\n")
        .filter((line) => line.includes('"msg":"embedded"'))
        .map((line) => JSON.parse(line) as { passages: number; model_passages: number });

    const dir = dataDir();
    const hybrid = await server(dir, [...hybridArgs, "--log-level", "debug"]);
    await ok(hybrid.client, "remember", { key: "/memories/notes.md", text: before });
    await untilEmbedded(hybrid.client);
    const first = embeddedLog(hybrid.stderr());
    expect(first).toHaveLength(1);
    expect(first[0]?.passages).toBeGreaterThanOrEqual(6);
    expect(first[0]?.model_passages).toBe(first[0]?.passages);

    await ok(hybrid.client, "remember", { key: "/memories/notes.md", text: after });
    await untilEmbedded(hybrid.client);
    const edit = embeddedLog(hybrid.stderr())[1];
    expect(edit?.passages).toBeGreaterThanOrEqual(first[0]?.passages ?? 0);
    expect(edit?.model_passages).toBe(1);
    await hybrid.close();

    // The kept passages' vectors are those a server that never saw the file computes.
    const fresh = dataDir();
    const other = await server(fresh, hybridArgs);
    await ok(other.client, "remember", { key: "/memories/notes.md", text: after });
    await untilEmbedded(other.client);
    await other.close();
    const stored = (at: string) => {
      const db = openSqlite(storeFile(at), { readOnly: true });
      const row = db.prepare("SELECT spans, vectors FROM memory_vectors").get() as {
        spans: Buffer;
        vectors: Buffer;
      };
      db.close();
      const v = row.vectors;
      return {
        spans: row.spans,
        vectors: new Float32Array(v.buffer, v.byteOffset, v.byteLength / 4),
      };
    };
    const edited = stored(dir);
    const reference = stored(fresh);
    expect(edited.spans).toEqual(reference.spans);
    const worst = Math.max(
      ...edited.vectors.map((x, i) => Math.abs(x - (reference.vectors[i] ?? 9))),
    );
    expect(worst).toBeLessThan(1e-4);
  });

  it("sends an edited memory back to the embedding worker that holds its passages", async () => {
    const dir = dataDir();
    // The same heading on every file: the worker is known by the memory, not its first line.
    const notes = Array.from({ length: 4 }, (_, n) =>
      [
        "# Client notes",
        ...Array.from(
          { length: 12 },
          (_, i) =>
            `Call ${i} with client ${n}: they asked about invoice ${i}, delivery dates and ` +
            `the support contract renewal for site ${n}.`,
        ),
      ].join("\n"),
    );
    const store = MemoryStore.open(storeFile(dir), { namespace: "default" });
    store.rememberMany(notes.map((text, n) => ({ key: `/memories/client-${n}.md`, text })));
    store.close();
    const hybrid = await server(dir, [
      ...hybridArgs,
      "--embed-workers",
      "2",
      "--log-level",
      "debug",
    ]);
    await untilEmbedded(hybrid.client);
    const jobs = () =>
      hybrid
        .stderr()
        .split("\n")
        .filter((line) => line.includes('"msg":"embedded"'))
        .map((line) => JSON.parse(line) as { passages: number; model_passages: number });
    const backfill = jobs().length;
    // One edit at a time: each is a job of one memory, which either worker could take.
    for (const [n, text] of notes.entries()) {
      await ok(hybrid.client, "remember", {
        key: `/memories/client-${n}.md`,
        text: `${text}\nFollow-up: renewal signed.`,
      });
      await untilEmbedded(hybrid.client);
    }
    const edits = jobs().slice(backfill);
    expect(edits).toHaveLength(4);
    // Each edit appended a line: the model ran for its last passage only.
    expect(edits.map((job) => job.model_passages)).toEqual([1, 1, 1, 1]);
  });

  it("answers other calls while a large backfill runs", async () => {
    const dir = dataDir();
    const store = MemoryStore.open(storeFile(dir), { namespace: "default" });
    const total = 1500;
    store.rememberMany(
      Array.from({ length: total }, (_, i) => ({
        key: `notes/${String(i).padStart(4, "0")}`,
        text: `Note ${i}: ${OTHERS[i % 3]}, and a few more words to embed about item ${i}.`,
      })),
    );
    store.close();

    const hybrid = await server(dir, hybridArgs);
    const { client } = hybrid;
    const first = await ok<Stats>(client, "stats");
    for (let i = 0; i < 20; i++) {
      const key = `notes/${String(i * 7).padStart(4, "0")}`;
      expect(await ok(client, "get", { key })).toMatchObject({ key });
    }
    const recall = await ok<Recall>(client, "recall", { query: "lunch at noon", k: 3 });
    expect(recall.build).toBe("hybrid");
    expect(recall.hits).toHaveLength(3);
    // All of that was answered while the backfill was still going...
    const after = await ok<Stats>(client, "stats");
    expect(first.recall.pending).toBeGreaterThan(0);
    expect(after.recall.pending).toBeGreaterThan(0);
    // ...and the backfill keeps making progress.
    for (;;) {
      const now = await ok<Stats>(client, "stats");
      if (now.recall.pending < after.recall.pending) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it.each([
    ["one embedding worker", []],
    ["two embedding workers", ["--embed-workers", "2"]],
  ])(
    "says when its embedding worker has died, and goes on serving lexical recall (%s)",
    async (_, workers) => {
      const dir = dataDir();
      const hybrid = await server(dir, [...hybridArgs, ...workers], ["--import", WORKER_DIES]);
      await ok(hybrid.client, "remember", { key: "/memories/acme.md", text: ACME });
      await untilEmbedded(hybrid.client);
      expect((await ok<Stats>(hybrid.client, "stats")).recall).toMatchObject({
        build: "hybrid",
        model: MODEL_ID,
        pending: 0,
        failure: null,
        embedded: 1,
      });

      await ok(hybrid.client, "remember", { key: "/memories/crash.md", text: DIE_MARKER });
      let stats = await ok<Stats>(hybrid.client, "stats");
      while (stats.recall.failure === null) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        stats = await ok<Stats>(hybrid.client, "stats");
      }
      expect(stats.recall).toMatchObject({
        build: "lexical",
        model: MODEL_ID,
        pending: 1,
        failure: "the embedding worker exited (code 7)",
        embedded: 1,
      });
      const text = await hybrid.client.callTool({ name: "stats", arguments: {} });
      expect(JSON.stringify(text.content)).toContain(
        "recall lexical (all-MiniLM-L6-v2-int8, 1 pending) because the embedding worker exited (code 7)",
      );
      // Recall still answers, lexically, and says so; writes still work.
      expect(
        await ok<Recall>(hybrid.client, "recall", { query: "email follow-ups" }),
      ).toMatchObject({
        hits: [{ key: "/memories/acme.md" }],
        build: "lexical",
      });
      await ok(hybrid.client, "remember", { key: "/memories/later.md", text: "still writable" });
    },
  );

  it("refuses to start without a usable model, saying how to get one", () => {
    const dir = dataDir();
    const missing = run(["--data-dir", dir, "--model-dir", join(dir, "no-such-model")]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("is not installed");
    expect(missing.stderr).toContain("hms-mcp fetch-model");

    const empty = join(dir, "empty-model");
    mkdirSync(empty);
    const incomplete = run(["--data-dir", dir, "--model-dir", empty]);
    expect(incomplete.status).toBe(2);
    expect(incomplete.stderr).toContain("is incomplete: model.onnx");

    const reembed = run(["--data-dir", dir, "--reembed"]);
    expect(reembed.status).toBe(2);
    expect(reembed.stderr).toContain("no --model-dir was given");
  });

  it("fetch-model prints the model directory (a verified cache is reused offline)", () => {
    const result = run(["fetch-model", "--dir", modelDir]);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${modelDir}\n`);
    expect(result.stderr).toContain("verified cache reused");
  });
});

describe("the ONNX Runtime under hybrid recall (--embed-runtime)", () => {
  it("runs on the bundled WebAssembly runtime when onnxruntime-node is not installed", async () => {
    const dir = dataDir();
    const hybrid = await startHybridWithParaphrases({
      dataDir: dir,
      modelDir,
      args: ["--log-level", "info"],
      nodeArgs: ["--import", BLOCK_NATIVE],
    });
    cleanups.push(hybrid.close);
    const found = await ok<Recall>(hybrid.client, "recall", { query: CONTACT, k: 2 });
    expect(found.build).toBe("hybrid");
    expect(found.hits[0]?.key).toBe("/memories/acme.md");
    expect(hybrid.stderr()).toContain('"runtime":"onnxruntime-web"');
  });

  it("runs on WebAssembly when asked, even with onnxruntime-node installed", async () => {
    const dir = dataDir();
    const hybrid = await startHybridWithParaphrases({
      dataDir: dir,
      modelDir,
      args: ["--embed-runtime", "wasm", "--log-level", "info"],
    });
    cleanups.push(hybrid.close);
    const found = await ok<Recall>(hybrid.client, "recall", { query: CONTACT, k: 2 });
    expect(found.build).toBe("hybrid");
    expect(found.hits[0]?.key).toBe("/memories/acme.md");
    expect(hybrid.stderr()).toContain('"runtime":"onnxruntime-web"');
  });

  it("refuses to start on the native runtime when it is not installed, saying how to get it", () => {
    const dir = dataDir();
    const result = spawnSync(
      process.execPath,
      [
        "--import",
        BLOCK_NATIVE,
        hmsMcpBin(),
        "--data-dir",
        dir,
        ...hybridArgs,
        "--embed-runtime",
        "native",
      ],
      { env: cleanEnv(), encoding: "utf8", input: "" },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("onnxruntime-node) is not installed");
    expect(result.stderr).toContain("npm install --ignore-scripts onnxruntime-node");
  });
});

describe("the lexical build without @hms/embedder installed", () => {
  it("serves and recalls as before; asking for a model says what to install", async () => {
    const dir = dataDir();
    const lexical = await server(dir, [], ["--import", BLOCK_EMBEDDER]);
    await ok(lexical.client, "remember", { key: "acme", text: ACME });
    expect(await ok<Recall>(lexical.client, "recall", { query: "email" })).toMatchObject({
      hits: [{ key: "acme" }],
      build: "lexical",
    });
    await lexical.close();

    const result = spawnSync(
      process.execPath,
      ["--import", BLOCK_EMBEDDER, hmsMcpBin(), "--data-dir", dir, ...hybridArgs],
      { env: cleanEnv(), encoding: "utf8", input: "" },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("hybrid recall needs the @hms/embedder package");
  });
});
