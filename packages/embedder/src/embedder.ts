/**
 * A sentence embedder over a verified local model directory: tokenizer, ONNX Runtime on the
 * CPU (native or WebAssembly: runtime.ts), mean pooling over the attention mask, L2
 * normalisation.
 */
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { planBatches } from "./batches.js";
import { DEFAULT_MODEL, type ModelManifest } from "./manifest.js";
import { FETCH_HINT, identifyModel, verifyModelDir } from "./model-dir.js";
import { meanPool } from "./pooling.js";
import { loadRuntime, RUNTIME_CHOICES, type RuntimeChoice, type RuntimeName } from "./runtime.js";
import { createTextEncoder } from "./tokenize.js";

/** Default most texts in one model run; see the README for the measurements behind it. */
export const DEFAULT_BATCH_SIZE = 32;
/** Default most padded tokens (texts × longest text) in one model run. */
export const DEFAULT_BATCH_TOKENS = 512;

export interface EmbedderOptions {
  /**
   * ONNX Runtime intra-op threads for one run. Default: the machine's available parallelism,
   * at most 4. Runs are serialised, so this is the most cores embedding ever uses.
   */
  readonly threads?: number;
  /** The most texts in one model run (default {@link DEFAULT_BATCH_SIZE}). */
  readonly batchSize?: number;
  /**
   * The most padded tokens (texts × longest text) in one model run (default
   * {@link DEFAULT_BATCH_TOKENS}). It bounds a run's memory and how long it holds the event
   * loop: ONNX Runtime's Node binding computes on the main thread. A text longer than this
   * still runs, alone. `Infinity` leaves only `batchSize`.
   */
  readonly batchTokens?: number;
  /**
   * Whether ONNX Runtime's idle threads spin while waiting for work (default false). Spinning
   * burns cores the rest of the process needs; with the cores shared, short queries ran 1.75×
   * faster without it (see the README).
   */
  readonly spin?: boolean;
  /**
   * The ONNX Runtime to run the model on: `auto` (default) uses the native onnxruntime-node
   * when the project has it installed, else the WebAssembly build bundled with this package;
   * `native` and `wasm` insist on one. Vectors agree across runtimes to a cosine of 0.999 or
   * more (the tests check it); only speed and memory differ (see the README).
   */
  readonly runtime?: RuntimeChoice;
  /**
   * The manifest the directory must match. Default: the model of {@link MODELS} whose files
   * the directory holds at their pinned sizes ({@link identifyModel}), else the default model.
   */
  readonly model?: ModelManifest;
  /** How a person gets the model, ending every "model not ready" error. */
  readonly fetchHint?: string;
}

export interface Embedder {
  /** Names the vector space; store it beside each vector. */
  readonly modelId: string;
  /** Length of every vector. */
  readonly dimensions: number;
  /** Tokens per text, special tokens included; longer texts are cut to this. */
  readonly maxTokens: number;
  /** Whether vectors have unit length (so a dot product is their cosine). */
  readonly normalized: boolean;
  /** The ONNX Runtime the model runs on. */
  readonly runtime: RuntimeName;
  /**
   * How many tokens the model's tokenizer makes of `text`, special tokens excluded and before
   * any cut: a text embeds whole when this is at most `maxTokens - 2` (room for [CLS] and
   * [SEP]). For splitting long texts into passages that fit.
   */
  countTokens(text: string): number;
  /**
   * One vector per text, in order. Texts are tokenized, cut to {@link maxTokens}, grouped by
   * length into runs within `batchSize` and `batchTokens`, and pooled. Calls are served one at
   * a time.
   */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Frees the model; later `embed` calls fail. */
  close(): Promise<void>;
}

interface SentenceConfig {
  maxTokens: number;
  dimensions: number;
  normalize: boolean;
}

/**
 * Loads the embedding model in `modelDir` (as filled by `pnpm fetch-model`). The directory is
 * checked against the manifest's SHA-256 pins first; a missing, incomplete or altered directory
 * is refused with a `ModelNotReadyError` that says how to get the model.
 */
