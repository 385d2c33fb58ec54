/**
 * The server's handle on the embedding worker thread: start it (the model is loaded and
 * checked before the server serves anything), send texts, get vectors.
 */
import { Worker } from "node:worker_threads";
import type {
  EmbeddedMemory,
  WorkerHello,
  WorkerRequest,
  WorkerResponse,
  WorkerSetup,
} from "./protocol.js";

/** The model could not be loaded; `message` says why and how to get it. */
export class ModelUnavailableError extends Error {
  override readonly name = "ModelUnavailableError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Pending = {
  resolve: (response: WorkerResponse) => void;
  reject: (error: Error) => void;
};

export class EmbeddingWorker {
  readonly modelId: string;
  readonly dimensions: number;
  /** Models whose stores this model re-embeds on its own (an upgrade). */
  readonly replaces: readonly string[];
  /** The ONNX Runtime the worker's model runs on. */
  readonly runtime: string;
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #failure: Error | undefined;

  private constructor(
    worker: Worker,
    hello: { modelId: string; dimensions: number; runtime: string; replaces: readonly string[] },
  ) {
    this.#worker = worker;
    this.modelId = hello.modelId;
    this.dimensions = hello.dimensions;
    this.replaces = hello.replaces;
    this.runtime = hello.runtime;
    worker.on("message", (message: WorkerResponse) => {
      const pending = this.#pending.get(message.id);
      if (pending === undefined) return;
      this.#pending.delete(message.id);
      if (message.kind === "error") pending.reject(new Error(message.message));
      else pending.resolve(message);
    });
    const fail = (error: Error) => {
      this.#failure ??= error;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the embedding worker exited (code ${code})`)));
  }

  /**
   * Starts the worker at `script` and waits until its model is loaded. Rejects with
   * {@link ModelUnavailableError} when the model is missing or broken, or the embedder is not
   * installed.
   */
  static start(script: URL, setup: WorkerSetup): Promise<EmbeddingWorker> {
    const worker = new Worker(script, { workerData: setup });
    return new Promise((resolve, reject) => {
      const onExit = (code: number) =>
        reject(new Error(`the embedding worker exited (code ${code}) before loading the model`));
      worker.once("error", reject);
      worker.once("exit", onExit);
      worker.once("message", (hello: WorkerHello) => {
        worker.off("error", reject);
        worker.off("exit", onExit);
        if (hello.kind === "ready") {
          resolve(new EmbeddingWorker(worker, hello));
        } else {
          void worker.terminate();
          reject(new ModelUnavailableError(hello.code, hello.message));
        }
      });
    });
  }

  /** Why the worker stopped working, if it did. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** The query's unit vector. */
  async embedQuery(text: string): Promise<Float32Array> {
    const response = await this.#request({ id: 0, kind: "query", text });
    if (response.kind !== "query") throw new Error("the embedding worker answered out of turn");
    return response.vector;
  }

  /** Each memory's passage spans and vectors, in order. */
  async embedMemories(texts: readonly string[]): Promise<EmbeddedMemory[]> {
    const response = await this.#request({ id: 0, kind: "memories", texts });
    if (response.kind !== "memories" || response.memories.length !== texts.length) {
      throw new Error("the embedding worker answered out of turn");
    }
    return response.memories;
  }

  /** Stops the worker; requests in flight are rejected. */
  async close(): Promise<void> {
    this.#failure ??= new Error("the embedding worker was closed");
    await this.#worker.terminate();
  }

  #request(request: WorkerRequest): Promise<WorkerResponse> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }
}
