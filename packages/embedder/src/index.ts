/**
 * @hms/embedder: local sentence embeddings for hybrid recall.
 *
 * `pnpm fetch-model` (or {@link fetchModel}) puts the pinned model in a cache directory;
 * {@link loadEmbedder} verifies and loads it; `embed` turns texts into unit vectors.
 */

export { type BatchLimits, planBatches } from "./batches.js";
export {
  DEFAULT_BATCH_SIZE,
  DEFAULT_BATCH_TOKENS,
  type Embedder,
  type EmbedderOptions,
  loadEmbedder,
} from "./embedder.js";
export {
  type FetchModelOptions,
  type FetchModelResult,
  fetchModel,
  ModelFetchError,
  type ModelFetchErrorCode,
} from "./fetch.js";
export {
  ALL_MINILM_L6_V2_INT8,
  DEFAULT_MODEL,
  MODELS,
  type ModelFile,
  type ModelManifest,
  type ModelSettings,
  modelById,
  PARAPHRASE_MINILM_L3_V2,
  type PypiSource,
} from "./manifest.js";
export {
  defaultModelDir,
  defaultModelsDir,
  FETCH_HINT,
  identifyModel,
  type ModelNotReadyCode,
  ModelNotReadyError,
  verifyModelDir,
} from "./model-dir.js";
export { cosine } from "./pooling.js";
export {
  RUNTIME_CHOICES,
  type RuntimeChoice,
  type RuntimeName,
} from "./runtime.js";