export async function loadEmbedder(
  modelDir: string,
  options: EmbedderOptions = {},
): Promise<Embedder> {
  const model = options.model ?? (await identifyModel(modelDir)) ?? DEFAULT_MODEL;
  const threads = options.threads ?? Math.min(availableParallelism(), 4);
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const batchTokens = options.batchTokens ?? DEFAULT_BATCH_TOKENS;
  if (!Number.isInteger(threads) || threads < 1) {
    throw new RangeError(`threads must be a positive integer, got ${threads}`);
  }
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  }
  if (
    !(Number.isInteger(batchTokens) || batchTokens === Number.POSITIVE_INFINITY) ||
    batchTokens < 1
  ) {
    throw new RangeError(`batchTokens must be a positive integer or Infinity, got ${batchTokens}`);
  }
  const runtimeChoice = options.runtime ?? "auto";
  if (!RUNTIME_CHOICES.includes(runtimeChoice)) {
    throw new RangeError(
      `runtime must be one of ${RUNTIME_CHOICES.join(", ")}, got ${JSON.stringify(runtimeChoice)}`,
    );
  }
  const dir = await verifyModelDir(modelDir, model, options.fetchHint ?? FETCH_HINT);
  const json = async (name: string): Promise<Record<string, unknown>> =>
    JSON.parse(await readFile(join(dir, name), "utf8")) as Record<string, unknown>;

  const config = sentenceConfig(
    await json("config.json"),
    await json("sentence_bert_config.json"),
    await json("pooling_config.json"),
    (await json("modules.json")) as unknown,
    model.settings?.maxTokens,
  );
  const encoder = createTextEncoder(
    await json("tokenizer.json"),
    await json("tokenizer_config.json"),
    config.maxTokens,
  );
  const runtime = await loadRuntime(runtimeChoice, threads);
  const { ort } = runtime;
  const session = await ort.InferenceSession.create(
    join(dir, "model.onnx"),
    runtime.sessionOptions(threads, options.spin ?? false),
  );
  const inputs = new Set(session.inputNames);
  const wanted = model.settings?.tokenOutput ?? "last_hidden_state";
  const output = session.outputNames.includes(wanted)
    ? wanted
    : model.settings?.tokenOutput === undefined
      ? (session.outputNames[0] ?? "")
      : "";

  async function run(ids: number[][]): Promise<Float32Array[]> {
    const batch = ids.length;
    const sequence = Math.max(...ids.map((row) => row.length));
    const inputIds = new BigInt64Array(batch * sequence);
    const attention = new BigInt64Array(batch * sequence);
    const mask = new Uint8Array(batch * sequence);
    ids.forEach((row, b) => {
      row.forEach((id, t) => {
        inputIds[b * sequence + t] = BigInt(id);
        attention[b * sequence + t] = 1n;
        mask[b * sequence + t] = 1;
      });
    });
    const shape = [batch, sequence];
    const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {
      input_ids: new ort.Tensor("int64", inputIds, shape),
      attention_mask: new ort.Tensor("int64", attention, shape),
    };
    // A single text is segment 0 throughout.
    if (inputs.has("token_type_ids")) {
      feeds.token_type_ids = new ort.Tensor("int64", new BigInt64Array(batch * sequence), shape);
    }
    const result = (await session.run(feeds, [output]))[output];
    const expected = [batch, sequence, config.dimensions];
    if (result?.type !== "float32" || result.dims.join() !== expected.join()) {
      throw new Error(
        `${model.id}: expected ${output} of shape [${expected.join(", ")}] float32, got [${result?.dims.join(", ")}] ${result?.type}`,
      );
    }
    return meanPool(
      result.data as Float32Array,
      mask,
      batch,
      sequence,
      config.dimensions,
      config.normalize,
    );
  }

  // One run at a time: concurrent runs would only fight over the same cores and memory.
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  const serially = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task);
    queue = next.catch(() => {});
    return next;
  };

  async function embedNow(texts: readonly string[]): Promise<Float32Array[]> {
    if (closed) throw new Error(`${model.id}: the embedder is closed`);
    const ids = texts.map((text) => encoder.encode(text));
    const vectors: Float32Array[] = new Array(texts.length);
    const lengths = ids.map((row) => row.length);
    for (const group of planBatches(lengths, { maxTexts: batchSize, maxTokens: batchTokens })) {
      const pooled = await run(group.map((index) => ids[index] as number[]));
      group.forEach((index, k) => {
        vectors[index] = pooled[k] as Float32Array;
      });
    }
    return vectors;
  }

  // Fails now, not on the first request, if the graph does not take or produce what the
  // configuration says.
  try {
    if (!inputs.has("input_ids") || !inputs.has("attention_mask") || output === "") {
      throw new Error(
        `${model.id}: model.onnx takes ${session.inputNames.join(", ")} and gives ${session.outputNames.join(", ")}; expected input_ids, attention_mask and ${model.settings?.tokenOutput ?? "an output"}`,
      );
    }
    await embedNow([""]);
  } catch (error) {
    await session.release();
    throw error;
  }

  return {
    modelId: model.id,
    dimensions: config.dimensions,
    maxTokens: config.maxTokens,
    normalized: config.normalize,
    runtime: runtime.name,
    countTokens(text: string): number {
      if (typeof text !== "string") throw new TypeError("countTokens takes a string");
      return encoder.count(text);
    },
    embed(texts: readonly string[]): Promise<Float32Array[]> {
      if (!Array.isArray(texts)) {
        return Promise.reject(new TypeError("embed takes an array of strings"));
      }
      const bad = texts.findIndex((text) => typeof text !== "string");
      if (bad >= 0) {
        return Promise.reject(
          new TypeError(`embed takes an array of strings; item ${bad} is ${typeof texts[bad]}`),
        );
      }
      return serially(() => embedNow(texts));
    },
    close(): Promise<void> {
      return serially(async () => {
        if (closed) return;
        closed = true;
        await session.release();
      });
    },
  };
}

