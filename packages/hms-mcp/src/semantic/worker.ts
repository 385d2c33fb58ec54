/**
 * The embedding worker thread (built as dist/embedding-worker.js). It loads @hms/embedder (and
 * with it ONNX Runtime) only here, so a server without a model never loads either, and the
 * server's event loop never waits for a model run.
 *
 * Queries are answered as they arrive; memories are embedded a few passages per model call
 * with a turn of the event loop between calls, so a query waits for at most one call.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { parentPort, workerData } from "node:worker_threads";
import type { Embedder } from "@hms/embedder";
import { type Passage, splitPassages } from "./passages.js";
import type {
  EmbeddedMemory,
  WorkerHello,
  WorkerRequest,
  WorkerResponse,
  WorkerSetup,
} from "./protocol.js";

const port = parentPort;
if (port === null) throw new Error("embedding-worker.js runs as a worker thread of hms-mcp");
const setup = workerData as WorkerSetup;

function send(message: WorkerHello | WorkerResponse, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

async function load(): Promise<Embedder | undefined> {
  let module: typeof import("@hms/embedder");
  try {
    module = await import("@hms/embedder");
  } catch (error) {
    send({
      kind: "failed",
      code: "EMBEDDER_NOT_INSTALLED",
      message:
        "hybrid recall needs the @hms/embedder package (it brings ONNX Runtime), which is not " +
        "installed next to hms-mcp or did not load: install it with " +
        "`ONNXRUNTIME_NODE_INSTALL=skip npm install @hms/embedder` (the variable stops " +
        "onnxruntime-node's install script from downloading a CUDA add-on hms-mcp does not use, " +
        `so the install works offline), or run without --model-dir. (${(error as Error).message})`,
    });
    return undefined;
  }
  try {
    const embedder = await module.loadEmbedder(setup.modelDir, {
      ...(setup.threads === undefined ? {} : { threads: setup.threads }),
      fetchHint: setup.fetchHint,
    });
    send({ kind: "ready", modelId: embedder.modelId, dimensions: embedder.dimensions });
    return embedder;
  } catch (error) {
    const code = error instanceof module.ModelNotReadyError ? error.code : "MODEL_LOAD_FAILED";
    send({ kind: "failed", code, message: (error as Error).message });
    return undefined;
  }
}

async function embedMemories(embedder: Embedder, texts: readonly string[]) {
  const options = { ...setup.passages, countTokens: (text: string) => embedder.countTokens(text) };
  const passages: Passage[][] = texts.map((text) => splitPassages(text, options));
  const flat = passages.flat();
  const vectors: Float32Array[] = [];
  for (let at = 0; at < flat.length; at += setup.passagesPerCall) {
    if (at > 0) await nextTurn();
    const group = flat.slice(at, at + setup.passagesPerCall).map((passage) => passage.text);
    vectors.push(...(await embedder.embed(group)));
  }
  const dims = embedder.dimensions;
  let next = 0;
  return passages.map((list): EmbeddedMemory => {
    const spans = new Uint32Array(list.length * 2);
    const packed = new Float32Array(list.length * dims);
    list.forEach((passage, i) => {
      spans[i * 2] = passage.lineStart;
      spans[i * 2 + 1] = passage.lineEnd;
      packed.set(vectors[next++] as Float32Array, i * dims);
    });
    return { spans, vectors: packed };
  });
}

const embedder = await load();
if (embedder !== undefined) {
  port.on("message", (request: WorkerRequest) => {
    const work =
      request.kind === "query"
        ? embedder.embed([request.text]).then(([vector]) => {
            const v = vector as Float32Array;
            send({ id: request.id, kind: "query", vector: v }, [v.buffer as ArrayBuffer]);
          })
        : embedMemories(embedder, request.texts).then((memories) => {
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
