/**
 * The embedding worker thread (built as dist/embedding-worker.js). It loads @hms/embedder (and
 * with it ONNX Runtime) only here, so a server without a model never loads either, and the
 * server's event loop never waits for a model run.
 *
 * Queries are answered as they arrive; memories are embedded a few passages per model call
 * with a turn of the event loop between calls, so a query waits for at most one call. The
 * passages of a job are sorted by length and grouped, so a call pads little. A passage embedded
 * lately is not embedded again (an edited memory keeps most of its passages).
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { parentPort, workerData } from "node:worker_threads";
import type { Embedder, planBatches } from "@hms/embedder";
import { type Passage, splitPassages } from "./passages.js";
import type {
  EmbeddedMemory,
  WorkerHello,
  WorkerRequest,
  WorkerResponse,
  WorkerSetup,
} from "./protocol.js";
import { VectorCache } from "./vector-cache.js";

const port = parentPort;
if (port === null) throw new Error("embedding-worker.js runs as a worker thread of hms-mcp");
const setup = workerData as WorkerSetup;

function send(message: WorkerHello | WorkerResponse, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

/** The loaded model, and the embedder's planner of model runs. */
interface Loaded {
  readonly embedder: Embedder;
  readonly plan: typeof planBatches;
}

async function load(): Promise<Loaded | undefined> {
  let module: typeof import("@hms/embedder");
  try {
    module = await import("@hms/embedder");
  } catch (error) {
    send({
      kind: "failed",
      code: "EMBEDDER_NOT_INSTALLED",
      message:
        "hybrid recall needs the @hms/embedder package (it runs the model), which is not " +
        "installed next to hms-mcp or did not load: install it with `npm install " +
        '@hms/embedder` next to hms-mcp (with pip: `pip install "holographic-memory-claude-' +
        'tool[hybrid]"`), or run without --model-dir for lexical recall. ' +
        `(${(error as Error).message})`,
    });
    return undefined;
  }
  const model = setup.model === undefined ? undefined : module.modelById(setup.model);
  if (setup.model !== undefined && model === undefined) {
    send({
      kind: "failed",
      code: "MODEL_UNKNOWN",
      message: `no embedding model is called ${setup.model}; the models are ${module.MODELS.map((m) => m.id).join(", ")}`,
    });
    return undefined;
  }
  try {
    const embedder = await module.loadEmbedder(setup.modelDir, {
      ...(model === undefined ? {} : { model }),
      ...(setup.threads === undefined ? {} : { threads: setup.threads }),
      runtime: setup.runtime,
      fetchHint: setup.fetchHint,
    });
    send({
      kind: "ready",
      modelId: embedder.modelId,
      dimensions: embedder.dimensions,
      replaces: (model ?? module.modelById(embedder.modelId))?.replaces ?? [],
      runtime: embedder.runtime,
    });
    return { embedder, plan: module.planBatches };
  } catch (error) {
    const code = error instanceof module.ModelNotReadyError ? error.code : "MODEL_LOAD_FAILED";
    send({ kind: "failed", code, message: (error as Error).message });
    return undefined;
  }
}

/**
 * Passages embedded lately, by text: about 10 MiB at most (4,096 vectors of 384 floats, and
 * their texts), which holds the passages of the memories being edited.
 */
const recent = new VectorCache(4096, 2_000_000);

async function embedMemories({ embedder, plan }: Loaded, texts: readonly string[]) {
  const options = { ...setup.passages, countTokens: (text: string) => embedder.countTokens(text) };
  const passages: Passage[][] = texts.map((text) => splitPassages(text, options));
  const flat = passages.flat().map((passage) => passage.text);
  const vectors: Float32Array[] = new Array(flat.length);
  // Only the passages not embedded lately go to the model (an edit changes few of them).
  const missing: number[] = [];
  flat.forEach((text, k) => {
    const kept = recent.get(text);
    if (kept === undefined) missing.push(k);
    else vectors[k] = kept;
  });
  // Tokens as the model runs them: cut to its length, with [CLS] and [SEP].
  const lengths = missing.map((k) =>
    Math.min(embedder.countTokens(flat[k] as string) + 2, embedder.maxTokens),
  );
  const groups = plan(lengths, {
    maxTexts: Math.max(1, missing.length),
    maxTokens: setup.tokensPerCall,
  });
  for (const [i, group] of groups.entries()) {
    if (i > 0) await nextTurn();
    const texts = group.map((g) => flat[missing[g] as number] as string);
    const embedded = await embedder.embed(texts);
    group.forEach((g, j) => {
      const vector = embedded[j] as Float32Array;
      vectors[missing[g] as number] = vector;
      recent.set(texts[j] as string, vector);
    });
  }
  // Every passage missing from the kept ones went to the model.
  const ranByModel = new Set(missing);
  const dims = embedder.dimensions;
  let next = 0;
  return passages.map((list): EmbeddedMemory => {
    const spans = new Uint32Array(list.length * 2);
    const packed = new Float32Array(list.length * dims);
    let fresh = 0;
    list.forEach((passage, i) => {
      spans[i * 2] = passage.lineStart;
      spans[i * 2 + 1] = passage.lineEnd;
      if (ranByModel.has(next)) fresh++;
      packed.set(vectors[next++] as Float32Array, i * dims);
    });
    return { spans, vectors: packed, fresh };
  });
}

const loaded = await load();
if (loaded !== undefined) {
  const { embedder } = loaded;
  port.on("message", (request: WorkerRequest) => {
    const work =
      request.kind === "query"
        ? embedder.embed([request.text]).then(([vector]) => {
            const v = vector as Float32Array;
            send({ id: request.id, kind: "query", vector: v }, [v.buffer as ArrayBuffer]);
          })
        : embedMemories(loaded, request.texts).then((memories) => {
            const transfer = memories.flatMap((m) => [
              m.spans.buffer as ArrayBuffer,
              m.vectors.buffer as ArrayBuffer,
            ]);
            send({ id: request.id, kind: "memories", memories }, transfer);
          });
    work.catch((error: unknown) => {
      send({ id: request.id, kind: "error", message: (error as Error)?.message ?? String(error) });
    });
  });
}