/** Reads what the sentence-transformers configuration says about pooling and length. */
function sentenceConfig(
  bert: Record<string, unknown>,
  sentence: Record<string, unknown>,
  pooling: Record<string, unknown>,
  modules: unknown,
  trainedTokens: number | undefined,
): SentenceConfig {
  const positiveInteger = (value: unknown, what: string): number => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
      throw new Error(
        `model configuration: ${what} is ${JSON.stringify(value)}, not a positive integer`,
      );
    }
    return value;
  };
  const dimensions = positiveInteger(bert.hidden_size, "config.json hidden_size");
  const positions = positiveInteger(
    bert.max_position_embeddings,
    "config.json max_position_embeddings",
  );
  const maxSeq = positiveInteger(
    sentence.max_seq_length,
    "sentence_bert_config.json max_seq_length",
  );
  const pooled = positiveInteger(
    pooling.word_embedding_dimension,
    "pooling_config.json word_embedding_dimension",
  );
  if (pooled !== dimensions) {
    throw new Error(
      `model configuration: pooling over ${pooled} dimensions, model has ${dimensions}`,
    );
  }
  const modes = Object.entries(pooling).filter(
    ([key, on]) => key.startsWith("pooling_mode_") && on,
  );
  if (modes.length !== 1 || modes[0]?.[0] !== "pooling_mode_mean_tokens") {
    throw new Error(
      `model configuration: only mean pooling is supported, the model asks for ${modes.map(([key]) => key).join(", ") || "none"}`,
    );
  }
  const normalize =
    Array.isArray(modules) &&
    modules.some(
      (module) =>
        typeof module === "object" &&
        module !== null &&
        (module as { type?: unknown }).type === "sentence_transformers.models.Normalize",
    );
  const maxTokens = Math.min(maxSeq, positions, trainedTokens ?? Number.POSITIVE_INFINITY);
  return { maxTokens, dimensions, normalize };
}
