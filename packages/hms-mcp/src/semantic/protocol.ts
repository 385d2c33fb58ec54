/**
 * Messages between the server and its embedding worker thread. The worker owns the model
 * (ONNX Runtime computes on the thread that calls it, so it must not be the server's), cuts
 * memories into passages and embeds them; the server only sends texts and receives vectors.
 */
import type { PassageOptions } from "./passages.js";

/** `--embed-runtime`: @hms/embedder's runtime choice. */
export type EmbedRuntime = "auto" | "native" | "wasm";

/** What the worker is started with (`workerData`). */
export interface WorkerSetup {
  readonly modelDir: string;
  /** The model the directory must hold (an id of @hms/embedder's MODELS); undefined: any. */
  readonly model: string | undefined;
  /** ONNX Runtime intra-op threads; undefined lets the embedder choose. */
  readonly threads: number | undefined;
  /** Which ONNX Runtime: native, WebAssembly, or native when installed (auto). */
  readonly runtime: EmbedRuntime;
  /** The sentence that ends a "model not ready" error: how to get the model. */
  readonly fetchHint: string;
  /** How memories are cut into passages (the token counter comes from the model). */
  readonly passages: Omit<PassageOptions, "countTokens">;
  /**
   * Most padded tokens (passages × longest passage) in one model call; the worker answers
   * queries between calls, so this bounds how long a query waits behind memories.
   */
  readonly tokensPerCall: number;
}

/** The worker's first message: the model is loaded, or why it could not be. */
export type WorkerHello =
  | {
      readonly kind: "ready";
      readonly modelId: string;
      readonly dimensions: number;
      /** Models whose stores this one re-embeds on its own (the manifest's `replaces`). */
      readonly replaces: readonly string[];
      /** The ONNX Runtime the model runs on (onnxruntime-node or onnxruntime-web). */
      readonly runtime: string;
    }
  | { readonly kind: "failed"; readonly code: string; readonly message: string };

export type WorkerRequest =
  | { readonly id: number; readonly kind: "query"; readonly text: string }
  | { readonly id: number; readonly kind: "memories"; readonly texts: readonly string[] };

/** One memory's passages: line ranges as (start, end) pairs, and their vectors. */
export interface EmbeddedMemory {
  readonly spans: Uint32Array;
  readonly vectors: Float32Array;
  /** How many of the passages the model ran for; the others were embedded lately, unchanged. */
  readonly fresh: number;
}

export type WorkerResponse =
  | { readonly id: number; readonly kind: "query"; readonly vector: Float32Array }
  | { readonly id: number; readonly kind: "memories"; readonly memories: EmbeddedMemory[] }
  | { readonly id: number; readonly kind: "error"; readonly message: string };
